package rpcclient_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/rpcclient"
	"github.com/egohost/egohost/internal/server/service"
	"github.com/egohost/egohost/internal/testkit/servicetest"
	"github.com/egohost/egohost/internal/testkit/sockdir"
	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
)

// startService runs a real service on its own state dir and returns it.
func startService(t *testing.T) (dir string, s *service.Service) {
	t.Helper()
	r := servicetest.Start(t)
	return r.Dir, r.Service
}

func dial(path, token string, opts rpcclient.SocketOptions) (*rpcclient.Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return rpcclient.DialSocket(ctx, path, token, opts)
}

func TestDialSocket(t *testing.T) {
	dir, s := startService(t)
	c, err := dial(filepath.Join(dir, protocol.AgentSocketFile), s.Token(), rpcclient.SocketOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ping protocol.PingResult
	if err := c.Call(ctx, protocol.MethodPing, nil, &ping); err != nil || ping.PID != os.Getpid() {
		t.Fatalf("ping: %+v, %v", ping, err)
	}
	if err := c.Call(ctx, "no.such.method", nil, nil); err == nil {
		t.Error("an unknown method: no error")
	}
}

// What stands between the token and a socket that is not the service's.
func TestDialSocketRefuses(t *testing.T) {
	dir, s := startService(t)
	real := filepath.Join(dir, protocol.AgentSocketFile)

	// The socket's path replaced by a symlink (to the real socket, even):
	// refused before dialing.
	link := filepath.Join(sockdir.New(t), "link.sock")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := dial(link, s.Token(), rpcclient.SocketOptions{}); !errors.Is(err, rpcclient.ErrNotService) {
		t.Errorf("a symlink: got %v, want ErrNotService", err)
	}
	// A plain file where the socket should be.
	file := filepath.Join(sockdir.New(t), "agent.sock")
	os.WriteFile(file, nil, 0o600)
	if _, err := dial(file, s.Token(), rpcclient.SocketOptions{}); !errors.Is(err, rpcclient.ErrNotService) {
		t.Errorf("a file: got %v, want ErrNotService", err)
	}
	// A listener of another user (the kernel's answer, faked): refused
	// before anything is written.
	other := func(int) (uint32, error) { return uint32(os.Getuid()) + 1, nil }
	if _, err := dial(real, s.Token(), rpcclient.SocketOptions{PeerUID: other}); !errors.Is(err, rpcclient.ErrNotService) {
		t.Errorf("another user's listener: got %v, want ErrNotService", err)
	}
	// A wrong token: the service cannot prove it holds it, so it is not
	// sent.
	if _, err := dial(real, strings.Repeat("a", 64), rpcclient.SocketOptions{}); !errors.Is(err, rpcclient.ErrNotService) {
		t.Errorf("a wrong token: got %v, want ErrNotService", err)
	}
	// No token: the socket serves none.
	if _, err := dial(real, "", rpcclient.SocketOptions{}); !errors.Is(err, rpcclient.ErrNoToken) {
		t.Errorf("no token: got %v, want ErrNoToken", err)
	}
	// No service.
	if _, err := dial(filepath.Join(sockdir.New(t), "none.sock"), s.Token(), rpcclient.SocketOptions{}); err == nil || !strings.Contains(err.Error(), "egohost serve") {
		t.Errorf("no service: got %v, want a hint to start it", err)
	}
}

// An impostor on the socket (a process that took the path while the
// service was down) answers the hello with a made-up proof: the client
// leaves without sending the token.
func TestDialSocketRefusesImpostor(t *testing.T) {
	path := filepath.Join(sockdir.New(t), "agent.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []string, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(20 * time.Second))
		r, w := nativemsg.NewReader(conn, 1<<20), nativemsg.NewWriter(conn, 1<<20)
		var frames []string
		for i := 0; ; i++ {
			b, err := r.Read()
			if err != nil {
				break
			}
			frames = append(frames, string(b))
			if i == 0 {
				w.Write([]byte(`{"proof":"00","version":"0.1.0"}`))
			} else {
				w.Write([]byte(`{"ok":true}`))
			}
		}
		got <- frames
	}()
	token := strings.Repeat("s", 64)
	if _, err := dial(path, token, rpcclient.SocketOptions{}); !errors.Is(err, rpcclient.ErrNotService) {
		t.Errorf("got %v, want ErrNotService", err)
	}
	select {
	case frames := <-got:
		if len(frames) != 1 || strings.Contains(strings.Join(frames, ""), token) {
			t.Errorf("the impostor read %q; want the hello only, and never the token", frames)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the impostor saw no end of the connection in 20 s")
	}
}
