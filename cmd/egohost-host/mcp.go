package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/internal/front/cli"
	"github.com/egohost/egohost/internal/front/mcpserver"
	"github.com/egohost/egohost/internal/server/agentconn"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/service"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/protocol"
)

// MCP is `egohost mcp`: the MCP tools over stdio (or streamable HTTP
// with --http), as an agent of the running service. It starts nothing
// else.
func (host) MCP(ctx context.Context, ce *cli.Env, o cli.MCPOptions) error {
	e := newEnv(ce)
	if o.MaxChars < 0 {
		return cli.UsageError(fmt.Sprintf("--max-chars %d is not a number of characters", o.MaxChars))
	}
	if o.Name != "" {
		if err := pairing.CheckName(o.Name); err != nil {
			return cli.UsageError("--name: " + err.Error())
		}
	}
	opts := mcpserver.Options{Version: service.Version, FullSnapshots: o.FullSnapshots, MaxChars: o.MaxChars, Caps: o.Caps, Tools: o.Tools}
	if err := opts.Check(); err != nil {
		return cli.UsageError(err.Error())
	}
	pair := &mcpPairing{e: e, name: o.Name, scopes: o.Scopes, owner: o.Owner || o.HTTP != ""}
	return e.mcp(ctx, o.HTTP, opts, pair)
}

func (e *env) mcp(ctx context.Context, httpAddr string, opts mcpserver.Options, pair *mcpPairing) error {
	conn := &serviceConn{e: e, pair: pair, agent: e.Agent()}
	defer conn.close()
	defer pair.close()
	// Say at once what is missing (and ask to pair, the first time); the
	// tools say it again until it is fixed. In the background: the MCP
	// client must not wait for the person's approval to start.
	var wg sync.WaitGroup
	defer wg.Wait()
	checkCtx, stopCheck := context.WithCancel(ctx)
	defer stopCheck()
	var checkOnce sync.Once
	check := func() {
		checkOnce.Do(func() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e.mcpCheck(checkCtx, conn)
			}()
		})
	}
	switch {
	case pair.owner && e.Agent() == "" && httpAddr == "":
		// With the owner token, the MCP client's name is the agent's (one
		// client on stdio): its tabs go into its own space, never the
		// person's focused tab. A paired token carries its own name.
		opts.OnClient = conn.nameAfter
		check()
	case !pair.owner && pair.name == "":
		// Paired as the MCP client names itself, which it says when it
		// initializes the session: the pairing waits for that (a client
		// that says nothing pairs as mcp on its first tool call).
		opts.OnClient = func(_ context.Context, client string) {
			pair.nameAfter(client)
			check()
		}
	default:
		check()
	}
	if httpAddr == "" {
		srv, err := mcpserver.New(conn, opts)
		if err != nil {
			return cli.UsageError(err.Error())
		}
		return srv.Run(ctx, &mcp.StdioTransport{})
	}
	return e.mcpHTTP(ctx, httpAddr, conn, opts)
}

// mcpCheck connects to the service (pairing the first time) and says on
// stderr what is missing: the service, a browser.
func (e *env) mcpCheck(ctx context.Context, conn *serviceConn) {
	c, err := conn.get(ctx)
	if err != nil {
		if ctx.Err() == nil {
			fmt.Fprintf(e.stderr, "egohost mcp: %v\n", err)
		}
		return
	}
	var bl protocol.BrowsersListResult
	if err := c.Call(ctx, protocol.MethodBrowsersList, nil, &bl); err == nil && len(bl.Browsers) == 0 {
		fmt.Fprintln(e.stderr, "egohost mcp: the service runs but no browser is connected: start one with `egohost launch`, or open your browser with the egohost extension")
	}
}

// mcpHTTP serves streamable HTTP on a loopback address, behind the same
// checks and token as the service's agent endpoint.
func (e *env) mcpHTTP(ctx context.Context, addr string, conn *serviceConn, opts mcpserver.Options) error {
	if err := agentconn.CheckLoopback(addr); err != nil {
		return cli.UsageError(fmt.Sprintf("mcp --http: %v", err))
	}
	token, err := client.ReadToken(e.cfg.TokenFile)
	if err != nil {
		return fmt.Errorf("mcp --http: the service's token (%w): start the service once with `egohost serve` or `egohost launch`", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp --http: %w", err)
	}
	if err := opts.Check(); err != nil {
		return cli.UsageError(err.Error())
	}
	tools := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		srv, _ := mcpserver.New(conn, opts) // checked above
		return srv
	}, nil)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if pe := agentconn.Authorize(r, token); pe != nil {
				status := http.StatusForbidden
				if pe.Code == protocol.CodeUnauthorized {
					status = http.StatusUnauthorized
				}
				http.Error(w, pe.Code.Name()+": "+pe.Message, status)
				return
			}
			tools.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout: 10 * time.Second,
	}
	fmt.Fprintf(e.stderr, "egohost mcp: streamable HTTP on http://%s/ (Authorization: Bearer <the token in %s>)\n", ln.Addr(), e.cfg.TokenFile)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		<-errc
		return nil
	}
}

// serviceConn is the MCP server's connection to the service: dialled on
// first use, and again after the service restarted.
type serviceConn struct {
	e     *env
	pair  *mcpPairing
	mu    sync.Mutex
	c     *client.Client
	agent string // the agent name an owner-token connection carries ("" = the person)
	// waits are the tool calls in flight whose MCP client asked for
	// progress: each is told of the connection's confirm.waiting.
	waits   map[int]mcpserver.WaitingFunc
	waitSeq int
}

// relayWaits tells the tool calls in flight of c's confirm.waiting
// notifications, until c is closed.
func (s *serviceConn) relayWaits(c *client.Client) {
	for m := range c.Notifications() {
		if m.Method != protocol.NotifyConfirmWaiting {
			continue
		}
		var w protocol.ConfirmWaiting
		if json.Unmarshal(m.Params, &w) != nil {
			continue
		}
		s.mu.Lock()
		fns := make([]mcpserver.WaitingFunc, 0, len(s.waits))
		for _, f := range s.waits {
			fns = append(fns, f)
		}
		s.mu.Unlock()
		for _, f := range fns {
			f(w)
		}
	}
}

// watchWaits registers a tool call's WaitingFunc (none: nothing to do);
// the function returned drops it.
func (s *serviceConn) watchWaits(f mcpserver.WaitingFunc) func() {
	if f == nil {
		return func() {}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waits == nil {
		s.waits = make(map[int]mcpserver.WaitingFunc)
	}
	s.waitSeq++
	id := s.waitSeq
	s.waits[id] = f
	return func() {
		s.mu.Lock()
		delete(s.waits, id)
		s.mu.Unlock()
	}
}

// nameAfter names the connection's agent after the MCP client, once.
func (s *serviceConn) nameAfter(ctx context.Context, client string) {
	s.mu.Lock()
	if s.agent != "" {
		s.mu.Unlock()
		return
	}
	s.agent = spaces.NameFrom(client, "mcp")
	c, name := s.c, s.agent
	s.mu.Unlock()
	if c == nil {
		return // the next dial carries it
	}
	ctx, cancel := context.WithTimeout(ctx, s.e.cfg.Timeouts.Request)
	defer cancel()
	if err := c.Call(ctx, protocol.MethodHello, protocol.HelloParams{Agent: name}, nil); err != nil {
		fmt.Fprintf(s.e.stderr, "egohost mcp: naming the agent %s: %v\n", name, err)
	}
}

func (s *serviceConn) get(ctx context.Context) (*client.Client, error) {
	tok, err := s.pair.token(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		return s.c, nil
	}
	agent := s.agent
	if !s.pair.owner {
		agent = "" // a paired token carries its own name
	}
	c, err := s.e.DialWith(ctx, tok, agent)
	if err != nil {
		var pe *protocol.Error
		if errors.As(err, &pe) && pe.Code == protocol.CodeRevoked {
			return nil, fmt.Errorf("egohost mcp: %w: delete %s and restart egohost mcp to ask the person again", err, s.e.agentTokenPath(s.pair.agentName()))
		}
		return nil, fmt.Errorf("%w: %w", mcpserver.ErrServiceDown, err)
	}
	s.c = c
	go s.relayWaits(c) // ends when c is closed
	return c, nil
}

// Call calls the service. A call whose connection dropped is not retried
// (it may have acted); the next call dials again.
func (s *serviceConn) Call(ctx context.Context, method string, params, result any) error {
	d := s.e.cfg.Timeouts.Request + 5*time.Second
	if protocol.MayConfirm(method) {
		d += s.e.cfg.Timeouts.Confirm // the person may be asked first
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	defer s.watchWaits(mcpserver.WaitingFrom(ctx))()
	c, err := s.get(ctx)
	if err != nil {
		return err
	}
	err = c.Call(ctx, method, params, result)
	if errors.Is(err, client.ErrClosed) {
		s.mu.Lock()
		if s.c == c {
			s.c = nil
		}
		s.mu.Unlock()
		c.Close()
		return fmt.Errorf("%w (the connection to the egohost service dropped; if the service restarted, call again)", err)
	}
	return err
}

func (s *serviceConn) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		s.c.Close()
		s.c = nil
	}
}

// mcpPairing is the MCP server's token: the owner's (--owner, --http),
// else its own paired token, kept owner-only in <data_dir>/agents/NAME.token
// and asked for on first use. NAME is --name, else the MCP client's name
// (clientInfo.name, made a valid agent name), else mcp: two different
// clients are two agents, with their own spaces, token and audit name.
// The pairing runs in the background (the person may take minutes); tool
// calls wait for it within their own time.
type mcpPairing struct {
	e      *env
	scopes []string
	owner  bool

	mu     sync.Mutex
	name   string // "" until --name or the client names it
	tok    string
	done   chan struct{} // closed when the pairing in progress ends
	err    error         // its error, until a new pairing starts
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func (p *mcpPairing) token(ctx context.Context) (string, error) {
	if p.owner {
		tok, err := client.ReadToken(p.e.cfg.TokenFile)
		if err != nil {
			return "", fmt.Errorf("%w: the egohost service has never run for this user (%w): start it with `egohost serve` or `egohost launch`", mcpserver.ErrServiceDown, err)
		}
		return tok, nil
	}
	p.mu.Lock()
	if p.name == "" {
		p.name = mcpDefaultName // the client said no name before its first call
	}
	name := p.name
	path := p.e.agentTokenPath(name)
	if p.tok == "" {
		if tok, err := client.ReadToken(path); err == nil && tok != "" {
			p.tok = tok
		}
	}
	if p.tok != "" {
		tok := p.tok
		p.mu.Unlock()
		return tok, nil
	}
	if p.done == nil {
		p.start(name, path)
	}
	done := p.done
	p.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return "", fmt.Errorf("egohost mcp waits for the person to approve its pairing as %q: approve it in the extension's popup or with `egohost agents approve %s`, then call again", name, name)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tok != "" {
		return p.tok, nil
	}
	err := p.err
	p.done = nil // the next call asks again
	return "", err
}

// start asks to pair as name in the background. p.mu is held.
func (p *mcpPairing) start(name, path string) {
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	done := make(chan struct{})
	p.done = done
	p.wg.Add(1)
	fmt.Fprintf(p.e.stderr, "egohost mcp: asking to pair as %q: approve it in the extension's popup or with `egohost agents approve %s`\n", name, name)
	go func() {
		defer p.wg.Done()
		defer close(done)
		res, err := p.e.PairAs(ctx, name, p.scopes, 10*time.Minute)
		if err == nil {
			err = cli.WriteAgentToken(path, res.Token)
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if err != nil {
			p.err = fmt.Errorf("%w: pairing as %q: %w", mcpserver.ErrServiceDown, name, err)
			return
		}
		p.tok, p.err = res.Token, nil
		fmt.Fprintf(p.e.stderr, "egohost mcp: paired as %q (token in %s)\n", name, path)
	}()
}

// mcpDefaultName is the agent name of an MCP client that gives none.
const mcpDefaultName = "mcp"

// mcpAgentName makes an agent name of an MCP client's name ("Claude Code"
// → Claude-Code): letters, digits, '.', '_' and '-', at most
// spaces.MaxName of them, starting with a letter or digit; mcp when
// nothing usable is left or the name is reserved (owner, person).
func mcpAgentName(client string) string {
	name := spaces.NameFrom(client, mcpDefaultName)
	if pairing.CheckName(name) != nil {
		return mcpDefaultName
	}
	return name
}

// nameAfter names the pairing after the MCP client, unless --name did.
func (p *mcpPairing) nameAfter(client string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.name == "" {
		p.name = mcpAgentName(client)
	}
}

// agentName is the name the pairing is (or will be) for.
func (p *mcpPairing) agentName() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.name == "" {
		return mcpDefaultName
	}
	return p.name
}

// close ends a pairing in progress and waits for it.
func (p *mcpPairing) close() {
	p.mu.Lock()
	if p.cancel != nil {
		p.cancel()
	}
	p.mu.Unlock()
	p.wg.Wait()
}
