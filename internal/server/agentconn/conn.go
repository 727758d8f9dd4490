// Package agentconn carries one agent's JSON-RPC connection to the
// service, over a WebSocket or the agent socket: it reads the agent's
// requests within a size cap and a cap on those in flight, parses them,
// hands each to a Handler, and writes the replies and notifications one
// at a time. What a call means is the Handler's. It also holds the checks
// every HTTP front end of egohost makes of its callers (CheckCaller,
// Authorize, CheckLoopback).
package agentconn

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/egohost/egohost/internal/server/slots"
	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
)

// ErrMessageTooBig is what Serve returns when the agent sent a message
// over Limits.MaxMessage: the connection is closed for it.
var ErrMessageTooBig = errors.New("agent message too big")

// Handler runs an agent's calls.
type Handler interface {
	// Call runs one request. Its result, or its error (made a
	// *protocol.Error with protocol.AsError), is the reply; a
	// notification gets none. ctx ends when the connection does.
	Call(ctx context.Context, method string, params json.RawMessage) (any, error)
}

// Limits bound what one connection may ask at once.
type Limits struct {
	MaxMessage     int           // bytes in one message; a bigger one closes the connection
	MaxInFlight    int           // requests running at once; the next is not read until one ends
	RequestTimeout time.Duration // how long every slot may stay busy before the next request is refused with busy
}

// transport is an agent's connection: a WebSocket, or the agent socket
// (socketConn).
type transport interface {
	SetReadLimit(n int64)
	Read(ctx context.Context) (websocket.MessageType, []byte, error)
	Write(ctx context.Context, typ websocket.MessageType, msg []byte) error
	CloseNow() error
}

// Conn is one agent's connection.
type Conn struct {
	t       transport
	log     *slog.Logger
	writeMu sync.Mutex // one message written at a time
}

func newConn(t transport, log *slog.Logger) *Conn { return &Conn{t: t, log: log} }

// Serve reads the agent's requests and runs each with h, in its own
// goroutine, until ctx ends or a read fails (the agent left, or sent a
// message over lim.MaxMessage: ErrMessageTooBig). It returns once the
// calls it started have ended; their context ends when it stops reading.
// A request read after ctx ended is not answered.
func (c *Conn) Serve(ctx context.Context, lim Limits, h Handler) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	c.t.SetReadLimit(int64(lim.MaxMessage))
	free := slots.New(lim.MaxInFlight, lim.RequestTimeout)
	for {
		// Backpressure: with MaxInFlight requests running, read nothing
		// more until one ends. A pipelining agent is slowed down by its
		// own socket, and loses nothing.
		admitted, err := free.Acquire(ctx)
		if err != nil {
			return err
		}
		typ, data, err := c.t.Read(ctx)
		if err != nil {
			if errors.Is(err, websocket.ErrMessageTooBig) || websocket.CloseStatus(err) == websocket.StatusMessageTooBig || errors.Is(err, nativemsg.ErrFrameTooLarge) {
				return ErrMessageTooBig
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err // cut (revoked, taken over, shutdown) while the frame arrived: it is not answered
		}
		req, perr := parseRequest(typ, data)
		if perr != nil {
			free.Release(admitted)
			c.reply(req.ID, nil, perr)
			continue
		}
		if !admitted {
			admitted = free.Admit(ctx)
		}
		if !admitted {
			// Every slot has been busy for a whole request deadline: the
			// requests in flight overran theirs, or the agent does not
			// read its replies. Refuse rather than queue without bound.
			c.log.Warn("agent over its in-flight cap", "limit", lim.MaxInFlight, "method", req.Method)
			if len(req.ID) > 0 {
				c.reply(req.ID, nil, protocol.Errorf(protocol.CodeBusy,
					"busy: this connection has had %d requests in flight for over %v; retry when some have answered", lim.MaxInFlight, lim.RequestTimeout).
					With("limit", lim.MaxInFlight))
			}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer free.Release(true)
			res, err := h.Call(ctx, req.Method, req.Params)
			if len(req.ID) == 0 {
				return // a notification gets no reply
			}
			c.reply(req.ID, res, err)
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

// reply sends a response. Errors that are not *protocol.Error become
// theirs with protocol.AsError.
func (c *Conn) reply(id json.RawMessage, result any, err error) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	if err == nil {
		b, merr := json.Marshal(success{JSONRPC: protocol.Version, ID: id, Result: result})
		if merr == nil {
			c.send(b)
			return
		}
		err = protocol.Errorf(protocol.CodeInternal, "encode result: %v", merr)
	}
	c.write(protocol.Response{JSONRPC: protocol.Version, ID: id, Error: protocol.AsError(err)})
}

// success and notification are protocol.Response (with a result) and
// protocol.Message (a notification) with the payload as the handler gave
// it: the encoder writes it into the frame in one pass, where a payload
// encoded first as a json.RawMessage was scanned and copied a second
// time (a snapshot's text, a relayed CDP reply).
type success struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result"`
}

type notification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// Notify sends the agent a notification, in turn with the replies.
func (c *Conn) Notify(method string, params any) {
	c.write(notification{JSONRPC: protocol.Version, Method: method, Params: params})
}

// writeTimeout bounds one message's write: a stuck agent is cut off
// after it.
const writeTimeout = 30 * time.Second

func (c *Conn) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	c.send(b)
}

// send writes one message, whole, after those before it.
func (c *Conn) send(b []byte) {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	// Not the request's context: the WebSocket library closes the whole
	// connection when a write's context ends mid-frame. A stuck agent is
	// cut off after the write timeout instead.
	wctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	_ = c.t.Write(wctx, websocket.MessageText, b)
}

// Close closes the connection at once.
func (c *Conn) Close() error { return c.t.CloseNow() }
