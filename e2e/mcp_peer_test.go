package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// mcpPeer is Playwright MCP (npm @playwright/mcp, never a downloaded
// browser) attached to the test browser with --cdp-endpoint, spoken to
// over stdio as an agent's MCP client does: one JSON-RPC message a line.
type mcpPeer struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string
	next  int
}

// dir is its working directory (it writes files there).
func startMCPPeer(ctx context.Context, cliJS, endpoint, dir string) (*mcpPeer, error) {
	cmd := exec.CommandContext(ctx, "node", cliJS, "--cdp-endpoint", endpoint, "--output-dir", dir)
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start Playwright MCP: %w", err)
	}
	p := &mcpPeer{cmd: cmd, stdin: stdin, lines: make(chan string, 16)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	if _, err := p.request(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "egohost-bench", "version": "1"},
	}); err != nil {
		p.close()
		return nil, err
	}
	if err := p.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

func (p *mcpPeer) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = p.stdin.Write(append(b, '\n'))
	return err
}

func (p *mcpPeer) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p.next++
	id := strconv.Itoa(p.next)
	if err := p.send(map[string]any{"jsonrpc": "2.0", "id": p.next, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case line, ok := <-p.lines:
			if !ok {
				return nil, fmt.Errorf("Playwright MCP exited")
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal([]byte(line), &m) != nil || string(m.ID) != id {
				continue // a notification or log line
			}
			if m.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
			}
			return m.Result, nil
		}
	}
}

// tool calls one tool and returns the text it gave back.
func (p *mcpPeer) tool(ctx context.Context, name string, args map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	raw, err := p.request(ctx, "tools/call", map[string]any{"name": name, "arguments": args})
	if err != nil {
		return "", err
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		b.WriteString(c.Text)
	}
	if res.IsError {
		return b.String(), fmt.Errorf("%s: %s", name, b.String())
	}
	return b.String(), nil
}

func (p *mcpPeer) close() {
	p.stdin.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	killAfter(p.cmd.Process, done, 5*time.Second)
}
