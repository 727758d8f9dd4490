// Package cdpfake is a scripted CDP session for tests: each method gets a
// handler (or a fixed reply, or a failure), every call is recorded, and
// a session can carry child sessions the way a tab carries its
// out-of-process iframes. It satisfies cdp.Session, and with children the
// Tab shape the resolver and the snapshot take (*cdptab.Page's methods).
package cdpfake

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/egohost/egohost/internal/link/cdptab"
)

// Handler answers one call: the params as JSON in, a result (marshalled to
// JSON) or an error out.
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// Call is one recorded call.
type Call struct {
	Method string
	Params json.RawMessage
}

// Error is an error answer from the "browser", like Chrome's
// {"code": -32000, "message": "…"}.
type Error struct {
	Method  string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s (-32000)", e.Method, e.Message) }

var _ cdp.Session = (*Session)(nil)

// Session is a scripted session. The zero value is not usable; call New.
type Session struct {
	mu       sync.Mutex
	handlers map[string]Handler
	calls    []Call
	children map[target.SessionID]*Session
	info     []cdptab.Child
}

// New returns a session with no handlers: every call fails until one is set.
func New() *Session {
	return &Session{handlers: make(map[string]Handler), children: make(map[target.SessionID]*Session)}
}

// Handle sets the handler of a method.
func (s *Session) Handle(method string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handlers[method] = h
}

// HandleParams sets the handler of a method whose params decode into a P;
// params that do not decode fail the call with the decoder's error.
func HandleParams[P any](s *Session, method string, h func(ctx context.Context, p P) (any, error)) {
	s.Handle(method, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("%s: decode params: %w", method, err)
		}
		return h(ctx, p)
	})
}

// Reply makes a method always answer result.
func (s *Session) Reply(method string, result any) {
	s.Handle(method, func(context.Context, json.RawMessage) (any, error) { return result, nil })
}

// Fail makes a method always fail with Chrome's message.
func (s *Session) Fail(method, message string) {
	s.Handle(method, func(context.Context, json.RawMessage) (any, error) {
		return nil, &Error{Method: method, Message: message}
	})
}

// Call implements cdp.Session: it records the call and runs the handler.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	raw, err := jsonv2.Marshal(params)
	if err != nil {
		return fmt.Errorf("cdpfake %s: encode params: %w", method, err)
	}
	s.mu.Lock()
	s.calls = append(s.calls, Call{Method: method, Params: json.RawMessage(raw)})
	h := s.handlers[method]
	s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if h == nil {
		return &Error{Method: method, Message: "cdpfake: no handler"}
	}
	res, err := h(ctx, raw)
	if err != nil {
		return err
	}
	if result == nil || res == nil {
		return nil
	}
	b, err := jsonv2.Marshal(res)
	if err != nil {
		return fmt.Errorf("cdpfake %s: encode result: %w", method, err)
	}
	if err := jsonv2.Unmarshal(b, result); err != nil {
		return fmt.Errorf("cdpfake %s: decode result: %w", method, err)
	}
	return nil
}

// Subscribe implements cdp.Session; the fake sends no events.
func (s *Session) Subscribe(string) (<-chan jsonv2.Value, func()) {
	ch := make(chan jsonv2.Value)
	var once sync.Once
	return ch, func() { once.Do(func() { close(ch) }) }
}

// Stream implements cdptab.Streamer; the fake sends no events.
func (s *Session) Stream(...string) (<-chan cdptab.Event, func()) {
	ch := make(chan cdptab.Event)
	var once sync.Once
	return ch, func() { once.Do(func() { close(ch) }) }
}

// Calls returns the calls so far.
func (s *Session) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Count returns how many calls of method were made.
func (s *Session) Count(method string) int {
	n := 0
	for _, c := range s.Calls() {
		if c.Method == method {
			n++
		}
	}
	return n
}

// AddChild attaches a child session (an out-of-process iframe) and returns it.
func (s *Session) AddChild(c cdptab.Child) *Session {
	kid := New()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.children[c.SessionID] = kid
	s.info = append(s.info, c)
	return kid
}

// Child returns a child session (a session that fails every call when
// there is no such child).
func (s *Session) Child(id target.SessionID) cdp.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if kid, ok := s.children[id]; ok {
		return kid
	}
	return New()
}

// Children lists the attached children.
func (s *Session) Children() []cdptab.Child {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]cdptab.Child(nil), s.info...)
}
