package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/mcpserver"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/service"
)

// mcp serves the MCP tools over stdio (or streamable HTTP with --http),
// as an agent of the running service. It starts nothing else.
func (e *env) mcp(ctx context.Context, args []string) error {
	httpAddr, args := takeFlag(args, "--http")
	maxChars, args := takeFlag(args, "--max-chars")
	full, args := takeBool(args, "--full-snapshots")
	if len(args) > 0 {
		return usageError(fmt.Sprintf("usage: egohost mcp [--http 127.0.0.1:PORT] [--full-snapshots] [--max-chars N], got %q", args))
	}
	opts := mcpserver.Options{Version: service.Version, FullSnapshots: full}
	if maxChars != "" {
		n, err := strconv.Atoi(maxChars)
		if err != nil || n < 0 {
			return usageError(fmt.Sprintf("--max-chars %q is not a number of characters", maxChars))
		}
		opts.MaxChars = n
	}
	conn := &serviceConn{e: e}
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
	e  *env
	mu sync.Mutex
	c  *client.Client
}

func (s *serviceConn) get(ctx context.Context) (*client.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		return s.c, nil
	}
	c, err := s.e.dial(ctx)
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
