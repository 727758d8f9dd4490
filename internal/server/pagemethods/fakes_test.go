package pagemethods

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	cdppage "github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/filegate"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/protocol"
)

// actionTimeout is the fakes' timeouts.action.
const actionTimeout = 5 * time.Second

// discard is the methods' log.
var discard = slog.New(slog.DiscardHandler)

// fakeService is a service whose methods named in dialogs answer
// dialogs.
type fakeService struct {
	dialogs map[string]bool
}

func (s *fakeService) AnswersDialogs(op string) bool { return s.dialogs[op] }
func (s *fakeService) ActionTimeout() time.Duration  { return actionTimeout }

// fakeTab is tab 7 of browser B1. Its Runner acts on a page that answers
// no CDP command (every engine call fails at once).
type fakeTab struct {
	dialog   *protocol.Dialog // the dialog open on it (CheckDialog, Dialog)
	limited  bool
	withheld []string
	traced   bool
	hook     bool  // ConfirmHook gives a hook
	navErr   error // ConfirmNavigation's
	navTo    string
	// dialogErr, when set, is what Chrome's Page.handleJavaScriptDialog
	// fails with (the page answers no other command).
	dialogErr error

	subs     []*browserlink.Subscriber
	unsubbed int
	locks    int // LockActions taken
	unlocks  int
	trace    []string       // "before", "after"
	hooked   []string       // ConfirmHook's verb/enter
	asked    []string       // ConfirmNavigation's verb/delta/to
	opened   []protocol.Tab // the tabs an action opens (WatchOpened)
	watches  int            // WatchOpened's watches started
	ended    int            // and ended
}

func (t *fakeTab) ID() int         { return 7 }
func (t *fakeTab) Browser() string { return "B1" }

func (t *fakeTab) Subscribe(sub *browserlink.Subscriber) func() {
	t.subs = append(t.subs, sub)
	return func() { t.unsubbed++ }
}

func (t *fakeTab) CheckDialog(op string) error {
	if t.dialog != nil {
		return protocol.Errorf(protocol.CodeDialogOpen, "%s: a %s dialog blocks tab 7", op, t.dialog.Type)
	}
	return nil
}

func (t *fakeTab) Dialog() *protocol.Dialog                 { return t.dialog }
func (t *fakeTab) Seen(d *protocol.Dialog) *protocol.Dialog { return d }
func (t *fakeTab) Limited() bool                            { return t.limited }

func (t *fakeTab) LockActions(context.Context) (func(), error) {
	t.locks++
	return func() { t.unlocks++ }, nil
}

func (t *fakeTab) Withheld(context.Context) ([]string, error) { return t.withheld, nil }

func (t *fakeTab) Runner() *actions.Runner {
	page := cdpfake.New()
	if t.dialogErr != nil {
		page.Handle(cdppage.CommandHandleJavaScriptDialog, func(context.Context, json.RawMessage) (any, error) { return nil, t.dialogErr })
	}
	return actions.New(page, nil, actions.Options{Timeout: 100 * time.Millisecond})
}

func (t *fakeTab) WatchOpened() func(context.Context, time.Duration) []protocol.Tab {
	t.watches++
	return func(context.Context, time.Duration) []protocol.Tab {
		t.ended++
		return t.opened
	}
}

func (t *fakeTab) TraceBefore(context.Context) bool {
	if t.traced {
		t.trace = append(t.trace, "before")
	}
	return t.traced
}

func (t *fakeTab) TraceAfter(context.Context) { t.trace = append(t.trace, "after") }

func (t *fakeTab) ConfirmHook(_ context.Context, _ *actions.Runner, verb string, enter bool) func(context.Context, actions.Element) (bool, error) {
	t.hooked = append(t.hooked, fmtArgs(verb, enter))
	if !t.hook {
		return nil
	}
	return func(context.Context, actions.Element) (bool, error) { return true, nil }
}

func (t *fakeTab) ConfirmNavigation(_ context.Context, verb string, delta int64, to string) (string, error) {
	t.asked = append(t.asked, fmtArgs(verb, delta, to))
	return t.navTo, t.navErr
}

// fakeLink is the browser a dialog method probes.
type fakeLink struct {
	reachErr   error // Reachable's
	dismissErr error
	dismissed  *actions.DialogResult
	probed     []time.Duration // Reachable's deadlines, from now
}

func (l *fakeLink) Reachable(ctx context.Context, tab int) error {
	dl, _ := ctx.Deadline()
	l.probed = append(l.probed, time.Until(dl).Round(time.Second))
	return l.reachErr
}

func (l *fakeLink) DismissUnreported(context.Context, int, time.Duration) (*actions.DialogResult, error) {
	return l.dismissed, l.dismissErr
}

// fakeCall is a caller. CheckDestination refuses the URLs that contain
// denied, CheckLanded those that contain hidden; its policy may ask
// about kinds.
type fakeCall struct {
	tab       *fakeTab
	tabErr    error
	link      *fakeLink
	linkErr   error
	denied    string
	hidden    string
	kinds     []confirm.Kind
	firstTab  bool
	opened    protocol.TabResult
	openErr   error
	snap      protocol.SnapshotResult
	snapErr   error
	outErr    error
	timeouts  []time.Duration // the timeouts Tab was given
	boxes     int             // TraceBox's boxes
	opens     []protocol.TabsOpenParams
	snapshots []protocol.SnapshotParams
	outputs   []string // CreateOutput's paths
}

func (c *fakeCall) Tab(_ context.Context, _ protocol.Target, _ string, timeout time.Duration) (*fakeTab, error) {
	c.timeouts = append(c.timeouts, timeout)
	if c.tabErr != nil {
		return nil, c.tabErr
	}
	return c.tab, nil
}

func (c *fakeCall) Link(context.Context, protocol.Target) (Link, int, error) {
	if c.linkErr != nil {
		return nil, 0, c.linkErr
	}
	return c.link, 7, nil
}

func (c *fakeCall) CheckDestination(url string) error {
	if c.denied != "" && strings.Contains(url, c.denied) {
		return protocol.Errorf(protocol.CodeForbiddenOriginScope, "goto: %s is denied", url)
	}
	return nil
}

func (c *fakeCall) CheckLanded(_ int, url string) error {
	if c.hidden != "" && strings.Contains(url, c.hidden) {
		return protocol.Errorf(protocol.CodeForbiddenOriginScope, "%s is hidden", url)
	}
	return nil
}

func (c *fakeCall) MayAsk(kind confirm.Kind) bool {
	for _, k := range c.kinds {
		if k == kind {
			return true
		}
	}
	return false
}

func (c *fakeCall) TraceBox(b *actions.Box) {
	if b != nil {
		c.boxes++
	}
}

func (c *fakeCall) NeedsFirstTab(context.Context, string) bool { return c.firstTab }

func (c *fakeCall) OpenTab(_ context.Context, p protocol.TabsOpenParams) (protocol.TabResult, error) {
	c.opens = append(c.opens, p)
	return c.opened, c.openErr
}

func (c *fakeCall) Snapshot(_ context.Context, p protocol.SnapshotParams) (protocol.SnapshotResult, error) {
	c.snapshots = append(c.snapshots, p)
	return c.snap, c.snapErr
}

// CreateOutput makes no file: it fails with outErr.
func (c *fakeCall) CreateOutput(path string) (*filegate.Output, error) {
	c.outputs = append(c.outputs, path)
	if c.outErr == nil {
		return nil, errors.New("fakeCall: no file made")
	}
	return nil, c.outErr
}

func fmtArgs(args ...any) string {
	b, _ := json.Marshal(args)
	return string(b)
}
