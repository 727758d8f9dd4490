package tabdata

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/protocol"
)

// testMethods are the methods, their reads of a page bounded by a second.
func testMethods() *Methods { return New(slog.New(slog.DiscardHandler), time.Second) }

// codeOf is err's code on the wire, 0 for none.
func codeOf(err error) protocol.Code {
	if err == nil {
		return 0
	}
	return protocol.CodeOf(err)
}

// fakeCall is a caller: paired (held to its tabs and rules) or the
// owner. Its rules deny the origins whose host ends in denied; its policy
// asks about kinds, and the person answers with answer.
type fakeCall struct {
	paired  bool
	browser *fakeBrowser
	tab     int
	tabs    *fakeTab
	err     error // Browser's, Target's and Tab's
	actErr  error // Act's
	denied  string
	kinds   []confirm.Kind
	answer  error
	clicked []string // the elements Act's runner clicked, as "op element"

	asked   []protocol.Confirm
	askedOn []string // the URLs asked about
}

func (c *fakeCall) Paired() bool { return c.paired }

func (c *fakeCall) Browser(context.Context, string) (Browser, error) {
	if c.err != nil {
		return nil, c.err
	}
	return c.browser, nil
}

func (c *fakeCall) Target(context.Context, protocol.Target) (Browser, int, error) {
	if c.err != nil {
		return nil, 0, c.err
	}
	return c.browser, c.tab, nil
}

func (c *fakeCall) Tab(context.Context, protocol.Target, string) (Tab, error) {
	if c.err != nil {
		return nil, c.err
	}
	return c.tabs, nil
}

func (c *fakeCall) Act(ctx context.Context, _ protocol.Target, op string, fn func(ctx context.Context, r actwire.Runner) (any, error)) (any, error) {
	if c.actErr != nil {
		return nil, c.actErr
	}
	return fn(ctx, clicker{op: op, c: c})
}

func (c *fakeCall) Reach() cdptab.Reach {
	if !c.paired {
		return nil
	}
	return func(url, _ string) (bool, string) {
		if c.denied != "" && strings.HasSuffix(pairing.Host(url), c.denied) {
			return false, "deny " + c.denied
		}
		return true, ""
	}
}

func (c *fakeCall) CheckOriginRead(rawURL string) error {
	if c.Reach().Check(rawURL, "", false) != nil {
		return protocol.Errorf(protocol.CodeForbiddenOriginScope, "%s is an origin agent %q may not read", pairing.Origin(rawURL), "bot")
	}
	return nil
}

func (c *fakeCall) MayAsk(kind confirm.Kind) bool { return slices.Contains(c.kinds, kind) }

// Confirm asks only about the kinds the policy names, as the service's
// does: nil for the others.
func (c *fakeCall) Confirm(_ context.Context, kind confirm.Kind, actURL string, q protocol.Confirm) error {
	if !c.MayAsk(kind) {
		return nil
	}
	c.asked = append(c.asked, q)
	c.askedOn = append(c.askedOn, actURL)
	return c.answer
}

// clicker is the runner of Act: it notes what it clicks, with the
// settle it was given.
type clicker struct {
	actwire.Runner // nil: the download clicks, and nothing else
	op             string
	c              *fakeCall
}

func (r clicker) Click(_ context.Context, target string, o actions.ClickOptions) (*actions.Result, error) {
	settle := "settles"
	if o.Settle != nil && o.Settle.Off {
		settle = "no settle"
	}
	r.c.clicked = append(r.c.clicked, r.op+" "+target+" "+settle)
	return &actions.Result{}, nil
}

// fakeBrowser is a browser whose events are scripted: Subscribe hands
// the subscriber events, after Downloads tracked each as the link does,
// and then ends the subscription when gone.
type fakeBrowser struct {
	sess      *cdpfake.Session
	urls      map[int]string
	seen      map[int]bool // the tabs the caller may see
	downloads page.Downloads
	events    []*extwire.Message
	gone      bool
	record    *page.Record
	recordErr error
	discard   error // the discard op's answer

	ops []extwire.Op
}

func (b *fakeBrowser) ID() string                 { return "b1" }
func (b *fakeBrowser) Session(int) cdp.Session    { return b.sess }
func (b *fakeBrowser) Sees(tab int) bool          { return b.seen[tab] }
func (b *fakeBrowser) Downloads() *page.Downloads { return &b.downloads }
func (b *fakeBrowser) TabURL(tab int) (string, bool) {
	u, ok := b.urls[tab]
	return u, ok
}

func (b *fakeBrowser) Record(context.Context, int) (*page.Record, error) {
	return b.record, b.recordErr
}

func (b *fakeBrowser) Subscribe(sub *browserlink.Subscriber) func() {
	for _, in := range b.events {
		b.downloads.Track(in)
		if sub.Filter(in) {
			sub.Deliver(in)
		}
	}
	if b.gone {
		sub.Done()
	}
	return func() {}
}

func (b *fakeBrowser) Call(_ context.Context, op extwire.Op) (json.RawMessage, error) {
	b.ops = append(b.ops, op)
	return nil, b.discard
}

// fakeTab is a tab reached with its page open.
type fakeTab struct {
	id      int
	dialog  error // CheckDialog's
	record  *page.Record
	sess    *cdpfake.Session
	origin  string
	items   []protocol.StorageItem
	readErr error

	read []string // the storage reads, as "kind key"
}

func (t *fakeTab) ID() int                  { return t.id }
func (t *fakeTab) CheckDialog(string) error { return t.dialog }
func (t *fakeTab) Record() *page.Record     { return t.record }
func (t *fakeTab) Session() cdp.Session     { return t.sess }

func (t *fakeTab) ReadStorage(_ context.Context, kind, key string) (string, []protocol.StorageItem, error) {
	t.read = append(t.read, kind+" "+key)
	return t.origin, t.items, t.readErr
}
