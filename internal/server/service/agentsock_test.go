package service

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/rpcclient"
	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
)

// dialSocket dials the fixture's agent socket with tok as agent.
func (f *fixture) dialSocket(t *testing.T, tok, agent string) (*rpcclient.Client, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := rpcclient.DialSocket(ctx, filepath.Join(f.dir, protocol.AgentSocketFile), tok, rpcclient.SocketOptions{Agent: agent})
	if err == nil {
		t.Cleanup(func() { c.CloseNow() })
	}
	return c, err
}

// rawSocket is a client of the agent socket that skips the client's
// checks, as an attacker's process would.
type rawSocket struct {
	c net.Conn
	r *nativemsg.Reader
	w *nativemsg.Writer
}

func (f *fixture) rawSocket(t *testing.T) *rawSocket {
	t.Helper()
	c, err := net.Dial("unix", filepath.Join(f.dir, protocol.AgentSocketFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second)) // a hang bound
	return &rawSocket{c: c, r: nativemsg.NewReader(c, 1<<20), w: nativemsg.NewWriter(c, 1<<20)}
}

// ask writes v and reads the service's reply.
func (r *rawSocket) ask(t *testing.T, v any) (protocol.SocketReply, error) {
	t.Helper()
	b, _ := json.Marshal(v)
	if err := r.w.Write(b); err != nil {
		return protocol.SocketReply{}, err
	}
	var reply protocol.SocketReply
	b, err := r.r.Read()
	if err != nil {
		return reply, err
	}
	return reply, json.Unmarshal(b, &reply)
}

// closed reports whether the service closed the connection.
func (r *rawSocket) closed() bool {
	_, err := r.r.Read()
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

func TestAgentSocketCalls(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	owner, err := f.dialSocket(t, f.s.Token(), "")
	if err != nil {
		t.Fatalf("dial the agent socket with the owner token: %v", err)
	}
	var ping protocol.PingResult
	if err := owner.Call(ctx, protocol.MethodPing, nil, &ping); err != nil || ping.PID != os.Getpid() {
		t.Fatalf("ping: %+v, %v", ping, err)
	}

	tok, _, err := f.s.pairs.Add("bot", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	bot, err := f.dialSocket(t, tok, "")
	if err != nil {
		t.Fatalf("dial with a paired token: %v", err)
	}
	// A paired agent has its grant on the socket too: the owner's methods
	// are refused.
	wantCode(t, bot.Call(ctx, protocol.MethodAgentsList, nil, nil), protocol.CodeScopeDenied)
	// It cannot call itself another agent, as with the WebSocket header.
	if _, err := f.dialSocket(t, tok, "other"); err == nil || !strings.Contains(err.Error(), `paired as "bot"`) {
		t.Errorf("dial as another name: %v, want refused", err)
	}

	// Revoking the token cuts its socket connection, as a WebSocket's.
	if n := f.s.revokeForTest(t, "bot"); n != 1 {
		t.Fatalf("revoke cut %d connections, want 1", n)
	}
	if err := bot.Call(ctx, protocol.MethodPing, nil, nil); !errors.Is(err, rpcclient.ErrConnectionLost) {
		t.Errorf("call after revoke: %v, want the connection lost", err)
	}
}

// revokeForTest revokes name's token and cuts its connections.
func (s *Service) revokeForTest(t *testing.T, name string) int {
	t.Helper()
	if _, err := s.pairs.Revoke(name); err != nil {
		t.Fatal(err)
	}
	return s.cutRevoked()
}

// The socket and its folder are the user's alone.
func TestAgentSocketIsOwnerOnly(t *testing.T) {
	f := newFixture(t)
	for path, want := range map[string]os.FileMode{f.dir: 0o700, filepath.Join(f.dir, protocol.AgentSocketFile): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %v, want %v", path, got, want)
		}
	}
}

// What another local process can try on the socket without the client's
// checks, that the service's gate refuses (an unknown agent, a wrong
// token, a bad name): each is refused, with the connection closed, and
// none panics or hangs the service. The handshake's own refusals are
// agentconn's tests.
func TestAgentSocketRefusals(t *testing.T) {
	f := newFixture(t)
	challenge := strings.Repeat("ab", 32)
	tests := []struct {
		name  string
		steps []any // frames; the last one's reply is the refusal
		want  protocol.Code
	}{
		{"unknown agent id", []any{protocol.SocketHello{Hello: "egohost", Challenge: challenge, Agent: "nobody"}}, protocol.CodeUnauthorized},
		{"wrong token", []any{protocol.SocketHello{Hello: "egohost", Challenge: challenge}, protocol.SocketAuth{Token: strings.Repeat("x", 64)}}, protocol.CodeUnauthorized},
		{"bad agent name", []any{protocol.SocketHello{Hello: "egohost", Challenge: challenge}, protocol.SocketAuth{Token: f.s.Token(), Agent: "../x"}}, protocol.CodeInvalidParams},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := f.rawSocket(t)
			var reply protocol.SocketReply
			var err error
			for _, step := range tc.steps {
				if reply, err = r.ask(t, step); err != nil {
					t.Fatalf("ask %+v: %v", step, err)
				}
			}
			if reply.Error == nil || reply.Error.Code != tc.want || reply.OK {
				t.Fatalf("got %+v, want refused with %s", reply, tc.want.Name())
			}
			if !r.closed() {
				t.Error("the connection stays open after the refusal")
			}
		})
	}
	// A process that skips the proof and sends the owner token gets in,
	// which is right: it holds the token. The service still answers calls.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := f.dialSocket(t, f.s.Token(), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, protocol.MethodPing, nil, nil); err != nil {
		t.Errorf("ping after the refusals: %v", err)
	}
}

// A process of another user is refused before the handshake is read
// (the check the relay socket makes), even if the socket's permissions
// were loosened.
func TestAgentSocketOfAnotherUserRefused(t *testing.T) {
	me := uint32(os.Getuid())
	f := newFixtureWith(t, nil, func(s *Service) {
		s.peerUID = func(int) (uint32, error) { return me + 1, nil }
	})
	if _, err := f.dialSocket(t, f.s.Token(), ""); err == nil {
		t.Fatal("dial as another user: accepted")
	}
	r := f.rawSocket(t)
	r.w.Write([]byte(`{"hello":"egohost","c":"` + strings.Repeat("ab", 32) + `"}`))
	if !r.closed() {
		t.Error("the connection of another user stays open")
	}
}

// A client that connects and says nothing holds nothing up: the service
// stops at once (and the handshake's own deadline would end it).
func TestAgentSocketSilentClientDoesNotHoldShutdown(t *testing.T) {
	f := newFixture(t)
	f.rawSocket(t)
	time.Sleep(50 * time.Millisecond) // let the service accept it (not a timing assertion)
	f.cancel()
	select {
	case err := <-f.done:
		f.done <- err // for the fixture's cleanup
	case <-time.After(8 * time.Second):
		t.Fatal("Serve did not return within 8 s with a silent client on the agent socket (the handshake deadline is 10 s)")
	}
}
