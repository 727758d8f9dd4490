package agentconn

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"time"

	"github.com/coder/websocket"

	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
)

// The agent socket (PROTOCOL.md §3, "The agent socket") is the agents'
// API on a unix socket in the state dir, for the CLI: a process that
// starts at every call an agent makes links no HTTP for it, and dials
// with one round trip less. It admits only what the WebSocket admits:
// this user's processes (the socket is owner-only, in an owner-only
// folder, and the service asks the peer's uid), the same proof of the
// token before the client sends it, and the same token check. A
// connection without a token is refused: pairing is asked over the
// WebSocket.

// socketHandshakeTimeout bounds the agent socket's handshake.
const socketHandshakeTimeout = 10 * time.Second

// Gate is what the agent socket's handshake asks the service.
type Gate interface {
	// ProofKey is the key the service proves itself with to the agent
	// with that token id ("" for the owner); ok is false when there is
	// none.
	ProofKey(agent string) (key string, ok bool)
	// Admit checks the client's token and the agent name it gives: an
	// error refuses the connection.
	Admit(auth protocol.SocketAuth) *protocol.Error
	// Refused is told of each refused handshake, before the refusal is
	// written to the client.
	Refused(e *protocol.Error)
}

// AcceptSocket runs the agent socket's handshake on conn: it answers the
// client's hello with the proof, then has g admit its token and name. A
// refusal is written to the client; ctx's end (a shutdown) ends a
// handshake in progress. It returns the agent's connection, or nil when
// the handshake failed or ctx ended: the caller closes conn either way.
func AcceptSocket(ctx context.Context, conn net.Conn, version string, g Gate, log *slog.Logger) *Conn {
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	ok := socketHandshake(conn, version, g)
	if !stop() || !ok || ctx.Err() != nil {
		return nil
	}
	return newConn(&socketConn{c: conn, w: nativemsg.NewWriter(conn, 1<<31-1)}, log)
}

// socketHandshake runs the handshake; ok is false when the client was
// refused or left.
func socketHandshake(conn net.Conn, version string, g Gate) (ok bool) {
	conn.SetDeadline(time.Now().Add(socketHandshakeTimeout))
	r := nativemsg.NewReader(conn, protocol.SocketHandshakeLimit)
	w := nativemsg.NewWriter(conn, protocol.SocketHandshakeLimit)
	refuse := func(e *protocol.Error) bool {
		g.Refused(e)
		writeReply(w, protocol.SocketReply{Error: e})
		return false
	}
	var hello protocol.SocketHello
	b, err := r.Read()
	if err != nil {
		return refuse(protocol.Errorf(protocol.CodeInvalidRequest, "agent socket: read the hello: %v", err))
	}
	if err := json.Unmarshal(b, &hello); err != nil || hello.Hello != protocol.SocketHelloWord {
		return refuse(protocol.Errorf(protocol.CodeInvalidRequest, "agent socket: the first frame must be a hello {\"hello\":%q,\"c\":…}", protocol.SocketHelloWord))
	}
	if len(hello.Challenge) < 32 || len(hello.Challenge) > 128 {
		return refuse(protocol.Errorf(protocol.CodeInvalidRequest, "hello: c must be 32 to 128 characters of random challenge"))
	}
	key, found := g.ProofKey(hello.Agent)
	if !found {
		return refuse(protocol.Errorf(protocol.CodeUnauthorized, "hello: no paired agent with that token id (revoked, or paired with another service)"))
	}
	if writeReply(w, protocol.SocketReply{Proof: protocol.Proof(key, hello.Challenge), Version: version}) != nil {
		return false
	}
	var auth protocol.SocketAuth
	if b, err = r.Read(); err != nil {
		return false // the client left: it did not like the proof
	}
	if err := json.Unmarshal(b, &auth); err != nil {
		return refuse(protocol.Errorf(protocol.CodeInvalidRequest, "agent socket: the second frame must be {\"token\":…}"))
	}
	if auth.Token == "" {
		return refuse(protocol.Errorf(protocol.CodeUnauthorized, "the agent socket needs a token: ask to pair over the WebSocket (`egohost pair`)"))
	}
	if e := g.Admit(auth); e != nil {
		return refuse(e)
	}
	if writeReply(w, protocol.SocketReply{OK: true}) != nil {
		return false
	}
	conn.SetDeadline(time.Time{})
	return true
}

func writeReply(w *nativemsg.Writer, r protocol.SocketReply) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return w.Write(b)
}

// socketConn is an agent's connection on the agent socket: one JSON-RPC
// message per frame.
type socketConn struct {
	c net.Conn
	r *nativemsg.Reader // set by SetReadLimit, before the first Read
	w *nativemsg.Writer
}

func (s *socketConn) SetReadLimit(n int64) {
	s.r = nativemsg.NewBufferedReader(s.c, int(min(n, 1<<31-1)))
}

// Read returns the next frame; ctx's end ends it.
func (s *socketConn) Read(ctx context.Context) (websocket.MessageType, []byte, error) {
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	stop := context.AfterFunc(ctx, func() { s.c.SetReadDeadline(time.Now()) })
	defer stop()
	b, err := s.r.Read()
	return websocket.MessageText, b, err
}

// Write sends msg as one frame, within ctx's deadline.
func (s *socketConn) Write(ctx context.Context, _ websocket.MessageType, msg []byte) error {
	d, _ := ctx.Deadline()
	s.c.SetWriteDeadline(d)
	return s.w.Write(msg)
}

func (s *socketConn) CloseNow() error { return s.c.Close() }
