package browserlink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
)

// Session is a CDP session of one tab (or one of its flattened child
// sessions) carried by the link: the production side of the cdp.Session
// seam.
type Session struct {
	l         *Link
	tabID     int
	sessionID string
	epoch     uint64 // the tab's session generation it was made in (Link.Epoch)
}

var (
	_ cdptab.Sessions  = (*Session)(nil)
	_ cdptab.Sequencer = (*Session)(nil)
)

// Session is the main CDP session of a tab, in the tab's current debugger
// session: after a detach it sends nothing (its commands fail, refused,
// as not sent), as what it was used for (contexts, objects, enabled
// domains) went with that session; make a new one.
func (l *Link) Session(tabID int) *Session {
	return &Session{l: l, tabID: tabID, epoch: l.Epoch(tabID)}
}

// Call sends one CDP command through the extension and decodes its result.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	op := extwire.CDP{TabID: s.tabID, Method: method, SessionID: s.sessionID, Epoch: s.epoch}
	var err error
	if op.Params, err = encodeParams(method, params); err != nil {
		return err
	}
	res, err := s.l.Call(ctx, op)
	if err != nil {
		return err
	}
	return s.decode(method, res, result)
}

// decode decodes a command's result into result (nil: not read), and
// remembers the world a Page.createIsolatedWorld made as egohost's own
// (worlds.go): every world the service makes through a Session is (an
// agent's raw CDP goes to the link as an op).
func (s *Session) decode(method string, raw json.RawMessage, result any) error {
	if method == page.CommandCreateIsolatedWorld {
		s.madeWorld(raw)
	}
	return decodeResult(method, raw, result)
}

func (s *Session) madeWorld(res json.RawMessage) {
	var w struct {
		ID int64 `json:"executionContextId"`
	}
	if jsonv2.Unmarshal(res, &w) == nil && w.ID != 0 {
		s.l.worlds.add(s.tabID, s.sessionID, w.ID, "")
	}
}

// CallSequence sends CDP commands through the extension in order, each
// without waiting for the previous reply, and decodes their results
// (cdptab.Sequencer): one round trip for the lot.
func (s *Session) CallSequence(ctx context.Context, cmds []cdptab.Command) error {
	ops := make([]extwire.Op, len(cmds))
	within := make([]time.Duration, len(cmds))
	for i, c := range cmds {
		within[i] = c.Within
		op := extwire.CDP{TabID: s.tabID, Method: c.Method, SessionID: s.sessionID, Epoch: s.epoch}
		var err error
		if op.Params, err = encodeParams(c.Method, c.Params); err != nil {
			return err
		}
		if c.Then != nil {
			op.Then = &extwire.CDPThen{Method: c.Then.Method}
			if op.Then.Params, err = encodeParams(c.Then.Method, c.Then.Params); err != nil {
				return err
			}
		}
		ops[i] = op
	}
	res, err := s.l.CallSequence(ctx, ops, within)
	if err != nil {
		if e := (*Error)(nil); errors.As(err, &e) && e.Ext != nil && e.Ext.Then {
			return &cdptab.ThenError{Err: err}
		}
		return err
	}
	var skipped error // a Then the extension did not send (a dialog)
	for i, c := range cmds {
		raw := res[i]
		if c.Then != nil && len(raw) > 0 {
			var both extwire.CDPThenResult
			if err := jsonv2.Unmarshal(raw, &both); err != nil {
				return fmt.Errorf("%s: decode result: %w", c.Method, err)
			}
			if both.Skipped != "" {
				skipped = &cdptab.ThenError{Err: fmt.Errorf("%s: %w", c.Then.Method, cdptab.ErrThenSkipped)}
			} else if err := s.decode(c.Then.Method, both.Then, c.Then.Result); err != nil {
				return err
			}
			raw = both.Result
		}
		if err := s.decode(c.Method, raw, c.Result); err != nil {
			return err
		}
	}
	return skipped
}

// encodeParams is a command's params on the wire (nil: none).
func encodeParams(method string, params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	raw, err := jsonv2.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("%s: encode params: %w", method, err)
	}
	return raw, nil
}

// decodeResult decodes a command's result into result (nil: not read).
func decodeResult(method string, raw json.RawMessage, result any) error {
	if result == nil || len(raw) == 0 {
		return nil
	}
	if err := jsonv2.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("%s: decode result: %w", method, err)
	}
	return nil
}

// subscribeBuffer is how many events of one method a subscription holds
// for a slow reader (more are dropped rather than block the link): the
// readers are goroutines that drain it at once, so a small buffer does,
// and a call does not pay for thousands of slots it never uses.
const subscribeBuffer = 64

// Subscribe buffers this session's events of one method.
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	q := NewQueue[jsonv2.Value](subscribeBuffer)
	cancel := s.l.Subscribe(&Subscriber{
		Filter: func(in *extwire.Message) bool {
			return in.Event == "cdp" && in.TabID == s.tabID && in.SessionID == s.sessionID && in.Method == method
		},
		Deliver: func(in *extwire.Message) { q.Put(jsonv2.Value(in.Params)) },
		Done:    q.Close,
	})
	return q.C, cancel
}

// Stream buffers this session's events of several methods on one channel,
// in the order the link received them.
func (s *Session) Stream(methods ...string) (<-chan cdptab.Event, func()) {
	want := make(map[string]bool, len(methods))
	for _, m := range methods {
		want[m] = true
	}
	q := NewQueue[cdptab.Event](cdptab.StreamBuffer)
	cancel := s.l.Subscribe(&Subscriber{
		Filter: func(in *extwire.Message) bool {
			return in.Event == "cdp" && in.TabID == s.tabID && in.SessionID == s.sessionID && want[in.Method]
		},
		Deliver: func(in *extwire.Message) { q.Put(cdptab.Event{Method: in.Method, Params: jsonv2.Value(in.Params)}) },
		Done:    q.Close,
	})
	return q.C, cancel
}

// Child returns a flattened child session of the same tab.
func (s *Session) Child(id target.SessionID) cdp.Session {
	return &Session{l: s.l, tabID: s.tabID, sessionID: string(id), epoch: s.epoch}
}

// Queue is a channel that can be fed without blocking and closed once,
// safely against concurrent puts: what a subscriber delivers to.
type Queue[T any] struct {
	mu     sync.Mutex
	C      chan T
	closed bool
}

// NewQueue makes a queue that holds n values.
func NewQueue[T any](n int) *Queue[T] { return &Queue[T]{C: make(chan T, n)} }

// Put delivers v, or drops it when the queue is full or closed.
func (q *Queue[T]) Put(v T) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	select {
	case q.C <- v:
		return true
	default:
		return false
	}
}

// Close closes the channel (once).
func (q *Queue[T]) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.C)
	}
}
