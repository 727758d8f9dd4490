package service

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/slots"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
)

func (s *Service) routes(ctx context.Context, wg *sync.WaitGroup) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(protocol.HelloPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if e := s.checkCaller(r); e != nil {
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
			json.NewEncoder(w).Encode(map[string]any{"error": agentError(err)})
			return
		}
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		a := &agent{s: s, ws: ws, subs: make(map[string]*cdpSubscription), grant: g, remote: r.RemoteAddr, id: s.connSeq.Add(1), since: time.Now()}
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

func (s *Service) checkCaller(r *http.Request) *protocol.Error { return CheckCaller(r) }

// Authorize applies the checks that keep web pages and other users out:
// no browser Origin, a loopback Host (no DNS rebinding), the bearer token.
// Every HTTP front end of egohost (the service, `egohost mcp --http`)
// uses it.
func Authorize(r *http.Request, token string) *protocol.Error {
	if e := CheckCaller(r); e != nil {
		return e
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(tok)), []byte(token)) != 1 {
		return protocol.Errorf(protocol.CodeUnauthorized, "missing or wrong bearer token (see the token file)")
	}
	return nil
}

// CheckCaller refuses web pages (any Origin) and DNS rebinding (a Host
// that is not loopback).
func CheckCaller(r *http.Request) *protocol.Error {
	if o := r.Header.Get("Origin"); o != "" {
		return protocol.Errorf(protocol.CodeForbiddenOrigin, "requests from web pages are refused (Origin: %s)", o)
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if !isLoopbackHost(host) {
		return protocol.Errorf(protocol.CodeForbiddenHost, "Host %q is not a loopback address", r.Host)
	}
	return nil
}

// agent is one connected agent.
type agent struct {
	s  *Service
	ws agentConn // nil for the person agent (the popup channel)

	// person marks the person at a browser, calling through its popup:
	// the owner, on any tab of that browser.
	person bool

	// name is the agent's name (the X-Egohost-Agent header or hello);
	// "" is the person: the owner's own connection without a name. Set
	// once, under mu; read it with agentName.
	name string

	writeMu sync.Mutex
	mu      sync.Mutex
	subs    map[string]*cdpSubscription // its cdp.subscribe subscriptions, by name (subscription.go), under mu
	nextSub int
	subWG   sync.WaitGroup // subscription forwarders

	strikes atomic.Int64 // calls refused for want of a token (tokenless.go)

	grant  grant              // what it may do (access.go)
	remote string             // its address, to find the process that asked to pair
	stop   context.CancelFunc // ends serve: set before the connection is listed in s.conns

	id       uint64             // the connection's number (popup.agents)
	since    time.Time          // when it connected
	inflight map[*call]inflight // its calls running now, under mu (agentslive.go)
	procOnce sync.Once
	proc     *pairing.Process // the process at the other end, looked up once when asked
}

// cut closes the connection at once (its token was revoked): the read
// ends, and so do the contexts of its calls in flight.
func (a *agent) cut() { a.stop() }

func (a *agent) serve(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	a.stop = cancel
	a.s.addConn(a)
	if a.grant.kind == grantPaired {
		if _, ok := a.s.pairs.ByID(a.grant.tokenID); !ok {
			cancel() // revoked between the handshake and now
		}
	}
	var wg sync.WaitGroup
	defer func() {
		a.s.dropConn(a)
		cancel()
		wg.Wait()
		a.mu.Lock()
		for _, sub := range a.subs {
			sub.stop()
		}
		a.subs = nil
		a.mu.Unlock()
		a.subWG.Wait()
		a.ws.CloseNow()
	}()
	readLimit, inFlight := a.s.opts.MaxRPCMessage, a.s.opts.MaxInFlight
	if a.grant.kind == grantUnpaired {
		readLimit, inFlight = min(readLimit, tokenlessReadLimit), min(inFlight, tokenlessInFlight)
	}
	a.ws.SetReadLimit(int64(readLimit))
	free := slots.New(inFlight, a.s.opts.RequestTimeout)
	for {
		// Backpressure: with MaxInFlight requests running, read nothing
		// more until one ends. A pipelining agent is slowed down by its
		// own socket, and loses nothing.
		admitted, err := free.Acquire(ctx)
		if err != nil {
			return
		}
		typ, data, err := a.ws.Read(ctx)
		if err != nil {
			if errors.Is(err, websocket.ErrMessageTooBig) || websocket.CloseStatus(err) == websocket.StatusMessageTooBig || errors.Is(err, nativemsg.ErrFrameTooLarge) {
				if a.grant.kind == grantUnpaired {
					a.s.tokenless.refused.Add(1) // counted, not logged one by one
				} else {
					a.s.log.Warn("agent message too big", "limit", readLimit)
				}
			}
			return
		}
		if ctx.Err() != nil {
			return // cut (revoked, taken over, shutdown) while the frame arrived: it is not answered
		}
		req, perr := parseRequest(typ, data)
		if perr != nil {
			free.Release(admitted)
			a.reply(ctx, req.ID, nil, perr)
			continue
		}
		if !admitted {
			admitted = free.Admit(ctx)
		}
		if !admitted {
			// Every slot has been busy for a whole request deadline: the
			// requests in flight overran theirs, or the agent does not
			// read its replies. Refuse rather than queue without bound.
			a.s.log.Warn("agent over its in-flight cap", "limit", a.s.opts.MaxInFlight, "method", req.Method)
			if len(req.ID) > 0 {
				a.reply(ctx, req.ID, nil, protocol.Errorf(protocol.CodeBusy,
					"busy: this connection has had %d requests in flight for over %v; retry when some have answered", a.s.opts.MaxInFlight, a.s.opts.RequestTimeout).
					With("limit", a.s.opts.MaxInFlight))
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer free.Release(true)
			res, err := a.s.call(ctx, a, nil, req.Method, req.Params)
			if len(req.ID) == 0 {
				return // a notification gets no reply
			}
			a.reply(ctx, req.ID, res, err)
		}()
	}
}

// parseRequest checks one agent message. On error, the returned request
// carries the ID to answer (null when unknown).
func parseRequest(typ websocket.MessageType, data []byte) (protocol.Request, *protocol.Error) {
	if typ != websocket.MessageText {
		return protocol.Request{}, protocol.Errorf(protocol.CodeInvalidRequest, "binary messages are not JSON-RPC")
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return protocol.Request{}, protocol.Errorf(protocol.CodeInvalidRequest,
			"batches are not supported: send each request as its own message (requests on one connection run concurrently)")
	}
	var req protocol.Request
	if err := json.Unmarshal(data, &req); err != nil {
		return protocol.Request{}, protocol.Errorf(protocol.CodeParseError, "parse error: %v", err)
	}
	if req.JSONRPC != protocol.Version || req.Method == "" {
		return req, protocol.Errorf(protocol.CodeInvalidRequest, `invalid request: need "jsonrpc": "2.0" and a method`)
	}
	return req, nil
}

// reply sends a response. Errors that are not *protocol.Error become internal.
func (a *agent) reply(ctx context.Context, id json.RawMessage, result any, err error) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	resp := protocol.Response{JSONRPC: protocol.Version, ID: id}
	if err != nil {
		resp.Error = agentError(err)
	} else {
		b, merr := json.Marshal(result)
		if merr != nil {
			resp.Error = protocol.Errorf(protocol.CodeInternal, "encode result: %v", merr)
		} else {
			resp.Result = b
		}
	}
	a.write(ctx, resp)
}

func (a *agent) notify(ctx context.Context, method string, params any) {
	b, err := json.Marshal(params)
	if err != nil {
		return
	}
	a.write(ctx, protocol.Message{JSONRPC: protocol.Version, Method: method, Params: b})
}

func (a *agent) write(ctx context.Context, v any) {
	if a.ws == nil {
		return // the person agent: the popup channel carries no notifications
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	a.writeMu.Lock()
	defer a.writeMu.Unlock()
	// Not the request's context: the WebSocket library closes the whole
	// connection when a write's context ends mid-frame. A stuck agent is
	// cut off after the write timeout instead.
	wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = a.ws.Write(wctx, websocket.MessageText, b)
}
