// Package cdptab gives one browser tab as a CDP target with its out-of-process
// child frames: it turns on flattened auto-attach and tracks the child
// sessions Chrome attaches, so callers can reach every frame of the tab
// through the same cdp.Session seam, whatever carries it (the extension
// relay in production, a direct DevTools connection in tests).
package cdptab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
)

// Sessions is a tab's main session that can also address flattened child
// sessions by ID, and stream several events' methods on one channel.
type Sessions interface {
	cdp.Session
	Streamer
	Child(id target.SessionID) cdp.Session
}

// Tab is a tab as the page-level packages (snapshot, resolver, actions)
// work on it: its main session, and the sessions of its out-of-process
// child frames. *Page satisfies it; tests may give fakes.
type Tab interface {
	cdp.Session
	Child(id target.SessionID) cdp.Session
	Children() []Child
}

var _ Tab = (*Page)(nil)

// Object is a remote object (an element) in one of the tab's sessions:
// the session of its frame, "" for the tab's main session. The resolver
// finds them and the actions act on them.
type Object struct {
	ObjectID  runtime.RemoteObjectID
	SessionID target.SessionID
	// Boxed says that ObjectID is not the element itself but an array
	// whose second item is the element: what a resolution that ran a
	// function on the element in the same page call returns (the call's
	// one result holds the function's value and the element). A function
	// meant for the element runs on it as Boxed(fn) does.
	Boxed bool
}

// Boxed wraps a JavaScript function's source so that, called on a boxed
// Object, it runs with `this` the element (the array's second item).
func Boxed(fn string) string {
	return "function(...a) { return (" + fn + ").apply(this[1], a); }"
}

// Called is what a function run on an element gave: its value (JSON;
// null when it returned nothing) or the exception it threw.
type Called struct {
	Value     json.RawMessage
	Exception string
}

// Event is one CDP event of a session: its method and its params.
type Event struct {
	Method string
	Params jsonv2.Value
}

// Streamer delivers the events of several methods of one session on one
// channel, in the order they arrived: one subscription where a watcher
// needs many methods. A reader that falls StreamBuffer events behind loses
// the newest ones rather than block the session; cancel ends the stream
// (the channel closes).
type Streamer interface {
	Stream(methods ...string) (events <-chan Event, cancel func())
}

// Command is one CDP command of a sequence: its method, its params, and
// where its result is decoded (nil: dropped).
type Command struct {
	Method         string
	Params, Result any
	// Within, when set, bounds the wait for this command's reply: a reply
	// that does not come in time is not waited for, and is not an error
	// (the commands after it were sent all the same).
	Within time.Duration
	// Then, when set, is sent on the same session as soon as this command
	// is answered, as near the browser as the session can (the extension:
	// no round trip to the service between the two), and not at all when
	// this one fails or its context ended meanwhile — or, through the
	// extension, when Chrome reported a JavaScript dialog on the tab
	// meanwhile (a mouse press that opened one: a person's release does
	// not reach a page behind a dialog). Its failure, or its not being
	// sent for a dialog, is a *ThenError. Its own Within and Then are not
	// used.
	Then *Command
}

// ThenError is the failure of a Command's Then (the command itself was
// answered), or ErrThenSkipped.
type ThenError struct{ Err error }

// ErrThenSkipped is a Then the extension did not send: Chrome reported a
// JavaScript dialog on the tab while the command ran.
var ErrThenSkipped = errors.New("not sent: a JavaScript dialog opened on the tab meanwhile")

func (e *ThenError) Error() string { return e.Err.Error() }
func (e *ThenError) Unwrap() error { return e.Err }

// Sequencer is a session that sends several commands in one go, in order,
// without waiting for each reply before sending the next: Chrome runs a
// session's commands in the order they arrive, so a sequence costs one
// round trip where one call per command costs one each.
type Sequencer interface {
	// CallSequence sends cmds in order and waits for every reply; it
	// returns the first command's error that failed (the commands after
	// it were already sent).
	CallSequence(ctx context.Context, cmds []Command) error
}

// CallSequence sends cmds on s in order: in one go when s is a Sequencer,
// else one call after another (stopping at the first error).
func CallSequence(ctx context.Context, s cdp.Session, cmds []Command) error {
	if q, ok := s.(Sequencer); ok {
		return q.CallSequence(ctx, cmds)
	}
	for _, c := range cmds {
		if err := callWithin(ctx, s, c); err != nil {
			return err
		}
		if err := CallThen(ctx, s, c); err != nil {
			return err
		}
	}
	return nil
}

// CallThen sends c.Then, if any, on s once c was answered: ctx still
// going (a dialog the command opened ends an action's context). For a
// Sequencer whose far side cannot send it (see SplitAtThen).
func CallThen(ctx context.Context, s cdp.Session, c Command) error {
	if c.Then == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.Call(ctx, c.Then.Method, c.Then.Params, c.Then.Result); err != nil {
		return &ThenError{err}
	}
	return nil
}

// FrameTrees asks each session for its frame tree, all at once (a page of
// many out-of-process frames costs one round trip, not one a frame), and
// returns them in the order of ss, with each one's error.
func FrameTrees(ctx context.Context, ss []cdp.Session) ([]*page.FrameTree, []error) {
	trees := make([]*page.FrameTree, len(ss))
	errs := make([]error, len(ss))
	var wg sync.WaitGroup
	for i, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cdp.Call(ctx, s, page.GetFrameTree, cdp.Empty{})
			switch {
			case err != nil:
				errs[i] = err
			case res.FrameTree == nil || res.FrameTree.Frame == nil:
				errs[i] = errors.New("empty frame tree")
			default:
				trees[i] = res.FrameTree
			}
		}()
	}
	wg.Wait()
	return trees, errs
}

// SplitAtThen splits cmds after the first command with a Then: a
// Sequencer that cannot have its far side send a Then sends head in one
// go, then (CallThen) the Then, then the rest.
func SplitAtThen(cmds []Command) (head, rest []Command) {
	for i, c := range cmds {
		if c.Then != nil {
			return cmds[:i+1], cmds[i+1:]
		}
	}
	return cmds, nil
}

// callWithin calls c on s, bounded by c.Within (see Within).
func callWithin(ctx context.Context, s cdp.Session, c Command) error {
	return Within(ctx, c.Within, func(ctx context.Context) error {
		return s.Call(ctx, c.Method, c.Params, c.Result)
	})
}

// Within runs wait under ctx bounded by d (no bound when d <= 0): running
// out of d while ctx goes on is not an error (a Command's Within). A
// Sequencer waits for each reply of a sequence with it.
func Within(ctx context.Context, d time.Duration, wait func(ctx context.Context) error) error {
	if d <= 0 {
		return wait(ctx)
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := wait(wctx)
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		return nil
	}
	return err
}

// StreamBuffer is how many events a stream holds for a slow reader.
const StreamBuffer = 256

// Child is an attached child target of the tab (an out-of-process iframe or
// a worker).
type Child struct {
	SessionID target.SessionID
	TargetID  target.ID // for an iframe, also its frame ID
	Type      string    // "iframe", "worker", …
	URL       string
	Parent    target.SessionID // "" when the parent is the tab's main session
}

// Page is a tab's main session plus its attached children. It implements
// cdp.Session (the main session) and Sessions.
type Page struct {
	root Sessions

	mu       sync.Mutex
	children map[target.SessionID]Child

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var _ Sessions = (*Page)(nil)

// Open turns on auto-attach (flatten) on the tab and starts tracking its
// children. Close the Page to stop tracking.
func Open(ctx context.Context, root Sessions) (*Page, error) {
	lctx, cancel := context.WithCancel(context.Background())
	p := &Page{root: root, children: make(map[target.SessionID]Child), cancel: cancel}
	if err := p.watch(ctx, lctx, root, ""); err != nil {
		p.Close()
		return nil, fmt.Errorf("open page: %w", err)
	}
	return p, nil
}

// watch subscribes to s's attach/detach events, turns on auto-attach on s,
// applies the events that arrived before the reply, and keeps watching.
func (p *Page) watch(ctx, lctx context.Context, s cdp.Session, id target.SessionID) error {
	attached, stopA := s.Subscribe(target.AttachedToTarget.Method)
	detached, stopD := s.Subscribe(target.DetachedFromTarget.Method)
	no := false
	yes := true
	err := s.Call(ctx, target.CommandSetAutoAttach, target.SetAutoAttachParams{
		AutoAttach: true, WaitForDebuggerOnStart: no, Flatten: &yes,
	}, nil)
	if err != nil {
		stopA()
		stopD()
		return err
	}
	// Chrome sends attachedToTarget for existing children before it answers.
	for drained := false; !drained; {
		select {
		case v, ok := <-attached:
			if !ok {
				drained = true
				break
			}
			p.onAttached(ctx, lctx, v, id)
		default:
			drained = true
		}
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer stopA()
		defer stopD()
		for {
			select {
			case <-lctx.Done():
				return
			case v, ok := <-attached:
				if !ok {
					return
				}
				p.onAttached(lctx, lctx, v, id)
			case v, ok := <-detached:
				if !ok {
					return
				}
				var ev target.EventDetachedFromTarget
				if jsonv2.Unmarshal(v, &ev) == nil {
					p.mu.Lock()
					delete(p.children, ev.SessionID)
					p.mu.Unlock()
				}
			}
		}
	}()
	return nil
}

func (p *Page) onAttached(ctx, lctx context.Context, v jsonv2.Value, parent target.SessionID) {
	var ev target.EventAttachedToTarget
	if jsonv2.Unmarshal(v, &ev) != nil || ev.TargetInfo == nil {
		return
	}
	c := Child{SessionID: ev.SessionID, TargetID: ev.TargetInfo.TargetID, Type: ev.TargetInfo.Type, URL: ev.TargetInfo.URL, Parent: parent}
	p.mu.Lock()
	p.children[c.SessionID] = c
	p.mu.Unlock()
	if c.Type == "iframe" {
		// Nested out-of-process frames attach to their parent frame's session.
		_ = p.watch(ctx, lctx, p.root.Child(c.SessionID), c.SessionID)
	}
}

// Call sends a command to the tab's main session.
func (p *Page) Call(ctx context.Context, method string, params, result any) error {
	return p.root.Call(ctx, method, params, result)
}

// CallSequence sends commands to the tab's main session in order, in one
// go when the session can (Sequencer).
func (p *Page) CallSequence(ctx context.Context, cmds []Command) error {
	return CallSequence(ctx, p.root, cmds)
}

// Subscribe subscribes to an event of the tab's main session.
func (p *Page) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	return p.root.Subscribe(method)
}

// Stream streams events of the tab's main session.
func (p *Page) Stream(methods ...string) (<-chan Event, func()) {
	return p.root.Stream(methods...)
}

// Child returns a child session by ID.
func (p *Page) Child(id target.SessionID) cdp.Session { return p.root.Child(id) }

// Children returns the attached child targets.
func (p *Page) Children() []Child {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Collect(maps.Values(p.children))
}

// Frame returns the child session of an out-of-process iframe by frame ID.
func (p *Page) Frame(frameID cdp.FrameID) (cdp.Session, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.children {
		if c.Type == "iframe" && string(c.TargetID) == string(frameID) {
			return p.root.Child(c.SessionID), true
		}
	}
	return nil, false
}

// Close stops tracking and waits for the watchers to end.
func (p *Page) Close() {
	p.cancel()
	p.wg.Wait()
}

// DeepNodes are the serialization options under which DOM nodes in an
// evaluation's result come back with their backendNodeId and loaderId
// (deep serialization, one level, no shadow trees): how the resolver and
// the snapshot get nodes back from one in-page call.
func DeepNodes() *runtime.SerializationOptions {
	one := int64(1)
	return &runtime.SerializationOptions{
		Serialization:        runtime.SerializationOptionsSerializationDeep,
		MaxDepth:             &one,
		AdditionalParameters: jsonv2.Value(`{"maxNodeDepth":0,"includeShadowTree":"none"}`),
	}
}

// Reach says whether a caller may reach a document of the tab, given its
// URL and its security origin (what the page says location.origin is:
// "null" when opaque; "" when unknown): why names the rule that refused
// it. The page-level packages ask it before they read or act in a
// document, in the same evaluation that then reads or acts, so the
// document they judged is the one they reach. A nil Reach reaches every
// document.
type Reach func(url, origin string) (ok bool, why string)

// WithheldError is a document a Reach refused: the tab's main frame's,
// or a frame's that a call named (a ref into it).
type WithheldError struct {
	URL, Origin string
	Why         string
	Frame       bool // a frame's document, not the tab's main frame's
}

func (e *WithheldError) Error() string {
	what := "the tab's document"
	if e.Frame {
		what = "a frame's document"
	}
	return fmt.Sprintf("%s is on %s, which this caller may not reach (%s)", what, OriginOf(e.URL, e.Origin), e.Why)
}

// Permanent reports that waiting cannot make the document reachable.
func (e *WithheldError) Permanent() bool { return true }

// OriginOf is how a refused document is named: its security origin when
// it has one, else its URL's scheme and host (never its path or query).
func OriginOf(url, origin string) string {
	if origin != "" && origin != "null" && origin != "://" {
		return origin
	}
	scheme, rest, ok := strings.Cut(url, ":")
	if !ok {
		return "an unknown origin"
	}
	if host, ok := strings.CutPrefix(rest, "//"); ok {
		host, _, _ = strings.Cut(host, "/")
		return scheme + "://" + host
	}
	return scheme + ":"
}

// Check asks reach about a document: nil when it may be reached.
func (reach Reach) Check(url, origin string, frame bool) error {
	if reach == nil {
		return nil
	}
	if ok, why := reach(url, origin); !ok {
		return &WithheldError{URL: url, Origin: origin, Why: why, Frame: frame}
	}
	return nil
}
