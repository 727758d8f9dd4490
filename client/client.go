// Package client is a Go client for the egohost service's agent API
// (JSON-RPC 2.0 over a loopback WebSocket with a bearer token). The CLI and
// the end-to-end tests use it; so can any Go program.
package client

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/egohost/egohost/internal/pending"
	"github.com/egohost/egohost/protocol"
)

// ErrClosed is returned by calls on a client that Close closed.
var ErrClosed = errors.New("client: connection closed")

// ErrConnectionLost is returned by calls in flight, and by later calls,
// when the connection ended without Close: the service stopped or
// restarted, or the network dropped the connection. A call in flight may
// or may not have run.
var ErrConnectionLost = errors.New("the connection to the egohost service was lost")

// Client is one agent connection. It is safe for concurrent use.
type Client struct {
	ws      *websocket.Conn
	cancel  context.CancelFunc
	done    chan struct{}
	notes   chan protocol.Message
	closing atomic.Bool // Close was called

	nextID  atomic.Int64
	pending pending.Table[string, chan protocol.Message] // closed with why the connection ended
}

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
var ErrNotService = errors.New("the listener is not the egohost service")

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
	rctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		ws:     ws,
		cancel: cancel,
		done:   make(chan struct{}),
		notes:  make(chan protocol.Message, 4096),
	}
	go c.read(rctx)
	return c, nil
}

func (c *Client) read(ctx context.Context) {
	defer close(c.done)
	defer close(c.notes)
	for {
		_, data, err := c.ws.Read(ctx)
		if err != nil {
			if ctx.Err() != nil || c.closing.Load() {
				c.fail(ErrClosed)
			} else {
				c.fail(fmt.Errorf("%w (%v)", ErrConnectionLost, err))
			}
			return
		}
		var m protocol.Message
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		if m.Method != "" && len(m.ID) == 0 {
			select {
			case c.notes <- m:
			default: // nobody reads notifications fast enough: drop
			}
			continue
		}
		if ch, ok := c.pending.Take(string(m.ID)); ok {
			ch <- m
		}
	}
}

func (c *Client) fail(err error) {
	for _, ch := range c.pending.Close(err) {
		close(ch)
	}
}

// Notifications returns the channel of notifications (cdp.event, …). It is
// closed when the connection ends.
func (c *Client) Notifications() <-chan protocol.Message { return c.notes }

// Call calls method with params and decodes the result into result (which
// may be nil, or a *json.RawMessage). A service error is a *protocol.Error.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	var raw json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("%s: encode params: %w", method, err)
		}
		raw = b
	}
	ch := make(chan protocol.Message, 1)
	id := strconv.FormatInt(c.nextID.Add(1), 10)
	if err := c.pending.Add(id, ch); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	b, err := json.Marshal(protocol.Request{JSONRPC: protocol.Version, ID: json.RawMessage(id), Method: method, Params: raw})
	if err == nil {
		if err = c.write(b); err != nil {
			if cerr := c.pending.Err(); cerr != nil { // the reader saw why first
				err = cerr
			} else {
				err = fmt.Errorf("%w (%v)", ErrConnectionLost, err)
			}
		}
	}
	if err != nil {
		c.forget(id)
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: %w", method, c.pending.Err())
		}
		if m.Error != nil {
			return m.Error
		}
		if result != nil {
			if rm, ok := result.(*json.RawMessage); ok {
				*rm = append((*rm)[:0], m.Result...)
				return nil
			}
			if err := json.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("%s: decode result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (c *Client) forget(id string) {
	c.pending.Take(id)
}

// Close closes the connection.
func (c *Client) Close() error {
	c.closing.Store(true)
	err := c.ws.Close(websocket.StatusNormalClosure, "")
	c.cancel()
	<-c.done
	return err
}

// CloseNow ends the connection at once, without the closing handshake's
// round trip (Close waits for the service's close frame): for a process
// that exits next, as a CLI call does. The service takes the end of the
// connection as the agent's goodbye.
func (c *Client) CloseNow() error {
	c.closing.Store(true)
	err := c.ws.CloseNow()
	c.cancel()
	<-c.done
	return err
}

// write sends one message. It does not take the caller's context: the
// WebSocket library closes the whole connection when a write's context
// ends mid-frame, and one caller's deadline must not cut everyone off.
func (c *Client) write(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, b)
}

// RunScript runs a script in the service's sandbox (script.run) and
// returns what it logged, its value and its screenshots. A failing script
// is a *protocol.Error whose Data["output"] holds what it logged first.
// ctx should outlast the script's own timeout.
func (c *Client) RunScript(ctx context.Context, p protocol.ScriptRunParams) (*protocol.ScriptRunResult, error) {
	var res protocol.ScriptRunResult
	if err := c.Call(ctx, protocol.MethodScriptRun, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

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
