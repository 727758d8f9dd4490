package hub

import (
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/filegate"
	"github.com/egohost/egohost/protocol"
)

// Link is one connected browser: its browser link (browserlink) and the
// state the hub keeps of its tabs, in step with the browser's events.
type Link struct {
	*browserlink.Link

	// ID and Log are set once, at the first hello, in the reader's
	// goroutine; calls only reach a link after that.
	ID        string
	Log       *slog.Logger
	key       string // the profile's browser key, "" when it sent none
	relayPID  int
	origin    string
	connected time.Time
	stopped   atomic.Bool // the person's Stop all automation switch

	Tabs   *page.Tabs  // the tabs it follows: their page engines
	Layout page.Layout // the tabs' groups and each window's active tab, from the hello and tab events
	URLs   page.URLs   // each tab's current URL, for the origin rules

	// HeldAt reports whether a tab is in a space the person has taken
	// over (Options.Held; at zero), or was at time at, within one of the
	// person's past holds of it: its console and network are not recorded
	// then, nor a console message the page logged then that Chrome
	// replays when the debugger attaches again.
	HeldAt    func(tab int, at time.Time) bool
	uploads   *filegate.Store // the files the tabs were handed: they go with their tab
	Downloads page.Downloads  // which tab each download came from
	events    events          // the CDP events its extension forwards (WantEvents)
	regrouped func(tab, from, to int)
	scripted  scriptedDocs // the documents agents ran script in (scripted.go)
	saveMarks func()       // writes the marks file when a mark is made (nil: a browser without a key, whose marks no later link takes)
}

// Info describes the link for browsers.list.
func (l *Link) Info() protocol.Browser {
	b := protocol.Browser{ID: l.ID, ConnectedAt: l.connected, RelayPID: l.relayPID}
	if h := l.Hello(); h != nil {
		b.ExtensionID, b.Version, b.UserAgent = h.ExtensionID, h.Version, h.UserAgent
	}
	b.AutomationStopped = l.Stopped()
	return b
}

// event keeps the tabs' state in step with the browser's events; the
// link calls it in its reader's goroutine, before the subscribers.
func (l *Link) event(in *extwire.Message) {
	l.URLs.Track(in)
	// A tab that changed groups: Chrome's (the person dragged it), or a
	// popup window's tab moved out of its window; or a popup window's
	// tab placed in its opener's group, which the marks file keeps.
	from := 0
	if in.Tab != nil {
		from = l.Layout.GroupOf(in.Tab.ID)
	}
	l.Layout.Track(in)
	if in.Tab != nil {
		to := l.Layout.GroupOf(in.Tab.ID)
		if in.Event == "tab.updated" && to != from && l.regrouped != nil {
			l.regrouped(in.Tab.ID, from, to) // once the layout has the new group
		}
		if in.Tab.Popup && from == 0 && to > 0 {
			l.marked()
		}
	}
	l.Downloads.Track(in)
	l.Tabs.Track(in, l.HeldAt)
	if l.scripted.event(in) {
		l.marked()
	}
	if in.Event == "tab.removed" {
		l.uploads.Drop(l.UploadOwner(in.TabID))
	}
}

// Held reports whether a tab is in a space the person has taken over.
func (l *Link) Held(tab int) bool { return l.HeldAt != nil && l.HeldAt(tab, time.Time{}) }

// HeldEvent reports whether an event of the browser is the person's: its
// tab is in a space they hold, or the page logged it (a console line, a
// log entry, an exception: Chrome replays those at an enable) while they
// held it.
func (l *Link) HeldEvent(in *extwire.Message) bool {
	return l.HeldAt != nil && l.HeldAt(in.TabID, page.LoggedAt(in.Method, in.Params))
}

// UploadOwner is the upload store's key of a tab: its files go with it.
func (l *Link) UploadOwner(tab int) string { return fmt.Sprintf("%s/%d", l.ID, tab) }

// SetStopped turns the person's Stop all automation switch of the
// browser on or off (the popup's, and the hello's: the extension's switch
// survives its restarts).
func (l *Link) SetStopped(on bool) { l.stopped.Store(on) }

// Stopped reports whether the person has stopped all automation of the
// browser.
func (l *Link) Stopped() bool { return l.stopped.Load() }

// CheckAutomation refuses every call that would reach a tab of l while
// the person has stopped all automation of that browser.
func (l *Link) CheckAutomation() error {
	if !l.Stopped() {
		return nil
	}
	return protocol.Errorf(protocol.CodeAutomationStopped,
		"automation is stopped in browser %s: the person switched it off in the egohost popup (Stop all automation); nothing reaches its tabs until they switch it back on", l.ID).
		With("browser", l.ID)
}
