// Package browserlink is the service's client of the extension's op
// protocol (PROTOCOL.md §2): one Link per connected browser, with its
// pending calls, the chunking of large requests, the fan-out of the
// browser's events, and the CDP session the page layer drives through it.
package browserlink

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/pending"
	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
)

// chunkThreshold is the largest message sent to the extension in one frame;
// larger ones go as base64 chunks of chunkPiece raw bytes (PROTOCOL.md §2.4).
const (
	chunkThreshold = 786432
	chunkPiece     = 589824 // divisible by 3: every piece is whole base64
)

type reply struct {
	result json.RawMessage
	err    error
}

type pendingCall struct {
	tabID int
	epoch uint64 // the tab's session generation when it was sent
	op    string
	name  string   // what errors name: the CDP method for cdp calls, else op
	att   *Attempt // the call's record (Track), or nil
	ch    chan reply
}

// Subscriber receives a link's events that its Filter accepts. Deliver
// must not block; Done is called once when the link closes or the
// subscriber is removed.
type Subscriber struct {
	Filter  func(*extwire.Message) bool
	Deliver func(*extwire.Message)
	Done    func()
}

// Options configure a Link.
type Options struct {
	// IDs numbers requests and chunks; shared by every link of a service
	// so numbers are unique across links.
	IDs *atomic.Int64
	// Log receives the link's logs.
	Log *slog.Logger
	// Hello is called, in the reader's goroutine, at the browser's first
	// hello; it must give the link its ID (SetID) before it returns.
	Hello func(*extwire.Message)
	// Event is called, in the reader's goroutine, with every event before
	// the subscribers get it. It must not block.
	Event func(*extwire.Message)
	// Closed is called once when the link ends, after the pending calls
	// failed and the subscribers ended.
	Closed func()
	// Call answers a request the extension makes of the service (the
	// popup channel, PROTOCOL.md §2.6). It runs in its own goroutine with
	// a context that ends with the link; nil refuses every call.
	Call func(ctx context.Context, method string, params json.RawMessage) (any, error)
	// ReplyError is the error object of a call's reply: the link's own
	// refusals (ErrNoCalls, ErrNoMethod, *BusyError) and Call's errors, as
	// the service words them (default: protocol.AsError).
	ReplyError func(err error) *protocol.Error
	// MaxCalls caps the extension's calls running at once (default 16):
	// one more is refused with busy.
	MaxCalls int
	// ServiceVersion and ServicePID are what the welcome event says.
	ServiceVersion string
	ServicePID     int
}

// Link is one connected browser (one relay connection, one profile).
type Link struct {
	opts Options
	conn net.Conn
	w    *nativemsg.Writer

	sendMu sync.Mutex // keeps one message's chunks together

	mu      sync.Mutex
	id      string
	log     *slog.Logger
	nextSub int
	// pending are the requests sent, by ID. Adding one (start) and taking
	// a tab's (refuseTab, failTab) and all (shutdown) happen under mu too,
	// with the state they go with (closed, reattach).
	pending pending.Table[int64, pendingCall]
	subs    map[int]*Subscriber
	// reattach are the tabs whose next command must carry Reattach: a
	// detach the service did not ask for fenced them in the extension.
	reattach map[int]bool
	// detaches counts each tab's detached events: its debugger session's
	// generation is one more (epoch). A Session made before a detach
	// sends nothing after the link heard of it.
	detaches map[int]uint64
	// agentCDP are the tabs an agent's raw CDP reached since the debugger
	// last attached, and the agents' names (agentcdp.go).
	agentCDP map[int]map[string]bool
	hello    *extwire.Message
	closed   chan struct{}
	// worlds are the tabs' execution contexts that are egohost's own
	// isolated worlds (worlds.go).
	worlds ownWorlds

	calls    chan struct{}   // slots of the extension's calls running
	callCtx  context.Context // ends with the link: cancels those calls
	callStop context.CancelFunc
}

// New makes a link for a relay connection. It has no ID until its first
// hello.
func New(conn net.Conn, opts Options) *Link {
	if opts.MaxCalls <= 0 {
		opts.MaxCalls = 16
	}
	if opts.ReplyError == nil {
		opts.ReplyError = protocol.AsError
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Link{
		calls:    make(chan struct{}, opts.MaxCalls),
		callCtx:  ctx,
		callStop: stop,
		opts:     opts,
		conn:     conn,
		w:        nativemsg.NewWriter(conn, nativemsg.MaxHostFrame),
		log:      opts.Log,
		subs:     make(map[int]*Subscriber),
		reattach: make(map[int]bool),
		detaches: make(map[int]uint64),
		agentCDP: make(map[int]map[string]bool),
		closed:   make(chan struct{}),
	}
}

// SetID names the link (its browser ID) and logs under that name.
func (l *Link) SetID(id string, log *slog.Logger) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.id = id
	l.log = log
}

// ID is the link's browser ID, "" before its first hello.
func (l *Link) ID() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.id
}

func (l *Link) logger() *slog.Logger {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.log
}

// Hello is the browser's latest hello, nil before the first.
func (l *Link) Hello() *extwire.Message {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.hello
}

// Closed is closed when the link ends.
func (l *Link) Closed() <-chan struct{} { return l.closed }

// frameWriteTimeout bounds one frame's write to the relay: a relay that
// stops reading must not hold every caller (and the link's reader).
const frameWriteTimeout = 10 * time.Second

// writeFrame writes one frame with a deadline; a write that fails ends the
// link (the stream is out of step after a partial write).
func (l *Link) writeFrame(frame []byte) error {
	l.conn.SetWriteDeadline(time.Now().Add(frameWriteTimeout))
	err := l.w.Write(frame)
	if err != nil && !errors.Is(err, nativemsg.ErrFrameTooLarge) {
		l.conn.Close()
	}
	return err
}

// send writes one message to the extension, chunked when large.
func (l *Link) send(msg []byte) error {
	l.sendMu.Lock()
	defer l.sendMu.Unlock()
	if len(msg) <= chunkThreshold {
		return l.writeFrame(msg)
	}
	name := "c" + strconv.FormatInt(l.opts.IDs.Add(1), 10)
	count := (len(msg) + chunkPiece - 1) / chunkPiece
	for i := range count {
		piece := msg[i*chunkPiece : min(len(msg), (i+1)*chunkPiece)]
		frame, err := json.Marshal(extwire.Chunk{Chunk: name, Index: i, Count: count, Data: base64.StdEncoding.EncodeToString(piece)})
		if err != nil {
			return err
		}
		if err := l.writeFrame(frame); err != nil {
			return fmt.Errorf("send chunk %d/%d: %w", i+1, count, err)
		}
	}
	return nil
}

// Call sends a request to the extension and waits for its reply, the
// context's end, or the link's end.
func (l *Link) Call(ctx context.Context, op extwire.Op) (json.RawMessage, error) {
	c, err := l.start(ctx, op)
	if err != nil {
		return nil, err
	}
	return l.wait(ctx, c)
}

// CallSequence sends requests to the extension in order, each without
// waiting for the previous reply (the extension hands them to Chrome in
// the order they arrive), then waits for every reply. within[i], when set,
// bounds the wait for ops[i]'s reply: one that does not come in time is
// forgotten, and is not an error. It returns the replies and the first
// error.
func (l *Link) CallSequence(ctx context.Context, ops []extwire.Op, within []time.Duration) ([]json.RawMessage, error) {
	started := make([]started, 0, len(ops))
	var first error
	for _, op := range ops {
		c, err := l.start(ctx, op)
		if err != nil {
			first = err
			break
		}
		started = append(started, c)
	}
	out := make([]json.RawMessage, len(started))
	for i, c := range started {
		res, err := l.waitWithin(ctx, c, within, i)
		out[i] = res
		if err != nil && first == nil {
			first = err
		}
	}
	return out, first
}

// waitWithin waits for c, the i-th request of a sequence, within its bound
// if it has one (see CallSequence).
func (l *Link) waitWithin(ctx context.Context, c started, within []time.Duration, i int) (json.RawMessage, error) {
	var bound time.Duration
	if i < len(within) {
		bound = within[i]
	}
	var res json.RawMessage
	err := cdptab.Within(ctx, bound, func(ctx context.Context) error {
		var err error
		res, err = l.wait(ctx, c)
		return err
	})
	return res, err
}

// started is a request sent, waiting for its reply.
type started struct {
	id    int64
	name  string
	tab   int
	epoch uint64 // the tab's session generation when it was sent
	ch    chan reply
}

// errName is what a call's errors name: the CDP method for cdp calls,
// else the op.
func errName(op extwire.Op) string {
	if c, ok := op.(extwire.CDP); ok {
		return c.Method
	}
	return op.OpName()
}

// start registers and sends a request.
func (l *Link) start(ctx context.Context, op extwire.Op) (started, error) {
	ch := make(chan reply, 1)
	name := op.OpName()
	att := attemptOf(ctx, op)
	if err := ctx.Err(); err != nil {
		// Its caller gave up (or the tab it was for went): sending it
		// would only do what nobody waits for, such as attach the tab
		// again after a detach.
		att.note(false)
		e := l.newError(KindTimeout, errName(op), "%s: not sent to browser %s: %v", name, l.ID(), context.Cause(ctx))
		e.err = err
		return started{}, e
	}
	l.mu.Lock()
	select {
	case <-l.closed:
		l.mu.Unlock()
		att.note(false) // never sent
		return started{}, &Error{Kind: KindGone, Op: errName(op), Browser: l.id, msg: "browser " + l.id + " disconnected"}
	default:
	}
	if c, ok := op.(extwire.CDP); ok {
		if c.Epoch != 0 && c.Epoch != l.epochLocked(c.TabID) {
			// Made for the tab's session before a detach the link has
			// heard of: the state it was built on (contexts, objects,
			// enabled domains) is gone, and the new session is not its.
			l.mu.Unlock()
			att.note(false)
			e := l.newError(KindDetached, c.Method, "%s: not sent: the debugger session of tab %d it was meant for ended", c.Method, c.TabID)
			e.Tab, e.Reason, e.Refused = c.TabID, "not_attached", true
			return started{}, e
		}
		if l.reattach[c.TabID] {
			delete(l.reattach, c.TabID)
			c.Reattach = true
			op = c
		}
	}
	// Unique across links: a late reply to a request of a dropped link
	// (the extension answers through the relay's next connection) must
	// never match a request of the new one.
	id := l.opts.IDs.Add(1)
	tab := op.OpTab()
	epoch := l.epochLocked(tab)
	_ = l.pending.Add(id, pendingCall{tabID: tab, epoch: epoch, op: name, name: errName(op), att: att, ch: ch}) // open while l.closed is
	l.mu.Unlock()

	msg, err := extwire.EncodeRequest(id, op)
	if err == nil {
		err = l.send(msg)
	}
	if err != nil {
		// Not sent: a write that failed part way ended the link, and the
		// extension never sees a cut frame.
		l.take(id).att.note(false)
		if errors.Is(err, nativemsg.ErrFrameTooLarge) {
			return started{}, l.newError(KindTooLarge, errName(op), "%s: %v", name, err)
		}
		return started{}, l.newError(KindGone, errName(op), "%s: send to browser %s: %v", name, l.ID(), err)
	}
	return started{id: id, name: name, tab: tab, epoch: epoch, ch: ch}, nil
}

// wait waits for a started request's reply, the context's end, or the
// link's end.
func (l *Link) wait(ctx context.Context, c started) (json.RawMessage, error) {
	select {
	case r := <-c.ch:
		return r.result, r.err
	case <-ctx.Done():
		if c.tab != 0 && l.Epoch(c.tab) != c.epoch {
			// The tab's session ended while this waited, and what ended
			// the caller may be that very detach. The extension answers
			// each command of an ended session at once (failed in flight,
			// or refused by its fence: it did not run); that answer,
			// not a guess, records whether it reached the page.
			t := time.NewTimer(detachedAnswerWait)
			defer t.Stop()
			select {
			case r := <-c.ch:
				if r.err != nil {
					return nil, r.err
				}
			case <-t.C:
			case <-l.closed:
			}
		}
		l.forget(c.id)
		e := l.newError(KindTimeout, c.name, "%s: no answer from browser %s: %v", c.name, l.ID(), ctx.Err())
		e.err = ctx.Err()
		return nil, e
	}
}

// detachedAnswerWait bounds how long a caller that gave up waits for the
// answer to a command of a session that ended meanwhile (Link.wait).
const detachedAnswerWait = 2 * time.Second

// Epoch is the generation of the tab's debugger session as the link knows
// it: one more than the detached events it heard for the tab.
func (l *Link) Epoch(tab int) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.epochLocked(tab)
}

func (l *Link) epochLocked(tab int) uint64 { return l.detaches[tab] + 1 }

// forget drops a request whose caller gave up: it may still reach the
// page.
func (l *Link) forget(id int64) {
	l.take(id).att.note(true)
}

// take removes a pending request and returns it (its zero value, whose
// Attempt is nil, when it is not pending).
func (l *Link) take(id int64) pendingCall {
	p, _ := l.pending.Take(id)
	return p
}

// Serve reads the extension's frames until the connection ends. It fails
// every pending call and ends every subscriber before it returns.
func (l *Link) Serve(r *nativemsg.Reader) error {
	var err error
	for {
		var frame []byte
		frame, err = r.Read()
		if err != nil {
			break
		}
		in, uerr := decodeFrame(frame)
		if uerr != nil {
			l.logger().Warn("malformed frame from browser", "err", uerr, "bytes", len(frame))
			l.notifyError(extwire.CodeBadFrame, "malformed frame: "+uerr.Error())
			continue
		}
		l.handle(&in)
	}
	if errors.Is(err, nativemsg.ErrFrameTooLarge) || errors.Is(err, nativemsg.ErrTruncated) {
		l.notifyError(extwire.CodeBadFrame, err.Error())
	}
	l.shutdown()
	return err
}

// decodeFrame reads a frame with cdproto's JSON (version 2: four times
// encoding/json's speed on a large result, a snapshot's walk, which is then
// decoded with it too), and with encoding/json when that refuses the frame
// (invalid UTF-8, a name twice), so that such a frame is still taken. Names
// must be spelled as PROTOCOL.md spells them: one in another case is
// ignored, where encoding/json matched it.
func decodeFrame(frame []byte) (extwire.Message, error) {
	var in extwire.Message
	if jsonv2.Unmarshal(frame, &in) == nil {
		return in, nil
	}
	in = extwire.Message{}
	err := json.Unmarshal(frame, &in)
	return in, err
}

// notifyError tells the extension (through the relay) about a problem with
// what it sent; the popup shows it.
func (l *Link) notifyError(code, msg string) {
	b, _ := json.Marshal(extwire.Notice{Event: extwire.EventError, Code: code, Message: msg})
	_ = l.send(b)
}

func (l *Link) handle(in *extwire.Message) {
	if in.Call != nil && in.ID == nil {
		l.serveCall(in)
		return
	}
	if in.ID != nil {
		p, ok := l.pending.Take(*in.ID)
		if !ok {
			return // the caller gave up (timeout); the reply is late
		}
		p.att.note(in.Error == nil || !in.Error.Refused)
		if in.Error != nil {
			e := extensionError(p.name, in.Error)
			e.Browser, e.Tab = l.ID(), p.tabID
			p.ch <- reply{err: e}
		} else {
			p.ch <- reply{result: in.Result}
		}
		return
	}
	// refused are the tab's commands a refused detach answers: none of
	// them ran. They are answered after the detach is handled (the tab's
	// state dropped, by Options.Event), so a caller that runs again finds
	// the tab as after any detach, and before the subscribers hear of it:
	// a call that a subscriber ends on a detach has by then recorded that
	// its commands did not run (Attempt), so it may run again.
	var refused []pendingCall
	switch in.Event {
	case "hello":
		l.mu.Lock()
		first := l.hello == nil
		if !first && in.BrowserKey != l.hello.BrowserKey {
			l.log.Warn("a later hello names another browser key: kept the first", "key", in.BrowserKey)
		}
		l.hello = in
		l.mu.Unlock()
		if first {
			l.opts.Hello(in)
		}
		level := slog.LevelDebug // the extension says hello again after every relay reconnect
		if first {
			level = slog.LevelInfo
		}
		l.logger().Log(context.Background(), level, "browser hello", "extension", in.ExtensionID, "version", in.Version, "tabs", len(in.Tabs))
		b, _ := json.Marshal(extwire.Notice{Event: extwire.EventWelcome, BrowserID: l.ID(), ServiceVersion: l.opts.ServiceVersion, ServicePID: l.opts.ServicePID})
		if err := l.send(b); err != nil {
			l.logger().Warn("send welcome", "err", err)
		}
	case "detached":
		// The tab's commands still pending are answered by the extension
		// (failed when in flight, refused when they came after the
		// detach), which knows which ran; a refused detach answers them
		// here at once (refuseTab), as none ran.
		refused = l.detached(in)
	case "tab.removed":
		l.failTab(in.TabID, nil, func(p pendingCall) *Error {
			e := newError(KindTabClosed, p.name, "tab %d was closed", in.TabID)
			e.Tab = in.TabID
			return e
		})
		l.mu.Lock()
		delete(l.reattach, in.TabID) // tab IDs are not reused
		delete(l.detaches, in.TabID)
		delete(l.agentCDP, in.TabID)
		l.mu.Unlock()
	}
	l.worlds.event(in)
	if l.opts.Event != nil {
		l.opts.Event(in)
	}
	for _, p := range refused {
		p.att.note(false)
		e := l.newError(KindDetached, p.name, "%s: debugger detached from tab %d (%s): Chrome refused the command, it did not run", p.name, in.TabID, in.Reason)
		e.Tab, e.Reason, e.Refused = in.TabID, in.Reason, true
		p.ch <- reply{err: e}
	}
	l.mu.Lock()
	var targets []*Subscriber
	for _, s := range l.subs {
		if s.Filter(in) {
			targets = append(targets, s)
		}
	}
	l.mu.Unlock()
	for _, s := range targets {
		s.Deliver(in)
	}
}

// detached notes a detach of the tab: a new session generation, and its
// next command carries Reattach (the extension fenced the tab unless the
// service asked for the detach). After a refused detach it takes the
// tab's pending commands: the extension refuses every command of the tab
// sent before the service got the event (Chrome refused those it sent on
// the gone session, the fence the others), so none of them ran.
func (l *Link) detached(in *extwire.Message) []pendingCall {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.detaches[in.TabID]++
	l.reattach[in.TabID] = true
	delete(l.agentCDP, in.TabID) // Chrome ended the session, and what was left on it
	if in.Refused {
		return l.pending.TakeIf(func(p pendingCall) bool { return p.tabID == in.TabID && p.op == "cdp" })
	}
	// A bound on the extension's answers: a request of the tab sent
	// before this detach and still pending after detachedAnswerWait fails
	// as one that may have run.
	tab, reason, before := in.TabID, in.Reason, l.epochLocked(in.TabID)
	time.AfterFunc(detachedAnswerWait, func() {
		l.failTab(tab, func(p pendingCall) bool { return p.epoch < before }, func(p pendingCall) *Error {
			e := newError(KindDetached, p.name, "debugger detached from tab %d: %s", tab, reason)
			e.Tab, e.Reason = tab, reason
			return e
		})
	})
	return nil
}

// failTab fails the pending calls of one tab that match (all when match
// is nil) with the errors fail makes.
func (l *Link) failTab(tabID int, match func(pendingCall) bool, fail func(pendingCall) *Error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, p := range l.pending.TakeIf(func(p pendingCall) bool { return p.tabID == tabID && tabID != 0 && (match == nil || match(p)) }) {
		p.att.note(true) // it may have run before the detach
		e := fail(p)
		e.Browser = l.id
		p.ch <- reply{err: e}
	}
}

// newError is an Error of a call on this link.
func (l *Link) newError(kind Kind, op, format string, args ...any) *Error {
	e := newError(kind, op, format, args...)
	e.Browser = l.ID()
	return e
}

// errClosed closes the pending table: start checks l.closed first, so no
// call sees it.
var errClosed = errors.New("link closed")

func (l *Link) shutdown() {
	l.mu.Lock()
	select {
	case <-l.closed:
		l.mu.Unlock()
		return
	default:
	}
	close(l.closed)
	l.callStop()
	pending := l.pending.Close(errClosed)
	subs := l.subs
	l.subs = make(map[int]*Subscriber)
	id := l.id
	l.mu.Unlock()
	for _, p := range pending {
		p.att.note(true) // sent: it may have run
		p.ch <- reply{err: &Error{Kind: KindGone, Op: p.name, Browser: id, msg: p.op + ": browser " + id + " disconnected"}}
	}
	for _, s := range subs {
		s.Done()
	}
	if l.opts.Closed != nil {
		l.opts.Closed()
	}
	l.conn.Close()
}

// Subscribe adds a subscriber and returns the func that removes it.
func (l *Link) Subscribe(s *Subscriber) (cancel func()) {
	l.mu.Lock()
	select {
	case <-l.closed:
		l.mu.Unlock()
		s.Done()
		return func() {}
	default:
	}
	l.nextSub++
	n := l.nextSub
	l.subs[n] = s
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		_, ok := l.subs[n]
		delete(l.subs, n)
		l.mu.Unlock()
		if ok {
			s.Done()
		}
	}
}

// Close drops the connection: Serve then returns and ends the link.
func (l *Link) Close() error { return l.conn.Close() }
