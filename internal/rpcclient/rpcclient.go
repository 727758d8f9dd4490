// Package rpcclient is one connection to the egohost service's agent API
// (JSON-RPC 2.0, PROTOCOL.md), whatever carries its messages, and the
// agent socket that carries them for local clients (socket.go). It links
// no HTTP: the CLI, which starts at every call an agent makes, dials the
// agent socket with it; package client adds the WebSocket.
package rpcclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

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

// ErrNotService means the process at the address could not prove it holds
// the token: it is not the egohost service (another user's process may
// have taken the port or the socket), and the token was not sent to it.
var ErrNotService = errors.New("the listener is not the egohost service")

// Transport carries whole JSON-RPC messages to and from the service.
type Transport interface {
	// Read returns the next message; an error ends the connection.
	Read(ctx context.Context) ([]byte, error)
	// Write sends one message.
	Write(ctx context.Context, msg []byte) error
	// Close ends the connection politely (a WebSocket's closing handshake).
	Close() error
	// CloseNow ends the connection at once.
	CloseNow() error
}

// Client is one agent connection. It is safe for concurrent use.
type Client struct {
	t       Transport
	cancel  context.CancelFunc
	done    chan struct{}
	notes   chan protocol.Message
	closing atomic.Bool // Close was called

	nextID  atomic.Int64
	pending pending.Table[string, chan protocol.Message] // closed with why the connection ended
}

// New returns a client that speaks over t, which has done its handshake:
// it reads t until t fails or the client is closed.
func New(t Transport) *Client {
	rctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		t:      t,
		cancel: cancel,
		done:   make(chan struct{}),
		notes:  make(chan protocol.Message, 4096),
	}
	go c.read(rctx)
	return c
}

func (c *Client) read(ctx context.Context) {
	defer close(c.done)
	defer close(c.notes)
	for {
		data, err := c.t.Read(ctx)
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
	id := strconv.FormatInt(c.nextID.Add(1), 10)
	b, err := encodeRequest(id, method, params)
	if err != nil {
		return fmt.Errorf("%s: encode params: %w", method, err)
	}
	ch := make(chan protocol.Message, 1)
	if err := c.pending.Add(id, ch); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := c.write(b); err != nil {
		if cerr := c.pending.Err(); cerr != nil { // the reader saw why first
			err = cerr
		} else {
			err = fmt.Errorf("%w (%v)", ErrConnectionLost, err)
		}
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

// request is protocol.Request with the params as the caller gave them: the
// encoder writes them into the frame in one pass, where params encoded
// first as a json.RawMessage were scanned and copied a second time.
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  any             `json:"params,omitempty"`
}

// encodeRequest is the frame of a call: protocol.Request's JSON, params
// (nil: none) encoded as json.Marshal encodes them.
func encodeRequest(id, method string, params any) ([]byte, error) {
	return json.Marshal(request{JSONRPC: protocol.Version, ID: json.RawMessage(id), Method: method, Params: params})
}

func (c *Client) forget(id string) {
	c.pending.Take(id)
}

// Close closes the connection.
func (c *Client) Close() error {
	return c.end(c.t.Close)
}

// CloseNow ends the connection at once, without the closing handshake's
// round trip (Close waits for the service's close frame): for a process
// that exits next, as a CLI call does. The service takes the end of the
// connection as the agent's goodbye.
func (c *Client) CloseNow() error {
	return c.end(c.t.CloseNow)
}

// end closes the connection with closeConn, then stops the client and
// waits for its reader.
func (c *Client) end(closeConn func() error) error {
	c.closing.Store(true)
	err := closeConn()
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
	return c.t.Write(ctx, b)
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
