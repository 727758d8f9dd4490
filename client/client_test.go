package client_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/internal/server/service"
	"github.com/egohost/egohost/internal/testkit/servicetest"
	"github.com/egohost/egohost/protocol"
)

// running is a real service in this process, on its own state dir.
type running struct {
	dir  string
	addr string
	stop func()
}

func startService(t *testing.T) *running {
	t.Helper()
	r := servicetest.Start(t)
	return &running{dir: r.Dir, addr: r.Service.Addr(), stop: r.Stop}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// dial finds the service the way the CLI does: state file, token file.
func (r *running) dial(t *testing.T) *client.Client {
	t.Helper()
	st, ok := client.ReadState(r.dir)
	if !ok {
		t.Fatal("no state file")
	}
	if st.Addr != r.addr || st.PID != os.Getpid() || st.Version != service.Version {
		t.Errorf("state: got %+v, want addr %s, pid %d, version %s", st, r.addr, os.Getpid(), service.Version)
	}
	tok, err := client.ReadToken(filepath.Join(r.dir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Dial(ctxT(t), st.Addr, tok, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestCall(t *testing.T) {
	c := startService(t).dial(t)
	var ping protocol.PingResult
	if err := c.Call(ctxT(t), protocol.MethodPing, nil, &ping); err != nil {
		t.Fatal(err)
	}
	if ping.Version != service.Version || ping.PID != os.Getpid() {
		t.Errorf("ping: got %+v, want version %s and pid %d", ping, service.Version, os.Getpid())
	}
}

func TestCallServiceError(t *testing.T) {
	c := startService(t).dial(t)
	err := c.Call(ctxT(t), "no.such.method", nil, nil)
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeMethodNotFound {
		t.Fatalf("got %v, want a *protocol.Error with code %s", err, protocol.CodeMethodNotFound.Name())
	}
	err = c.Call(ctxT(t), protocol.MethodPing, map[string]any{"nope": 1}, nil)
	if !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidParams {
		t.Fatalf("got %v, want a *protocol.Error with code %s", err, protocol.CodeInvalidParams.Name())
	}
}

func TestDialWrongToken(t *testing.T) {
	r := startService(t)
	_, err := client.Dial(ctxT(t), r.addr, "0123456789abcdef0123456789abcdef0123456789abcdef", client.Options{})
	if !errors.Is(err, client.ErrNotService) {
		t.Fatalf("got %v, want ErrNotService (the token is not sent to a listener that cannot prove it holds it)", err)
	}
}

func TestCallAfterClose(t *testing.T) {
	c := startService(t).dial(t)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctxT(t), protocol.MethodPing, nil, nil); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
}

func TestServiceGone(t *testing.T) {
	r := startService(t)
	c := r.dial(t)
	r.stop()
	select {
	case _, ok := <-c.Notifications():
		if ok {
			t.Fatal("got a notification, want the channel closed")
		}
	case <-ctxT(t).Done():
		t.Fatal("the notifications channel did not close when the service stopped")
	}
	if err := c.Call(ctxT(t), protocol.MethodPing, nil, nil); !errors.Is(err, client.ErrConnectionLost) {
		t.Fatalf("got %v, want ErrConnectionLost", err)
	}
}

func TestReadStateNone(t *testing.T) {
	if st, ok := client.ReadState(t.TempDir()); ok {
		t.Fatalf("got %+v, true for a dir without a state file; want false", st)
	}
	if _, err := client.ReadToken(filepath.Join(t.TempDir(), "token")); err == nil {
		t.Fatal("got no error for a missing token file")
	}
}
