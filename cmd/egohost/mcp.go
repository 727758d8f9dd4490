package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/mcpserver"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/service"
	"github.com/egohost/egohost/spaces"
)

// mcpCommand is `egohost mcp`: the MCP tools over stdio (or streamable
// HTTP with --http), as an agent of the running service. It starts
// nothing else.
func (c *cli) mcpCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "mcp",
		Short:   "MCP server for agents (stdio, or streamable HTTP with the token), over the running service",
		Example: "  claude mcp add egohost -- egohost mcp\n  egohost mcp --http 127.0.0.1:8765",
		GroupID: "agents",
		Args:    nArgs(0, 0),
	}
	httpAddr := cmd.Flags().String("http", "", "serve streamable HTTP on this loopback `ADDR` (127.0.0.1:PORT) instead of stdio")
	maxChars := cmd.Flags().Int("max-chars", 0, "cut snapshots after N characters (default: the service's)")
	full := cmd.Flags().Bool("full-snapshots", false, "every action returns a full snapshot, not a diff")
	cmd.RunE = c.with(func(ctx context.Context, e *env, _ *cobra.Command, _ []string) error {
		if *maxChars < 0 {
			return usageError(fmt.Sprintf("--max-chars %d is not a number of characters", *maxChars))
		}
		return e.mcp(ctx, *httpAddr, *maxChars, *full)
	})
	return cmd
}

func (e *env) mcp(ctx context.Context, httpAddr string, maxChars int, full bool) error {
	opts := mcpserver.Options{Version: service.Version, FullSnapshots: full, MaxChars: maxChars}
	conn := &serviceConn{e: e, agent: e.agent}
	if e.agent == "" && httpAddr == "" {
		// The MCP client's name is the agent's (one client on stdio): its
		// tabs go into its own space, never the person's focused tab.
		opts.OnClient = conn.nameAfter
	}
	defer conn.close()
	// Say at once what is missing; the tools say it again until it is fixed.
	if c, err := conn.get(ctx); err != nil {
		fmt.Fprintf(e.stderr, "egohost mcp: %v\n", err)
	} else {
		var bl protocol.BrowsersListResult
		if err := c.Call(ctx, protocol.MethodBrowsersList, nil, &bl); err == nil && len(bl.Browsers) == 0 {
			fmt.Fprintln(e.stderr, "egohost mcp: the service runs but no browser is connected: start one with `egohost launch`, or open your browser with the egohost extension")
		}
	}
	if httpAddr == "" {
		return mcpserver.New(conn, opts).Run(ctx, &mcp.StdioTransport{})
	}
	return e.mcpHTTP(ctx, httpAddr, conn, opts)
}

// mcpHTTP serves streamable HTTP on a loopback address, behind the same
// checks and token as the service's agent endpoint.
func (e *env) mcpHTTP(ctx context.Context, addr string, conn *serviceConn, opts mcpserver.Options) error {
	if err := service.CheckLoopback(addr); err != nil {
		return usageError(fmt.Sprintf("mcp --http: %v", err))
	}
	token, err := client.ReadToken(e.cfg.TokenFile)
	if err != nil {
		return fmt.Errorf("mcp --http: the service's token (%w): start the service once with `egohost serve` or `egohost launch`", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("mcp --http: %w", err)
	}
	tools := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpserver.New(conn, opts) }, nil)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if pe := service.Authorize(r, token); pe != nil {
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
	mu    sync.Mutex
	c     *client.Client
	agent string // the agent name the connection carries ("" = the person)
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
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		return s.c, nil
	}
	c, err := s.e.dialAs(ctx, s.agent)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", mcpserver.ErrServiceDown, err)
	}
	s.c = c
	return c, nil
}

// Call calls the service. A call whose connection dropped is not retried
// (it may have acted); the next call dials again.
func (s *serviceConn) Call(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, s.e.cfg.Timeouts.Request+5*time.Second)
	defer cancel()
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
