// Package client is a Go client for the egohost service's agent API
// (JSON-RPC 2.0 over a loopback WebSocket with a bearer token). The
// end-to-end tests and the MCP front end use it; so can any Go program. The
// CLI dials the agent socket instead (rpcclient), and links no HTTP.
package client

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/coder/websocket"

	"github.com/egohost/egohost/internal/rpcclient"
	"github.com/egohost/egohost/protocol"
)

// ErrClosed is returned by calls on a client that Close closed.
var ErrClosed = rpcclient.ErrClosed

// ErrConnectionLost is returned by calls in flight, and by later calls,
// when the connection ended without Close: the service stopped or
// restarted, or the network dropped the connection. A call in flight may
// or may not have run.
var ErrConnectionLost = rpcclient.ErrConnectionLost

// Client is one agent connection (rpcclient.Client). It is safe for
// concurrent use.
type Client = rpcclient.Client

// Options tune a Client.
type Options struct {
	// Header adds HTTP headers to the handshake (tests use it to send an Origin).
	Header http.Header
	// ReadLimit caps one message from the service (default 256 MiB).
	ReadLimit int64
	// Agent names the connection's agent (the X-Egohost-Agent header): its
	// calls act in its own spaces. Empty: the person.
	Agent string
	// SkipProof sends the token without first making the listener prove
	// it is the service (tests of the service's own refusals use it).
	SkipProof bool
}

// ErrNotService means the process at the address could not prove it holds
// the token: it is not the egohost service (another user's process may
// have taken the port), and the token was not sent to it.
var ErrNotService = rpcclient.ErrNotService

// checkService makes the listener at addr prove it holds the token before
// the token is sent (protocol.HelloPath).
func checkService(ctx context.Context, addr, token string, h http.Header) error {
	var c [32]byte
	if _, err := rand.Read(c[:]); err != nil {
		return fmt.Errorf("connect to egohost: %w", err)
	}
	challenge := hex.EncodeToString(c[:])
	key, agentID := protocol.ProofKey(token)
	query := "?c=" + challenge
	if agentID != "" {
		query += "&agent=" + agentID
	}
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+addr+protocol.HelloPath+query, nil)
	if err != nil {
		return fmt.Errorf("connect to egohost at %s: %w", addr, err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return fmt.Errorf("connect to egohost at %s: %w (is `egohost serve` running?)", addr, err)
	}
	defer resp.Body.Close()
	var body struct {
		Proof string          `json:"proof"`
		Error *protocol.Error `json:"error"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if json.Unmarshal(b, &body) == nil && body.Error != nil {
		return fmt.Errorf("connect to egohost at %s: %w", addr, body.Error)
	}
	if !hmac.Equal([]byte(body.Proof), []byte(protocol.Proof(key, challenge))) {
		return fmt.Errorf("connect to egohost at %s: %w: it could not prove it holds our token (another token file, or another process on the port), so the token was not sent", addr, ErrNotService)
	}
	return nil
}

// Dial connects to the service at addr (host:port) with the bearer token:
// the owner token, or a paired agent's. With no token the connection may
// only ask to pair (Pair); the service then proves nothing, as there is
// no secret to prove it with.
func Dial(ctx context.Context, addr, token string, opts Options) (*Client, error) {
	h := http.Header{}
	for k, v := range opts.Header {
		h[k] = v
	}
	if !opts.SkipProof && token != "" {
		if err := checkService(ctx, addr, token, h); err != nil {
			return nil, err
		}
	}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	if opts.Agent != "" {
		h.Set(protocol.AgentHeader, opts.Agent)
	}
	ws, resp, err := websocket.Dial(ctx, "ws://"+addr+protocol.Path, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		if resp != nil && resp.Body != nil {
			var body struct {
				Error *protocol.Error `json:"error"`
			}
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
			if json.Unmarshal(b, &body) == nil && body.Error != nil {
				return nil, fmt.Errorf("connect to egohost at %s: %w", addr, body.Error)
			}
		}
		return nil, fmt.Errorf("connect to egohost at %s: %w (is `egohost serve` running?)", addr, err)
	}
	limit := opts.ReadLimit
	if limit <= 0 {
		limit = 256 << 20
	}
	ws.SetReadLimit(limit)
	return rpcclient.New(wsConn{ws}), nil
}

// wsConn is a rpcclient.Transport over a WebSocket: one message per text
// message.
type wsConn struct{ ws *websocket.Conn }

func (w wsConn) Read(ctx context.Context) ([]byte, error) {
	_, data, err := w.ws.Read(ctx)
	return data, err
}

func (w wsConn) Write(ctx context.Context, msg []byte) error {
	return w.ws.Write(ctx, websocket.MessageText, msg)
}

func (w wsConn) Close() error    { return w.ws.Close(websocket.StatusNormalClosure, "") }
func (w wsConn) CloseNow() error { return w.ws.CloseNow() }

// Pair asks the service at addr to pair an agent (pair.request) on a
// connection without a token, and waits for the person's answer (at most
// wait; 0 means the service's default). It returns the new token.
func Pair(ctx context.Context, addr string, p protocol.PairRequestParams, opts Options) (*protocol.PairRequestResult, error) {
	c, err := Dial(ctx, addr, "", opts)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var res protocol.PairRequestResult
	if err := c.Call(ctx, protocol.MethodPairRequest, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
