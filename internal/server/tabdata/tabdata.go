// Package tabdata runs the agents' methods that read or change a tab's
// data rather than its page: its cookies (cookies.get, cookies.set,
// cookies.clear), its web storage (storage.get), the record of its
// console and network (console.list, network.list, network.request), and
// the downloads it starts (download). It decides what each call reads,
// asks the person about and answers; the service resolves the tab,
// judges the caller against its spaces and origin rules and asks the
// person (Call).
package tabdata

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/protocol"
)

// Call is one call of a tab data method as the service runs it: the
// browser and tab it reaches, and the service's judgements of its
// caller.
type Call interface {
	// Paired reports whether the caller is a paired agent, who sees only
	// the downloads of tabs it may see.
	Paired() bool
	// Browser is the browser the call names ("": the only one).
	Browser(ctx context.Context, name string) (Browser, error)
	// Target resolves the tab the call is for and checks that the caller
	// may reach it: its browser and the tab's ID.
	Target(ctx context.Context, t protocol.Target) (Browser, int, error)
	// Tab reaches the target's tab for op and opens its page, within the
	// default action timeout.
	Tab(ctx context.Context, t protocol.Target, op string) (Tab, error)
	// Act runs fn on the target's tab with the runner of the element
	// actions, as they run (op names it in errors).
	Act(ctx context.Context, t protocol.Target, op string, fn func(ctx context.Context, r actwire.Runner) (any, error)) (any, error)
	// Reach is what the caller may reach of a tab's documents (nil:
	// everything).
	Reach() cdptab.Reach
	// CheckOriginRead refuses a URL whose origin the caller may not read.
	CheckOriginRead(rawURL string) error
	// MayAsk reports whether the call may wait for the person about an
	// act of kind.
	MayAsk(kind confirm.Kind) bool
	// Confirm asks the person about an act of kind on actURL's origin
	// when the caller's policy names it there: nil when nothing asks or
	// the person said yes.
	Confirm(ctx context.Context, kind confirm.Kind, actURL string, q protocol.Confirm) error
}

// Browser is a connected browser as a call sees it.
type Browser interface {
	// ID is the browser's ID.
	ID() string
	// Session is a tab's own CDP session through the browser's link.
	Session(tab int) cdp.Session
	// Record opens the tab's page, which starts its recording, and
	// returns its record (nil once the tab is detached).
	Record(ctx context.Context, tab int) (*page.Record, error)
	// TabURL is the tab's URL as the browser last said, if it did.
	TabURL(tab int) (string, bool)
	// Sees reports whether the call's caller may see the tab (the tabs of
	// its spaces, on an origin its rules allow).
	Sees(tab int) bool
	// Downloads attributes the browser's downloads to its tabs.
	Downloads() *page.Downloads
	// Subscribe delivers the browser's events to sub until the returned
	// func is called.
	Subscribe(sub *browserlink.Subscriber) func()
	// Call sends the extension an op.
	Call(ctx context.Context, op extwire.Op) (json.RawMessage, error)
}

// Tab is a tab a call reached, its page open.
type Tab interface {
	// ID is the tab's ID.
	ID() int
	// CheckDialog fails with dialog_open when a JavaScript dialog blocks
	// the tab: the page would answer nothing.
	CheckDialog(op string) error
	// Record is the tab's record of its console and network (nil once it
	// is detached).
	Record() *page.Record
	// Session is the tab's page: its main session and out-of-process
	// frames.
	Session() cdp.Session
	// ReadStorage reads the localStorage or sessionStorage (kind) of the
	// tab's main frame, one key or all when key is "" (page.ReadStorage).
	ReadStorage(ctx context.Context, kind, key string) (origin string, items []protocol.StorageItem, err error)
}

// Methods runs the tab data methods.
type Methods struct {
	log           *slog.Logger
	actionTimeout time.Duration
}

// New returns the tab data methods, which read a page within
// actionTimeout and log what went wrong after an answer to log.
func New(log *slog.Logger, actionTimeout time.Duration) *Methods {
	return &Methods{log: log, actionTimeout: actionTimeout}
}
