package service

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

	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
)

// chunkThreshold is the largest message sent to the extension in one frame;
// larger ones go as base64 chunks of chunkPiece raw bytes (PROTOCOL.md §2.4).
const (
	chunkThreshold = 786432
	chunkPiece     = 589824 // divisible by 3: every piece is whole base64
)

// extError is an error reply from the extension (PROTOCOL.md §2.2).
type extError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Reason  string `json:"reason,omitempty"`
	CDPCode *int64 `json:"cdpCode,omitempty"`
}

// inbound is any frame from the extension (or the relay): a reply or an event.
type inbound struct {
	ID        *int64          `json:"id,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *extError       `json:"error,omitempty"`
	Event     string          `json:"event,omitempty"`
	TabID     int             `json:"tabId,omitempty"`
	WindowID  int             `json:"windowId,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	Tab       *protocol.Tab   `json:"tab,omitempty"`
	// download (extension/downloads.js)
	Download *downloadItem `json:"download,omitempty"`
	// hello
	ExtensionID string         `json:"extensionId,omitempty"`
	Version     string         `json:"version,omitempty"`
	UserAgent   string         `json:"userAgent,omitempty"`
	BrowserKey  string         `json:"browserKey,omitempty"` // the profile's stable identity (extension/identity.js)
	Tabs        []protocol.Tab `json:"tabs,omitempty"`
}

type reply struct {
	result json.RawMessage
	err    error
}

type pendingCall struct {
	tabID int
	op    string
	name  string // what errors name: the CDP method for cdp calls, else op
	ch    chan reply
}

// subscriber receives a link's events that its filter accepts. deliver must
// not block; done is called once when the link closes or the subscriber
// is removed.
type subscriber struct {
	filter  func(*inbound) bool
	deliver func(*inbound)
	done    func()
}

// link is one connected browser (one relay connection, one profile).
type link struct {
	// id and key are set once, by register at the first hello, in the
	// reader's goroutine; agents only reach a link after that.
	id        string
	key       string // the profile's browser key, "" when it sent none
	register  func(*link, *inbound)
	relayPID  int
	origin    string
	conn      net.Conn
	w         *nativemsg.Writer
	log       *slog.Logger
	connected time.Time

	sendMu sync.Mutex // keeps one message's chunks together

	ids *atomic.Int64 // request and chunk numbers, unique across links and restarts

	mu       sync.Mutex
	nextSub  int
	pending  map[int64]pendingCall
	subs     map[int]*subscriber
	hello    *inbound
	closed   chan struct{}
	closeErr error
	tabs     map[int]*tabState
	refs     *refmap.Counter // shared by every tab of every link: refs never repeat
}

// newLink makes a link for a relay connection. It has no ID until its
// first hello, when it calls register (which sets id, key and log).
func newLink(conn net.Conn, origin string, pid int, ids *atomic.Int64, refs *refmap.Counter, log *slog.Logger, register func(*link, *inbound)) *link {
	return &link{
		ids:       ids,
		register:  register,
		relayPID:  pid,
		origin:    origin,
		conn:      conn,
		w:         nativemsg.NewWriter(conn, nativemsg.MaxHostFrame),
		log:       log.With("relayPid", pid),
		connected: time.Now(),
		pending:   make(map[int64]pendingCall),
		subs:      make(map[int]*subscriber),
		closed:    make(chan struct{}),
		tabs:      make(map[int]*tabState),
		refs:      refs,
	}
}

// info describes the link for browsers.list.
func (l *link) info() protocol.Browser {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := protocol.Browser{ID: l.id, ConnectedAt: l.connected, RelayPID: l.relayPID}
	if l.hello != nil {
		b.ExtensionID, b.Version, b.UserAgent = l.hello.ExtensionID, l.hello.Version, l.hello.UserAgent
	}
	return b
}

// frameWriteTimeout bounds one frame's write to the relay: a relay that
// stops reading must not hold every caller (and the link's reader).
const frameWriteTimeout = 10 * time.Second

// writeFrame writes one frame with a deadline; a write that fails ends the
// link (the stream is out of step after a partial write).
func (l *link) writeFrame(frame []byte) error {
	l.conn.SetWriteDeadline(time.Now().Add(frameWriteTimeout))
	err := l.w.Write(frame)
	if err != nil && !errors.Is(err, nativemsg.ErrFrameTooLarge) {
		l.conn.Close()
	}
	return err
}

// send writes one message to the extension, chunked when large.
func (l *link) send(msg []byte) error {
	l.sendMu.Lock()
	defer l.sendMu.Unlock()
	if len(msg) <= chunkThreshold {
		return l.writeFrame(msg)
	}
	name := "c" + strconv.FormatInt(l.ids.Add(1), 10)
	count := (len(msg) + chunkPiece - 1) / chunkPiece
	for i := range count {
		piece := msg[i*chunkPiece : min(len(msg), (i+1)*chunkPiece)]
		frame, err := json.Marshal(struct {
			Chunk string `json:"chunk"`
			Index int    `json:"index"`
			Count int    `json:"count"`
			Data  string `json:"data"`
		}{name, i, count, base64.StdEncoding.EncodeToString(piece)})
		if err != nil {
			return err
		}
		if err := l.writeFrame(frame); err != nil {
			return fmt.Errorf("send chunk %d/%d: %w", i+1, count, err)
		}
	}
	return nil
}

// call sends a request with op and fields to the extension and waits for
// its reply, the context's end, or the link's end.
func (l *link) call(ctx context.Context, op string, tabID int, fields map[string]any) (json.RawMessage, error) {
	ch := make(chan reply, 1)
	l.mu.Lock()
	select {
	case <-l.closed:
		l.mu.Unlock()
		return nil, protocol.Errorf(protocol.CodeBrowserGone, "browser %s disconnected", l.id)
	default:
	}
	// Unique across links: a late reply to a request of a dropped link
	// (the extension answers through the relay's next connection) must
	// never match a request of the new one.
	id := l.ids.Add(1)
	name := op
	if m, ok := fields["method"].(string); ok && op == "cdp" {
		name = m
	}
	l.pending[id] = pendingCall{tabID: tabID, op: op, name: name, ch: ch}
	l.mu.Unlock()

	req := make(map[string]any, len(fields)+2)
	for k, v := range fields {
		req[k] = v
	}
	req["id"] = id
	req["op"] = op
	msg, err := json.Marshal(req)
	if err == nil {
		err = l.send(msg)
	}
	if err != nil {
		l.forget(id)
		if errors.Is(err, nativemsg.ErrFrameTooLarge) {
			return nil, protocol.Errorf(protocol.CodeTooLarge, "%s: %v", op, err)
		}
		return nil, protocol.Errorf(protocol.CodeBrowserGone, "%s: send to browser %s: %v", op, l.id, err)
	}
	select {
	case r := <-ch:
		return r.result, r.err
	case <-ctx.Done():
		l.forget(id)
		return nil, &callTimeout{pe: protocol.Errorf(protocol.CodeTimeout, "%s: no answer from browser %s: %v", op, l.id, ctx.Err()), ctxErr: ctx.Err()}
	}
}

func (l *link) forget(id int64) {
	l.mu.Lock()
	delete(l.pending, id)
	l.mu.Unlock()
}

// serve reads the extension's frames until the connection ends. It fails
// every pending call and ends every subscriber before it returns.
func (l *link) serve(r *nativemsg.Reader) error {
	var err error
	for {
		var frame []byte
		frame, err = r.Read()
		if err != nil {
			break
		}
		var in inbound
		if uerr := json.Unmarshal(frame, &in); uerr != nil {
			l.log.Warn("malformed frame from browser", "err", uerr, "bytes", len(frame))
			l.notifyError(protocol.CodeBadFrame, "malformed frame: "+uerr.Error())
			continue
		}
		l.handle(&in)
	}
	if errors.Is(err, nativemsg.ErrFrameTooLarge) || errors.Is(err, nativemsg.ErrTruncated) {
		l.notifyError(protocol.CodeBadFrame, err.Error())
	}
	l.shutdown(err)
	return err
}

// notifyError tells the extension (through the relay) about a problem with
// what it sent; the popup shows it.
func (l *link) notifyError(code protocol.Code, msg string) {
	b, _ := json.Marshal(map[string]any{"event": "error", "code": code.Name(), "message": msg})
	_ = l.send(b)
}

func (l *link) handle(in *inbound) {
	if in.ID != nil {
		l.mu.Lock()
		p, ok := l.pending[*in.ID]
		delete(l.pending, *in.ID)
		l.mu.Unlock()
		if !ok {
			return // the caller gave up (timeout); the reply is late
		}
		if in.Error != nil {
			p.ch <- reply{err: extensionError(p.name, in.Error)}
		} else {
			p.ch <- reply{result: in.Result}
		}
		return
	}
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
			l.register(l, in)
		}
		level := slog.LevelDebug // the extension says hello again after every relay reconnect
		if first {
			level = slog.LevelInfo
		}
		l.log.Log(context.Background(), level, "browser hello", "extension", in.ExtensionID, "version", in.Version, "tabs", len(in.Tabs))
		b, _ := json.Marshal(map[string]any{"event": "welcome", "browserId": l.id, "serviceVersion": Version, "servicePid": pidOf()})
		if err := l.send(b); err != nil {
			l.log.Warn("send welcome", "err", err)
		}
	case "detached":
		l.failTab(in.TabID, protocol.Errorf(protocol.CodeDetached, "debugger detached from tab %d: %s", in.TabID, in.Reason).With("reason", in.Reason))
		l.dropTab(in.TabID)
	case "cdp":
		if in.SessionID == "" {
			l.trackDialog(in)
		}
		l.record(in)
	case "tab.removed":
		l.failTab(in.TabID, protocol.Errorf(protocol.CodeTabNotFound, "tab %d was closed", in.TabID))
		l.dropTab(in.TabID)
	}
	l.mu.Lock()
	var targets []*subscriber
	for _, s := range l.subs {
		if s.filter(in) {
			targets = append(targets, s)
		}
	}
	l.mu.Unlock()
	for _, s := range targets {
		s.deliver(in)
	}
}

// failTab fails the pending CDP calls of one tab.
func (l *link) failTab(tabID int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, p := range l.pending {
		if p.tabID == tabID && tabID != 0 {
			delete(l.pending, id)
			p.ch <- reply{err: err}
		}
	}
}

func (l *link) shutdown(cause error) {
	l.mu.Lock()
	select {
	case <-l.closed:
		l.mu.Unlock()
		return
	default:
	}
	l.closeErr = cause
	close(l.closed)
	pending := l.pending
	l.pending = make(map[int64]pendingCall)
	subs := l.subs
	l.subs = make(map[int]*subscriber)
	tabs := l.tabs
	l.tabs = make(map[int]*tabState)
	l.mu.Unlock()
	for _, p := range pending {
		p.ch <- reply{err: protocol.Errorf(protocol.CodeBrowserGone, "%s: browser %s disconnected", p.op, l.id)}
	}
	for _, s := range subs {
		s.done()
	}
	for _, t := range tabs {
		t.close()
	}
	l.conn.Close()
}

// subscribe adds a subscriber and returns the func that removes it.
func (l *link) subscribe(s *subscriber) (cancel func()) {
	l.mu.Lock()
	select {
	case <-l.closed:
		l.mu.Unlock()
		s.done()
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
			s.done()
		}
	}
}

// extensionError maps an extension error reply to a protocol error.
func extensionError(op string, e *extError) error {
	var code protocol.Code
	switch e.Code {
	case "no_tab":
		code = protocol.CodeTabNotFound
	case "already_attached":
		code = protocol.CodeAlreadyAttached
	case "attach_failed":
		code = protocol.CodeAttachFailed
	case "detached":
		code = protocol.CodeDetached
	case "cdp_error":
		code = protocol.CodeCDP
	case "too_large":
		code = protocol.CodeTooLarge
	case "bad_request", "unknown_op":
		code = protocol.CodeInvalidParams
	default:
		code = protocol.CodeExtension
	}
	pe := protocol.Errorf(code, "%s: %s", op, e.Message).With("extensionCode", e.Code)
	if e.Reason != "" {
		pe.With("reason", e.Reason)
	}
	if e.CDPCode != nil {
		pe.With("cdpCode", *e.CDPCode)
	}
	return pe
}

// callTimeout is a call whose context ended: it is a protocol error for
// the agent and matches the context's error with errors.Is, so waiting
// helpers know their deadline passed (and keep the cause they saw before).
type callTimeout struct {
	pe     *protocol.Error
	ctxErr error
}

func (e *callTimeout) Error() string   { return e.pe.Error() }
func (e *callTimeout) Unwrap() []error { return []error{e.pe, e.ctxErr} }
