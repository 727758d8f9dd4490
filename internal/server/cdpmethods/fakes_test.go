package cdpmethods

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/cdp"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/cdpsub"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/protocol"
)

// fakeService reads the tab's top URL from top.
type fakeService struct {
	top string
}

func (s *fakeService) TopURL(context.Context, cdp.Session) (string, error) { return s.top, nil }

// fakeCall is a caller: paired (held to the checks) or the owner. Its
// origin rules deny the origins that end in denied; its policy asks about
// kinds, and the person answers with answer.
type fakeCall struct {
	paired bool
	link   *fakeLink
	tab    int
	err    error // Target's
	denied string
	kinds  []confirm.Kind
	answer error
	subs   *fakeSubs

	targeted []protocol.Target
	asked    []protocol.Confirm
	askedOn  []string // the URLs asked about
}

// deny is the fake's origin rules: an origin that ends in c.denied is refused.
func (c *fakeCall) deny(rawURL, what string) error {
	if c.denied == "" || !strings.HasSuffix(pairing.Host(rawURL), c.denied) {
		return nil
	}
	return protocol.Errorf(protocol.CodeForbiddenOriginScope, "cdp.send: %s is an origin agent %q may not %s", pairing.Origin(rawURL), "bot", what)
}

func (c *fakeCall) Paired() bool { return c.paired }

func (c *fakeCall) Target(_ context.Context, t protocol.Target) (Link, int, error) {
	c.targeted = append(c.targeted, t)
	if c.err != nil {
		return nil, 0, c.err
	}
	return c.link, c.tab, nil
}

func (c *fakeCall) CheckDestination(dest string) error  { return c.deny(dest, "load") }
func (c *fakeCall) CheckOriginRead(rawURL string) error { return c.deny(rawURL, "read") }
func (c *fakeCall) HasOriginRules() bool                { return c.denied != "" }

// Reach is the fake's origin rules frame by frame (every paired agent has
// one: the schemes it was not granted).
func (c *fakeCall) Reach() cdptab.Reach {
	if !c.paired {
		return nil
	}
	return func(rawURL, _ string) (bool, string) {
		if strings.HasPrefix(rawURL, "chrome-extension:") {
			return false, "scheme"
		}
		if c.deny(rawURL, "reach") != nil {
			return false, "deny"
		}
		return true, ""
	}
}
func (c *fakeCall) Subscriptions() Subscriptions { return c.subs }

func (c *fakeCall) MayAsk(kind confirm.Kind) bool {
	for _, k := range c.kinds {
		if k == kind {
			return true
		}
	}
	return false
}

func (c *fakeCall) Confirm(_ context.Context, kind confirm.Kind, actURL string, q protocol.Confirm) error {
	if !c.MayAsk(kind) {
		return errors.New("asked about a kind the policy does not name")
	}
	c.asked = append(c.asked, q)
	c.askedOn = append(c.askedOn, actURL)
	return c.answer
}

// fakeLink is a browser with one tab: its session (and children) are
// scripted, its ops recorded and answered with reply.
type fakeLink struct {
	cdpsub.Link // what a subscription listens on: never called here

	id       string
	url      string            // the tab's URL
	sess     *cdpfake.Session  // the tab's session, with its children
	pageErr  error             // Page's
	requests map[string]string // the tab's record: request ID → URL
	frames   []string          // the URLs of the tab's frames
	own      map[string]bool   // egohost's worlds: "session/context ID" and unique IDs
	reaches  int               // Withheld's calls
	reply    json.RawMessage

	ops []extwire.CDP
}

func (l *fakeLink) ID() string                                  { return l.id }
func (l *fakeLink) Session(tab int) Session                     { return l.sess }
func (l *fakeLink) TabURL(context.Context, int) (string, error) { return l.url, nil }

func (l *fakeLink) Page(context.Context, int) (Page, error) {
	if l.pageErr != nil {
		return nil, l.pageErr
	}
	return l.sess, nil
}

func (l *fakeLink) RequestURL(_ int, requestID string) (string, bool) {
	u, ok := l.requests[requestID]
	return u, ok
}

func (l *fakeLink) Withheld(_ context.Context, _ int, reach cdptab.Reach) ([]string, error) {
	l.reaches++
	var out []string
	for _, u := range l.frames {
		if ok, _ := reach(u, ""); !ok {
			out = append(out, pairing.Origin(u))
		}
	}
	return out, nil
}

func (l *fakeLink) OwnContext(_ int, session string, id int64) bool {
	return l.own[session+"/"+strconv.FormatInt(id, 10)]
}

func (l *fakeLink) OwnUniqueContext(unique string) bool { return l.own[unique] }

func (l *fakeLink) Call(_ context.Context, op extwire.Op) (json.RawMessage, error) {
	l.ops = append(l.ops, op.(extwire.CDP))
	return l.reply, nil
}

// fakeSubs records what the methods ask of a connection's subscriptions.
type fakeSubs struct {
	subscribed []string // browser/tab/methods
	link       cdpsub.Link
	names      map[string]bool // the subscriptions there are
	noted      []string        // NoteCDPSend's browser/tab/session/method/params
}

func (s *fakeSubs) Subscribe(_ context.Context, l cdpsub.Link, browser string, tab int, methods []string) (protocol.CDPSubscribeResult, error) {
	s.link = l
	s.subscribed = append(s.subscribed, fmtArgs(browser, tab, strings.Join(methods, ",")))
	return protocol.CDPSubscribeResult{Subscription: "s1"}, nil
}

func (s *fakeSubs) Unsubscribe(name string) bool {
	ok := s.names[name]
	delete(s.names, name)
	return ok
}

func (s *fakeSubs) NoteCDPSend(browser string, tab int, sessionID, method string, params json.RawMessage) {
	s.noted = append(s.noted, fmtArgs(browser, tab, sessionID, method, string(params)))
}

func fmtArgs(args ...any) string {
	b, _ := json.Marshal(args)
	return string(b)
}
