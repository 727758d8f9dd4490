// Package servicetest runs a real egohost service in a test's process, on
// a state folder of its own: for the tests of the clients that talk to it
// (client, internal/rpcclient).
package servicetest

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/rpcclient"
	"github.com/egohost/egohost/internal/server/service"
	"github.com/egohost/egohost/internal/testkit/sockdir"
)

// Running is a service that serves until the test ends (or Stop).
type Running struct {
	Dir     string // its state folder: the token, the state file, the sockets
	Service *service.Service
	// Stop ends Serve and waits for it (at most 10 s); the test's cleanup
	// calls it too.
	Stop func()
}

// Start runs a service and returns once it listens (its state file is
// written).
func Start(t *testing.T) *Running {
	t.Helper()
	dir := sockdir.New(t)
	s, err := service.New(service.Options{
		Listen:    "127.0.0.1:0",
		Socket:    filepath.Join(dir, "relay.sock"),
		StateDir:  dir,
		TokenFile: filepath.Join(dir, "token"),
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	stop := sync.OnceFunc(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return within 10 s of cancel")
		}
	})
	t.Cleanup(stop)
	for deadline := time.Now().Add(5 * time.Second); ; {
		if _, ok := rpcclient.ReadState(dir); ok {
			return &Running{Dir: dir, Service: s, Stop: stop}
		}
		if time.Now().After(deadline) {
			t.Fatal("the service wrote no state file within 5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
