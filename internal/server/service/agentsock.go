package service

import (
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"time"

	"github.com/coder/websocket"

	"github.com/egohost/egohost/internal/peercred"
	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
)

// The agent socket (PROTOCOL.md §3, "The agent socket") is the agents'
// API on a unix socket in the state dir, for the CLI: a process that
// starts at every call an agent makes links no HTTP for it, and dials
// with one round trip less. It admits only what the WebSocket admits:
// this user's processes (the socket is owner-only, in an owner-only
// folder, and the peer's uid is asked), the same proof of the token
// before the client sends it, and the same token check. A connection
// without a token is refused: pairing is asked over the WebSocket.

// agentConn is an agent's connection: a WebSocket, or the agent socket.
type agentConn interface {
	SetReadLimit(n int64)
	Read(ctx context.Context) (websocket.MessageType, []byte, error)
	Write(ctx context.Context, typ websocket.MessageType, msg []byte) error
	CloseNow() error
}

// socketHandshakeTimeout bounds the agent socket's handshake.
const socketHandshakeTimeout = 10 * time.Second

// agentSocket is the agent socket's path.
func (s *Service) agentSocket() string {
	return filepath.Join(s.opts.StateDir, protocol.AgentSocketFile)
}

// serveAgentSocket runs the handshake on a connection to the agent
// socket, then serves it as an agent.
func (s *Service) serveAgentSocket(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	if err := peercred.Check(conn, s.peerUID); err != nil {
		s.tokenless.handshakes.Add(1)
		s.log.Warn("agent socket: refused", "err", err)
		return
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() }) // a shutdown ends a handshake in progress
	g, name, ok := s.socketHandshake(conn)
	if !stop() || !ok {
		return
	}
	if ctx.Err() != nil {
		return
	}
	sc := &socketConn{c: conn, w: nativemsg.NewWriter(conn, 1<<31-1)}
	a := &agent{s: s, ws: sc, subs: make(map[string]*cdpSubscription), grant: g, remote: "unix:" + s.agentSocket(), id: s.connSeq.Add(1), since: time.Now()}
	if name != "" {
		a.setName(name)
	}
	defer a.leave()
	a.serve(ctx)
}

// socketHandshake answers the client's hello with the proof, then checks
// its token and name; a refusal is written to the client (and counted as
// a refused handshake), and ok is false.
func (s *Service) socketHandshake(conn net.Conn) (g grant, name string, ok bool) {
	conn.SetDeadline(time.Now().Add(socketHandshakeTimeout))
	r := nativemsg.NewReader(conn, protocol.SocketHandshakeLimit)
	w := nativemsg.NewWriter(conn, protocol.SocketHandshakeLimit)
	refuse := func(e *protocol.Error) (grant, string, bool) {
		s.tokenless.handshakes.Add(1)
		s.log.Debug("agent socket: refused", "code", e.Code.Name(), "err", e.Message)
		writeReply(w, protocol.SocketReply{Error: e})
		return grant{}, "", false
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
	key, found := s.proofKey(hello.Agent)
	if !found {
		return refuse(protocol.Errorf(protocol.CodeUnauthorized, "hello: no paired agent with that token id (revoked, or paired with another service)"))
	}
	if writeReply(w, protocol.SocketReply{Proof: protocol.Proof(key, hello.Challenge), Version: Version}) != nil {
		return grant{}, "", false
	}
	var auth protocol.SocketAuth
	if b, err = r.Read(); err != nil {
		return grant{}, "", false // the client left: it did not like the proof
	}
	if err := json.Unmarshal(b, &auth); err != nil {
		return refuse(protocol.Errorf(protocol.CodeInvalidRequest, "agent socket: the second frame must be {\"token\":…}"))
	}
	if auth.Token == "" {
		return refuse(protocol.Errorf(protocol.CodeUnauthorized, "the agent socket needs a token: ask to pair over the WebSocket (`egohost pair`)"))
	}
	g, e := s.identifyToken(auth.Token)
	if e != nil {
		return refuse(e)
	}
	if name, err = g.connName(auth.Agent, "agent"); err != nil {
		return refuse(agentError(err))
	}
	if writeReply(w, protocol.SocketReply{OK: true}) != nil {
		return grant{}, "", false
	}
	conn.SetDeadline(time.Time{})
	return g, name, true
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

func (s *socketConn) SetReadLimit(n int64) { s.r = nativemsg.NewReader(s.c, int(min(n, 1<<31-1))) }

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
