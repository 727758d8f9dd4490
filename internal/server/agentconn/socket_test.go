package agentconn

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/testkit/sockdir"
	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
)

// fakeGate knows the owner (agent id "", token "owner-token") and refuses
// the agent name "../x".
type fakeGate struct {
	mu      sync.Mutex
	refused []protocol.Code
}

const (
	ownerKey   = "owner-key"
	ownerToken = "owner-token"
)

func (g *fakeGate) ProofKey(agent string) (string, bool) { return ownerKey, agent == "" }

func (g *fakeGate) Admit(auth protocol.SocketAuth) *protocol.Error {
	if auth.Token != ownerToken {
		return protocol.Errorf(protocol.CodeUnauthorized, "wrong token")
	}
	if auth.Agent == "../x" {
		return protocol.Errorf(protocol.CodeInvalidParams, "bad name")
	}
	return nil
}

func (g *fakeGate) Refused(e *protocol.Error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refused = append(g.refused, e.Code)
}

func (g *fakeGate) refusals() []protocol.Code {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]protocol.Code(nil), g.refused...)
}

// serveSocket listens on a unix socket and runs AcceptSocket with g on
// each connection until ctx ends; an admitted one is served with h. It
// returns the socket's path.
func serveSocket(t *testing.T, ctx context.Context, g Gate, h Handler) string {
	t.Helper()
	path := filepath.Join(sockdir.New(t), "s")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer conn.Close()
				if c := AcceptSocket(ctx, conn, "v1", g, slog.New(slog.DiscardHandler)); c != nil {
					c.Serve(ctx, testLimits, h)
				}
			})
		}
	})
	return path
}

// rawSocket is a client of the agent socket that skips the client's
// checks, as an attacker's process would.
type rawSocket struct {
	c net.Conn
	r *nativemsg.Reader
	w *nativemsg.Writer
}

func dialRaw(t *testing.T, path string) *rawSocket {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second)) // a hang bound
	return &rawSocket{c: c, r: nativemsg.NewReader(c, 1<<20), w: nativemsg.NewWriter(c, 1<<20)}
}

// ask writes v and reads the reply into reply.
func (r *rawSocket) ask(v, reply any) error {
	b, _ := json.Marshal(v)
	if err := r.w.Write(b); err != nil {
		return err
	}
	b, err := r.r.Read()
	if err != nil {
		return err
	}
	return json.Unmarshal(b, reply)
}

// closed reports whether the other end closed the connection.
func (r *rawSocket) closed() bool {
	_, err := r.r.Read()
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

// What another local process can try on the socket, without the client's
// checks: each is refused, the gate told, with the connection closed.
func TestAcceptSocketRefusals(t *testing.T) {
	challenge := strings.Repeat("ab", 32)
	tests := []struct {
		name  string
		steps []any // frames; the last one's reply is the refusal
		want  protocol.Code
	}{
		{"not a hello", []any{map[string]string{"relay": "hello"}}, protocol.CodeInvalidRequest},
		{"short challenge", []any{protocol.SocketHello{Hello: "egohost", Challenge: "abc"}}, protocol.CodeInvalidRequest},
		{"long challenge", []any{protocol.SocketHello{Hello: "egohost", Challenge: strings.Repeat("a", 129)}}, protocol.CodeInvalidRequest},
		{"unknown agent id", []any{protocol.SocketHello{Hello: "egohost", Challenge: challenge, Agent: "nobody"}}, protocol.CodeUnauthorized},
		{"auth not JSON", []any{protocol.SocketHello{Hello: "egohost", Challenge: challenge}, "token"}, protocol.CodeInvalidRequest},
		{"no token", []any{protocol.SocketHello{Hello: "egohost", Challenge: challenge}, protocol.SocketAuth{}}, protocol.CodeUnauthorized},
		{"refused by the gate", []any{protocol.SocketHello{Hello: "egohost", Challenge: challenge}, protocol.SocketAuth{Token: ownerToken, Agent: "../x"}}, protocol.CodeInvalidParams},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := &fakeGate{}
			r := dialRaw(t, serveSocket(t, t.Context(), g, pong))
			var reply protocol.SocketReply
			for _, step := range tc.steps {
				if err := r.ask(step, &reply); err != nil {
					t.Fatalf("ask %+v: %v", step, err)
				}
			}
			if reply.Error == nil || reply.Error.Code != tc.want || reply.OK {
				t.Fatalf("got %+v, want refused with %s", reply, tc.want.Name())
			}
			// Told before the refusal was written.
			if got := g.refusals(); len(got) != 1 || got[0] != tc.want {
				t.Errorf("the gate was told of %v, want one %s", got, tc.want.Name())
			}
			if !r.closed() {
				t.Error("the connection stays open after the refusal")
			}
		})
	}
	// A frame that claims 1 GiB is refused by its header, before the
	// service allocates or waits for it.
	t.Run("huge frame", func(t *testing.T) {
		r := dialRaw(t, serveSocket(t, t.Context(), &fakeGate{}, pong))
		var hdr [4]byte
		binary.NativeEndian.PutUint32(hdr[:], 1<<30)
		r.c.Write(hdr[:])
		b, err := r.r.Read()
		var reply protocol.SocketReply
		if err != nil || json.Unmarshal(b, &reply) != nil || reply.Error == nil {
			t.Fatalf("got %s, %v; want a refusal", b, err)
		}
		if !r.closed() {
			t.Error("the connection stays open after the refusal")
		}
	})
}

// An admitted client gets the proof of the key, then OK; its requests are
// answered one JSON-RPC message per frame.
func TestAcceptSocketServes(t *testing.T) {
	r := dialRaw(t, serveSocket(t, t.Context(), &fakeGate{}, pong))
	challenge := strings.Repeat("cd", 32)
	var reply protocol.SocketReply
	if err := r.ask(protocol.SocketHello{Hello: protocol.SocketHelloWord, Challenge: challenge}, &reply); err != nil {
		t.Fatal(err)
	}
	if reply.Proof != protocol.Proof(ownerKey, challenge) || reply.Version != "v1" || reply.Error != nil {
		t.Fatalf("hello: got %+v, want the proof and the version", reply)
	}
	if err := r.ask(protocol.SocketAuth{Token: ownerToken}, &reply); err != nil || !reply.OK {
		t.Fatalf("auth: got %+v, %v; want OK", reply, err)
	}
	var resp protocol.Response
	if err := r.ask(protocol.Request{JSONRPC: protocol.Version, ID: json.RawMessage("1"), Method: "ping"}, &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Error != nil || string(resp.Result) != `"pong"` || string(resp.ID) != "1" {
		t.Errorf("ping: got %+v, want pong for id 1", resp)
	}
}

// A client that connects and says nothing holds nothing up: ctx's end
// (a shutdown) ends the handshake at once, well before its deadline.
func TestAcceptSocketSilentClient(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan *Conn)
	go func() { done <- AcceptSocket(ctx, server, "v1", &fakeGate{}, slog.New(slog.DiscardHandler)) }()
	cancel()
	select {
	case c := <-done:
		if c != nil {
			t.Error("got a connection from a silent client")
		}
	case <-time.After(8 * time.Second):
		t.Fatal("AcceptSocket did not return within 8 s of ctx's end (the handshake deadline is 10 s)")
	}
}
