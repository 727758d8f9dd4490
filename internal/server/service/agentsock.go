package service

import (
	"context"
	"net"
	"path/filepath"

	"github.com/egohost/egohost/internal/peercred"
	"github.com/egohost/egohost/internal/server/agentconn"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// agentSocket is the agent socket's path (PROTOCOL.md §3, "The agent
// socket"; agentconn.AcceptSocket).
func (s *Service) agentSocket() string {
	return filepath.Join(s.opts.StateDir, protocol.AgentSocketFile)
}

// serveAgentSocket runs the handshake on a connection to the agent
// socket, then serves it as an agent. Only this user's processes pass.
func (s *Service) serveAgentSocket(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	if err := peercred.Check(conn, s.peerUID); err != nil {
		s.tokenless.handshakes.Add(1)
		s.log.Warn("agent socket: refused", "err", err)
		return
	}
	g := &socketGate{s: s}
	c := agentconn.AcceptSocket(ctx, conn, Version, g, s.log)
	if c == nil {
		return
	}
	a := s.newAgent(c, g.grant, "unix:"+s.agentSocket())
	if g.name != "" {
		a.setName(g.name)
	}
	defer a.leave()
	a.serve(ctx)
}

// socketGate admits a client of the agent socket (agentconn.Gate): the
// grant of its token, and the name it acts as, once admitted.
type socketGate struct {
	s     *Service
	grant grant
	name  string
}

func (g *socketGate) ProofKey(agent string) (string, bool) { return g.s.proofKey(agent) }

func (g *socketGate) Admit(auth protocol.SocketAuth) *protocol.Error {
	gr, e := g.s.identifyToken(auth.Token)
	if e != nil {
		return e
	}
	name, err := gr.connName(auth.Agent, "agent")
	if err != nil {
		return wireerr.Of(err)
	}
	g.grant, g.name = gr, name
	return nil
}

// Refused counts a refused handshake (tokenless.go).
func (g *socketGate) Refused(e *protocol.Error) {
	g.s.tokenless.handshakes.Add(1)
	g.s.log.Debug("agent socket: refused", "code", e.Code.Name(), "err", e.Message)
}
