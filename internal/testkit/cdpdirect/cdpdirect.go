// Package cdpdirect is a direct Chrome DevTools Protocol connection over the
// browser's DevTools WebSocket. egohost itself never uses it in production
// (the extension relay is the production path); tests use it as an oracle
// and benchmarks as the baseline, and it satisfies the same cdp.Session seam.
package cdpdirect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/coder/websocket"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/pending"
)

// ErrClosed is returned for calls on a closed connection.
var ErrClosed = errors.New("cdpdirect: connection closed")

// ProtocolError is an error answer from the browser.
type ProtocolError struct {
	Method  string
	Code    int64
	Message string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("%s: %s (%d)", e.Method, e.Message, e.Code)
}

type message struct {
	ID        int64           `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

type subKey struct{ session, method string }

// Conn is one DevTools WebSocket connection (the browser endpoint).
type Conn struct {
	ws     *websocket.Conn
	cancel context.CancelFunc
	done   chan struct{}

	nextID  atomic.Int64
	pending pending.Table[int64, chan message] // closed with why the connection ended

	mu      sync.Mutex // the subscriptions, and fail's closing of them
	subs    map[subKey]map[int]chan jsonv2.Value
	streams map[int]*stream
	nextSub int
}

// Dial connects to a DevTools WebSocket URL (ws://127.0.0.1:port/devtools/...).
func Dial(ctx context.Context, url string) (*Conn, error) {
	ws, _, err := websocket.Dial(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("cdpdirect dial %s: %w", url, err)
	}
	ws.SetReadLimit(256 << 20)
	rctx, cancel := context.WithCancel(context.Background())
	c := &Conn{
		ws:      ws,
		cancel:  cancel,
		done:    make(chan struct{}),
		subs:    make(map[subKey]map[int]chan jsonv2.Value),
		streams: make(map[int]*stream),
	}
	go c.readLoop(rctx)
	return c, nil
}

func (c *Conn) readLoop(ctx context.Context) {
	defer close(c.done)
	for {
		_, data, err := c.ws.Read(ctx)
		if err != nil {
			c.fail(fmt.Errorf("%w: %v", ErrClosed, err))
			return
		}
		var m message
		if err := json.Unmarshal(WellFormed(data), &m); err != nil {
			continue
		}
		c.mu.Lock()
		if m.ID != 0 {
			if ch, ok := c.pending.Take(m.ID); ok {
				ch <- m
			}
		} else if m.Method != "" {
			for _, ch := range c.subs[subKey{m.SessionID, m.Method}] {
				select {
				case ch <- jsonv2.Value(m.Params):
				default: // a subscriber that does not read loses events, never blocks the connection
				}
			}
			for _, st := range c.streams {
				if st.session == m.SessionID && st.methods[m.Method] {
					select {
					case st.ch <- cdptab.Event{Method: m.Method, Params: jsonv2.Value(m.Params)}:
					default:
					}
				}
			}
		}
		c.mu.Unlock()
	}
}

func (c *Conn) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range c.pending.Close(err) {
		close(ch)
	}
	for k, m := range c.subs {
		for _, ch := range m {
			close(ch)
		}
		delete(c.subs, k)
	}
	for n, st := range c.streams {
		close(st.ch)
		delete(c.streams, n)
	}
}

// Close closes the connection and waits for its reader to end.
func (c *Conn) Close() error {
	c.cancel()
	err := c.ws.Close(websocket.StatusNormalClosure, "")
	<-c.done
	return err
}

func (c *Conn) call(ctx context.Context, session, method string, params, result any) error {
	p, err := c.send(session, method, params)
	if err != nil {
		return err
	}
	return c.wait(ctx, p, result)
}

// sent is a command sent, waiting for its reply.
type sent struct {
	id     int64
	method string
	ch     chan message
}

// send registers and writes one command.
func (c *Conn) send(session, method string, params any) (sent, error) {
	var raw json.RawMessage
	if params != nil {
		b, err := jsonv2.Marshal(params)
		if err != nil {
			return sent{}, fmt.Errorf("%s: encode params: %w", method, err)
		}
		raw = b
	}
	ch := make(chan message, 1)
	id := c.nextID.Add(1)
	if err := c.pending.Add(id, ch); err != nil {
		return sent{}, err
	}

	b, err := json.Marshal(message{ID: id, SessionID: session, Method: method, Params: raw})
	if err == nil {
		err = c.write(b)
	}
	if err != nil {
		c.pending.Take(id)
		return sent{}, fmt.Errorf("%s: %w", method, err)
	}
	return sent{id: id, method: method, ch: ch}, nil
}

// wait waits for a sent command's reply and decodes its result.
func (c *Conn) wait(ctx context.Context, p sent, result any) error {
	method := p.method
	select {
	case <-ctx.Done():
		c.pending.Take(p.id)
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case m, ok := <-p.ch:
		if !ok {
			err := c.pending.Err()
			return fmt.Errorf("%s: %w", method, err)
		}
		if m.Error != nil {
			return &ProtocolError{Method: method, Code: m.Error.Code, Message: m.Error.Message}
		}
		if result != nil && len(m.Result) > 0 {
			if err := jsonv2.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("%s: decode result: %w", method, err)
			}
		}
		return nil
	}
}

func (c *Conn) subscribe(session, method string) (<-chan jsonv2.Value, func()) {
	ch := make(chan jsonv2.Value, 4096)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending.Err() != nil {
		close(ch)
		return ch, func() {}
	}
	k := subKey{session, method}
	if c.subs[k] == nil {
		c.subs[k] = make(map[int]chan jsonv2.Value)
	}
	c.nextSub++
	n := c.nextSub
	c.subs[k][n] = ch
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if m := c.subs[k]; m != nil {
				if _, ok := m[n]; ok {
					delete(m, n)
					close(ch)
				}
			}
		})
	}
}

// stream is one Stream subscription.
type stream struct {
	session string
	methods map[string]bool
	ch      chan cdptab.Event
}

func (c *Conn) stream(session string, methods []string) (<-chan cdptab.Event, func()) {
	st := &stream{session: session, methods: make(map[string]bool, len(methods)), ch: make(chan cdptab.Event, cdptab.StreamBuffer)}
	for _, m := range methods {
		st.methods[m] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending.Err() != nil {
		close(st.ch)
		return st.ch, func() {}
	}
	c.nextSub++
	n := c.nextSub
	c.streams[n] = st
	var once sync.Once
	return st.ch, func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if _, ok := c.streams[n]; ok {
				delete(c.streams, n)
				close(st.ch)
			}
		})
	}
}

// Browser returns the browser-level session.
func (c *Conn) Browser() *Session { return &Session{c: c} }

// Session returns the flattened session with the given ID.
func (c *Conn) Session(id target.SessionID) *Session { return &Session{c: c, id: string(id)} }

// NewPage opens a new page at url and attaches a flattened session to it.
func (c *Conn) NewPage(ctx context.Context, url string) (*Session, target.ID, error) {
	created, err := cdp.Call(ctx, c.Browser(), target.CreateTarget, target.CreateTargetParams{URL: url})
	if err != nil {
		return nil, "", fmt.Errorf("new page: %w", err)
	}
	s, err := c.Attach(ctx, created.TargetID)
	return s, created.TargetID, err
}

// Attach attaches a flattened session to a target.
func (c *Conn) Attach(ctx context.Context, id target.ID) (*Session, error) {
	flatten := true
	att, err := cdp.Call(ctx, c.Browser(), target.AttachToTarget, target.AttachToTargetParams{TargetID: id, Flatten: &flatten})
	if err != nil {
		return nil, fmt.Errorf("attach %s: %w", id, err)
	}
	return c.Session(att.SessionID), nil
}

// Session is one CDP session on a connection; it implements cdp.Session.
type Session struct {
	c  *Conn
	id string
}

var (
	_ cdp.Session      = (*Session)(nil)
	_ cdptab.Sequencer = (*Session)(nil)
)

// ID returns the session's ID ("" for the browser session).
func (s *Session) ID() target.SessionID { return target.SessionID(s.id) }

// Call sends a command and decodes its result.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	return s.c.call(ctx, s.id, method, params, result)
}

// CallSequence writes commands in order, each without waiting for the
// previous reply, then waits for every reply (cdptab.Sequencer).
// A command's Then is sent once its reply came (cdptab.SplitAtThen), with
// no check for a dialog but the context's.
func (s *Session) CallSequence(ctx context.Context, cmds []cdptab.Command) error {
	head, rest := cdptab.SplitAtThen(cmds)
	if err := s.callSequence(ctx, head); err != nil {
		return err
	}
	if len(head) > 0 {
		if err := cdptab.CallThen(ctx, s, head[len(head)-1]); err != nil {
			return err
		}
	}
	if len(rest) > 0 {
		return s.CallSequence(ctx, rest)
	}
	return nil
}

func (s *Session) callSequence(ctx context.Context, cmds []cdptab.Command) error {
	ps := make([]sent, 0, len(cmds))
	var first error
	for _, cmd := range cmds {
		p, err := s.c.send(s.id, cmd.Method, cmd.Params)
		if err != nil {
			first = err
			break
		}
		ps = append(ps, p)
	}
	for i, p := range ps {
		if err := s.c.waitWithin(ctx, p, cmds[i]); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// waitWithin waits for the reply to cmd, within cmd.Within (cdptab.Within).
func (c *Conn) waitWithin(ctx context.Context, p sent, cmd cdptab.Command) error {
	return cdptab.Within(ctx, cmd.Within, func(ctx context.Context) error { return c.wait(ctx, p, cmd.Result) })
}

// Subscribe buffers the session's events of one method (up to 4096; more are dropped).
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	return s.c.subscribe(s.id, method)
}

// Stream buffers the session's events of several methods on one channel.
func (s *Session) Stream(methods ...string) (<-chan cdptab.Event, func()) {
	return s.c.stream(s.id, methods)
}

// Child returns the flattened child session id on the same connection.
func (s *Session) Child(id target.SessionID) cdp.Session { return &Session{c: s.c, id: string(id)} }

// write sends one message. It does not take the caller's context: the
// WebSocket library closes the whole connection when a write's context
// ends mid-frame, and one caller's deadline must not cut everyone off.
func (c *Conn) write(b []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.ws.Write(ctx, websocket.MessageText, b)
}
