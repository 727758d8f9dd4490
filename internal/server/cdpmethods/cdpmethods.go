// Package cdpmethods runs the agents' raw CDP methods (cdp.send,
// cdp.subscribe, cdp.unsubscribe; PROTOCOL.md §3.7.1) and decides what a
// caller may send a tab through them: a paired agent's allow-list of
// methods with the checks of their params, the child sessions it may
// name, and the one navigation that crashes the browser, refused to
// everyone. The service resolves the tab, judges the caller against its
// origin rules and asks the person (Call); the subscriptions run in
// internal/server/cdpsub.
package cdpmethods

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/cdpsub"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/protocol"
)

// Call is one call of a raw CDP method as the service runs it: who makes
// it, and the service's judgements of that caller.
type Call interface {
	// Paired reports whether the caller is a paired agent, whom the
	// allow-list, the origin rules and the confirmations hold to.
	Paired() bool
	// Target resolves the tab the call is for and checks that the caller
	// may act on it: its browser's link and the tab's ID.
	Target(ctx context.Context, t protocol.Target) (Link, int, error)
	// CheckDestination refuses a URL the caller may not load.
	CheckDestination(dest string) error
	// CheckOriginRead refuses a URL whose origin the caller may not read.
	CheckOriginRead(rawURL string) error
	// HasOriginRules reports whether the caller's origin rules allow or
	// deny anything.
	HasOriginRules() bool
	// Reach is what the caller may reach of a tab's documents, frame by
	// frame (nil: everything).
	Reach() cdptab.Reach
	// MayAsk reports whether the call may wait for the person about an
	// act of kind.
	MayAsk(kind confirm.Kind) bool
	// Confirm asks the person about an act of kind on actURL's origin
	// when the caller's policy names it there: nil when nothing asks or
	// the person said yes.
	Confirm(ctx context.Context, kind confirm.Kind, actURL string, q protocol.Confirm) error
	// Subscriptions are the cdp.subscribe subscriptions of the caller's
	// connection.
	Subscriptions() Subscriptions
}

// Subscriptions are a connection's subscriptions to tabs' events
// (*cdpsub.Set).
type Subscriptions interface {
	Subscribe(ctx context.Context, l cdpsub.Link, browser string, tab int, methods []string) (protocol.CDPSubscribeResult, error)
	Unsubscribe(name string) bool
	// NoteCDPSend notes a call sent to a tab: what a resumed subscription
	// enables again.
	NoteCDPSend(browser string, tab int, sessionID, method string, params json.RawMessage)
}

// Link is the browser link of the tab a call reached: as a subscription
// listens on it (cdpsub.Link; its Call sends the tab a CDP op), and what
// the checks read of its tabs.
type Link interface {
	cdpsub.Link
	// ID is the browser's ID.
	ID() string
	// Session is the tab's own CDP session through the link.
	Session(tab int) Session
	// Page opens the tab's page (attaching it): its attached children.
	Page(ctx context.Context, tab int) (Page, error)
	// TabURL is the tab's URL now.
	TabURL(ctx context.Context, tab int) (string, error)
	// RequestURL is the URL of a request the tab's record holds.
	RequestURL(tab int, requestID string) (string, bool)
	// Withheld returns the origins of the tab's frames (every session's)
	// that reach refuses, and of the frames inside them.
	Withheld(ctx context.Context, tab int, reach cdptab.Reach) ([]string, error)
	// OwnContext reports whether an execution context of the tab's
	// session ("" its own) is one of egohost's own isolated worlds;
	// OwnUniqueContext the same of a context's system-unique ID.
	OwnContext(tab int, session string, id int64) bool
	OwnUniqueContext(unique string) bool
}

// Session is a tab's CDP session and its child sessions.
type Session interface {
	cdp.Session
	Child(id target.SessionID) cdp.Session
}

// Page is what the child session check reads of a tab's page
// (*cdptab.Page): the children egohost attached, and their sessions.
type Page interface {
	Children() []cdptab.Child
	Child(id target.SessionID) cdp.Session
}

// Service is what the methods need of the service beyond a call.
type Service interface {
	// TopURL is the URL of the document the tab shows (its top frame's).
	TopURL(ctx context.Context, sess cdp.Session) (string, error)
}

// Methods runs the raw CDP methods.
type Methods struct {
	svc Service
	log *slog.Logger
}

// New returns the raw CDP methods of svc; log says when a call runs again
// (browserlink.Again).
func New(svc Service, log *slog.Logger) *Methods { return &Methods{svc: svc, log: log} }

// Send is cdp.send: one CDP command to a tab (or a child session of it),
// once the caller may send it there.
func (m *Methods) Send(ctx context.Context, c Call, p protocol.CDPSendParams) (any, error) {
	if !domainName(p.Method) {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "cdp.send: method %q is not Domain.method", p.Method)
	}
	if len(p.Params) > 0 && p.Params[0] != '{' && string(p.Params) != "null" {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "cdp.send: params must be a JSON object")
	}
	if !oneReading(p.Params) {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "cdp.send: params must be JSON that reads one way: no name twice in an object, valid UTF-8")
	}
	if err := checkMethod(c, p.Method); err != nil {
		return nil, err
	}
	if p.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(p.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	// browserlink.Again called directly, not through Service: the closure
	// stays on the stack of the relayed path's every call.
	return browserlink.Again(ctx, m.log, "cdp.send", func(ctx context.Context) (any, error) {
		l, id, err := c.Target(ctx, p.Target)
		if err != nil {
			return nil, err
		}
		if err := m.checkParams(ctx, c, l, id, p); err != nil {
			return nil, err
		}
		op := extwire.CDP{TabID: id, Method: p.Method, SessionID: p.SessionID}
		if len(p.Params) > 0 && string(p.Params) != "null" {
			op.Params = p.Params
		}
		raw, err := l.Call(ctx, op)
		if err != nil {
			return nil, err
		}
		c.Subscriptions().NoteCDPSend(l.ID(), id, p.SessionID, p.Method, op.Params) // what a resumed subscription enables again
		if len(raw) == 0 {
			raw = json.RawMessage("{}")
		}
		return raw, nil
	})
}

// oneReading says whether params read one way only, to Chrome and to the
// checks: no name twice in an object (which one counts would be each
// parser's choice), valid JSON and UTF-8 (RFC 7493). One pass that builds
// nothing (0.5 ms a MB, where decoding into a tree took 0.9–1.2 ms and a
// copy): every cdp.send's params go through it. The checks read names as
// Chrome does, case and all (jsonv2): a "URL" beside a "url" is another
// member, which Chrome ignores.
func oneReading(params json.RawMessage) bool {
	return len(params) == 0 || jsonv2.Value(params).IsValid()
}

// domainName reports whether name is a CDP command's or event's name:
// Domain.name.
func domainName(name string) bool {
	domain, rest, ok := strings.Cut(name, ".")
	return ok && domain != "" && rest != ""
}

// Subscribe is cdp.subscribe: the tab's events, as notifications.
func (m *Methods) Subscribe(ctx context.Context, c Call, p protocol.CDPSubscribeParams) (any, error) {
	for _, name := range p.Methods {
		if !domainName(name) {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "cdp.subscribe: method %q is not Domain.event (leave methods out for every event)", name)
		}
	}
	if c.Paired() && c.HasOriginRules() {
		// A subscription streams every event of the tab, whichever
		// frame or later document it comes from, before anything could
		// judge it: a denied frame's requests (their cookies and
		// headers), its console, its DOM; and the tab's next document,
		// wherever a link or a redirect takes it.
		return nil, protocol.Errorf(protocol.CodeForbiddenOriginScope, "cdp.subscribe: this agent has origin rules, and a subscription would stream every frame's and every later document's events (requests with their cookies, console, DOM), which the rules could not hold back: use console.list and network.list, which they filter").
			With("reason", "cdp_events")
	}
	l, id, err := c.Target(ctx, p.Target)
	if err != nil {
		return nil, err
	}
	return c.Subscriptions().Subscribe(ctx, l, l.ID(), id, p.Methods)
}

// Unsubscribe is cdp.unsubscribe: it ends one of the connection's
// subscriptions.
func (m *Methods) Unsubscribe(_ context.Context, c Call, p protocol.CDPUnsubscribeParams) (any, error) {
	if !c.Subscriptions().Unsubscribe(p.Subscription) {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "no subscription %q", p.Subscription)
	}
	return map[string]any{"unsubscribed": true}, nil
}
