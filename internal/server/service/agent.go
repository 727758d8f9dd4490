package service

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/egohost/egohost/internal/server/agentconn"
	"github.com/egohost/egohost/internal/server/cdpsub"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

func (s *Service) routes(ctx context.Context, wg *sync.WaitGroup) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(protocol.HelloPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if e := agentconn.CheckCaller(r); e != nil {
			w.WriteHeader(http.StatusForbidden)
			json.NewEncoder(w).Encode(map[string]any{"error": e})
			return
		}
		c := r.URL.Query().Get("c")
		if len(c) < 32 || len(c) > 128 {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"error": protocol.Errorf(protocol.CodeInvalidRequest, "hello: c must be 32 to 128 characters of random challenge")})
			return
		}
		key, ok := s.proofKey(r.URL.Query().Get("agent"))
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]any{"error": protocol.Errorf(protocol.CodeUnauthorized, "hello: no paired agent with that token id (revoked, or paired with another service)")})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"service": "egohost", "version": Version, "proof": protocol.Proof(key, c)})
	})
	mux.HandleFunc(protocol.Path, func(w http.ResponseWriter, r *http.Request) {
		g, e := s.identify(r)
		if e != nil {
			status := http.StatusForbidden
			if e.Code == protocol.CodeUnauthorized || e.Code == protocol.CodeRevoked {
				status = http.StatusUnauthorized
			}
			// Counted, and summed up in the log once a minute (tokenless.go):
			// a flood of bad handshakes must not flood the log.
			s.tokenless.handshakes.Add(1)
			s.log.Debug("agent refused", "code", e.Code.Name(), "remote", r.RemoteAddr, "origin", r.Header.Get("Origin"), "host", r.Host)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			json.NewEncoder(w).Encode(map[string]any{"error": e})
			return
		}
		// Counted before the hijack: once Accept takes the connection the
		// HTTP server's Shutdown no longer tracks it, and Serve must wait.
		wg.Add(1)
		defer wg.Done()
		if ctx.Err() != nil {
			http.Error(w, "egohost is shutting down", http.StatusServiceUnavailable)
			return
		}
		name := r.Header.Get(protocol.AgentHeader)
		if g.kind == grantUnpaired {
			// Identity comes from a token only: a connection without one is
			// nobody (it may only ask to pair), whatever name it gives.
			name = ""
		}
		name, err := g.connName(name, protocol.AgentHeader+" header")
		if err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]any{"error": wireerr.Of(err)})
			return
		}
		conn, err := agentconn.Accept(w, r, s.log)
		if err != nil {
			return
		}
		a := s.newAgent(conn, g, r.RemoteAddr)
		if g.kind == grantUnpaired {
			s.tokenless.conns.Add(1)
		}
		if name != "" {
			a.setName(name)
		}
		defer a.leave()
		a.serve(ctx)
	})
	return mux
}

// connName is the name a connection's agent acts as, from the name it
// gives (where says where, for the error): checked against the grant; a
// paired agent is always the agent it was paired as, in its spaces; ""
// is the person.
func (g grant) connName(name, where string) (string, error) {
	if name != "" {
		if err := spaces.CheckName(name); err != nil {
			return "", protocol.Errorf(protocol.CodeInvalidParams, "%s: %v", where, err)
		}
		if err := g.checkAgentName(name); err != nil {
			return "", err
		}
	}
	if g.kind == grantPaired {
		return g.name, nil
	}
	return name, nil
}

// newAgent is the agent of a connection the grant g admitted from remote.
func (s *Service) newAgent(conn *agentconn.Conn, g grant, remote string) *agent {
	a := &agent{s: s, conn: conn, grant: g, remote: remote}
	a.subs = cdpsub.NewSet(&s.subscriptions, a)
	return a
}

// agent is one connected agent.
type agent struct {
	s    *Service
	conn *agentconn.Conn // nil for the person agent (the popup channel)

	// person marks the person at a browser, calling through its popup:
	// the owner, on any tab of that browser.
	person bool

	// name is the agent's name (the X-Egohost-Agent header or hello);
	// "" is the person: the owner's own connection without a name. Set
	// once, under mu; read it with agentName.
	name string

	mu   sync.Mutex
	subs *cdpsub.Set // its cdp.subscribe subscriptions

	strikes atomic.Int64 // calls refused for want of a token (tokenless.go)

	grant  grant              // what it may do (access.go)
	remote string             // its address, to find the process that asked to pair
	stop   context.CancelFunc // ends serve: set before the connection is listed in s.conns

	procOnce sync.Once
	proc     *pairing.Process // the process at the other end, looked up once when asked
}

// Cut closes the connection at once (its token was revoked, it was
// disconnected at the popup, it made too many refused calls): the read
// ends, and so do the contexts of its calls in flight (agentlive.Conn).
func (a *agent) Cut() { a.stop() }

// serve runs the agent's connection until the agent leaves or the
// connection is cut.
func (a *agent) serve(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	a.stop = cancel
	a.s.conns.Add(a)
	if a.grant.kind == grantPaired {
		if _, ok := a.s.pairs.ByID(a.grant.tokenID); !ok {
			cancel() // revoked between the handshake and now
		}
	}
	lim := agentconn.Limits{MaxMessage: a.s.opts.MaxRPCMessage, MaxInFlight: a.s.opts.MaxInFlight, RequestTimeout: a.s.opts.RequestTimeout}
	if a.grant.kind == grantUnpaired {
		lim.MaxMessage, lim.MaxInFlight = min(lim.MaxMessage, tokenlessReadLimit), min(lim.MaxInFlight, tokenlessInFlight)
	}
	err := a.conn.Serve(ctx, lim, a)
	a.s.conns.Drop(a)
	cancel()
	if errors.Is(err, agentconn.ErrMessageTooBig) {
		if a.grant.kind == grantUnpaired {
			a.s.tokenless.refused.Add(1) // counted, not logged one by one
		} else {
			a.s.log.Warn("agent message too big", "limit", lim.MaxMessage)
		}
	}
	a.subs.Close()
	a.conn.Close()
}

// Call runs one of the agent's requests (agentconn.Handler).
func (a *agent) Call(ctx context.Context, method string, params json.RawMessage) (any, error) {
	res, err := a.s.call(ctx, a, nil, method, params)
	if err != nil {
		return nil, wireerr.Of(err)
	}
	return res, nil
}

// Notify sends the agent a notification (cdpsub.Agent); the person agent
// gets none (the popup channel carries no notifications).
func (a *agent) Notify(method string, params any) {
	if a.conn != nil {
		a.conn.Notify(method, params)
	}
}
