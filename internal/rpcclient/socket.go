package rpcclient

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"time"

	"github.com/egohost/egohost/internal/peercred"
	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
)

// ErrNoToken is returned by DialSocket without a token: the agent socket
// serves only connections with one (pairing is asked over the WebSocket).
var ErrNoToken = errors.New("the agent socket needs a token")

// SocketOptions tune DialSocket.
type SocketOptions struct {
	// Agent names the connection's agent (as the X-Egohost-Agent header):
	// its calls act in its own spaces. Empty: the person.
	Agent string
	// PeerUID asks who listens at the other end (peercred.Kernel; tests
	// pass their own).
	PeerUID func(fd int) (uint32, error)
}

// DialSocket connects to the service's agent socket at path
// (protocol.AgentSocketFile in its state dir) with the bearer token: the
// owner token, or a paired agent's. Before the token leaves this process
// the socket must be a socket (not a symlink), the process listening on
// it must run as this user, and it must prove it holds the token
// (protocol.SocketHello): the same proof as the WebSocket's hello.
func DialSocket(ctx context.Context, path, token string, opts SocketOptions) (*Client, error) {
	if token == "" {
		return nil, fmt.Errorf("connect to egohost at %s: %w", path, ErrNoToken)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("connect to egohost at %s: %w (is `egohost serve` running?)", path, err)
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return nil, fmt.Errorf("connect to egohost at %s: %w: it is a %v, not a socket, so the token was not sent", path, ErrNotService, fi.Mode().Type())
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("connect to egohost at %s: %w (is `egohost serve` running?)", path, err)
	}
	sc, err := handshake(ctx, conn, token, opts)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("connect to egohost at %s: %w", path, err)
	}
	return New(sc), nil
}

// handshake checks the listener and sends the token (PROTOCOL.md §3, "The
// agent socket").
func handshake(ctx context.Context, conn net.Conn, token string, opts SocketOptions) (*socketConn, error) {
	uidOf := opts.PeerUID
	if uidOf == nil {
		uidOf = peercred.Kernel
	}
	if err := peercred.Check(conn, uidOf); err != nil {
		return nil, fmt.Errorf("%w: %v, so the token was not sent", ErrNotService, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	conn.SetDeadline(deadline)
	r := nativemsg.NewReader(conn, protocol.SocketHandshakeLimit)
	w := nativemsg.NewWriter(conn, protocol.SocketHandshakeLimit)

	var c [32]byte
	if _, err := rand.Read(c[:]); err != nil {
		return nil, err
	}
	challenge := hex.EncodeToString(c[:])
	key, agentID := protocol.ProofKey(token)
	reply, err := exchange(r, w, protocol.SocketHello{Hello: protocol.SocketHelloWord, Challenge: challenge, Agent: agentID})
	if err != nil {
		return nil, err
	}
	if !hmac.Equal([]byte(reply.Proof), []byte(protocol.Proof(key, challenge))) {
		return nil, fmt.Errorf("%w: it could not prove it holds our token (another token file, or another process on the socket), so the token was not sent", ErrNotService)
	}
	if ok, err := exchange(r, w, protocol.SocketAuth{Token: token, Agent: opts.Agent}); err != nil {
		return nil, err
	} else if !ok.OK {
		return nil, fmt.Errorf("%w: it did not accept the token (no ok, no error)", ErrNotService)
	}
	conn.SetDeadline(time.Time{})
	return &socketConn{c: conn, r: nativemsg.NewBufferedReader(conn, maxReply), w: nativemsg.NewWriter(conn, maxFrame)}, nil
}

// maxReply is the largest message a client reads from the service.
const maxReply = 256 << 20

// maxFrame is the largest frame a client writes: the framing's own limit.
const maxFrame = 1<<31 - 1

// exchange writes one handshake frame and reads the service's reply; a
// refusal is its *protocol.Error.
func exchange(r *nativemsg.Reader, w *nativemsg.Writer, v any) (protocol.SocketReply, error) {
	var reply protocol.SocketReply
	b, err := json.Marshal(v)
	if err != nil {
		return reply, err
	}
	if err := w.Write(b); err != nil {
		return reply, fmt.Errorf("handshake: %w", err)
	}
	b, err = r.Read()
	if err != nil {
		return reply, fmt.Errorf("handshake: %w", err)
	}
	if err := json.Unmarshal(b, &reply); err != nil {
		return reply, fmt.Errorf("handshake: %w: its answer is not a reply (%v)", ErrNotService, err)
	}
	if reply.Error != nil {
		return reply, reply.Error
	}
	return reply, nil
}

// socketConn is a Transport over the agent socket: one message per frame.
type socketConn struct {
	c net.Conn
	r *nativemsg.Reader
	w *nativemsg.Writer
}

// Read returns the next frame. It ends when the connection is closed
// (ctx is the client's, which Close cancels after closing it).
func (s *socketConn) Read(context.Context) ([]byte, error) { return s.r.Read() }

// Write sends msg as one frame, within ctx's deadline.
func (s *socketConn) Write(ctx context.Context, msg []byte) error {
	d, _ := ctx.Deadline()
	s.c.SetWriteDeadline(d)
	return s.w.Write(msg)
}

// Close closes the socket (a frame stream has no closing handshake).
func (s *socketConn) Close() error { return s.c.Close() }

// CloseNow closes the socket.
func (s *socketConn) CloseNow() error { return s.c.Close() }
