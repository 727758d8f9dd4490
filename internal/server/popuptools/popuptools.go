// Package popuptools runs the popup's page tools, the person's front end
// in a tab (PROTOCOL.md §2.6; issue 12): popup.highlight boxes what
// refs and locators find, popup.pick lets the person pick an element and
// names it (popup.lastPick keeps the latest), popup.clear removes the
// boxes, and popup.automation is the browser's Stop-all switch. Every
// element is found by the tab's resolver and named by its snapshot; the
// page only draws (internal/engine/overlay). Name, the picker's naming of
// an element, also serves the agents' locators method. The service
// reaches the tab as the person and keeps the browser's state (Popup).
package popuptools

import (
	"context"
	"log/slog"
	"sync"

	"github.com/chromedp/cdproto/cdp"

	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
	"github.com/egohost/egohost/resolver"
)

// Popup is the browser whose popup made a call, and what the service
// keeps for the person at it.
type Popup interface {
	// Browser is the browser's ID.
	Browser() string
	// AuditName is the person at the browser, as the audit log names them.
	AuditName() string
	// Tab reaches a tab of the browser (0: the active one) as the person,
	// for the method op, within the action timeout.
	Tab(ctx context.Context, op string, tab int) (Tab, error)
	// Attached reports whether the service attached the tab (it has its
	// page open).
	Attached(tab int) bool
	// Latest is the person's latest pick at the browser.
	Latest() *Latest
	// Notify sends the browser's extension a notice.
	Notify(topic string, params any) error
	// Stopped and SetStopped are the browser's Stop-all switch.
	Stopped() bool
	SetStopped(on bool)
}

// Tab is a tab the tools work on, as the service opened it for the
// caller.
type Tab interface {
	// ID is the tab's ID.
	ID() int
	// Page is the tab's main CDP session: where the overlay draws.
	Page() cdp.Session
	// Resolver finds the elements of refs and locators, within the
	// caller's reach.
	Resolver() Resolver
	// Snapshots are the tab's refs and its latest snapshot.
	Snapshots() Snapshots
}

// Resolver finds elements (*resolver.Resolver).
type Resolver interface {
	// All returns every element target matches.
	All(ctx context.Context, target string) ([]resolver.Match, error)
}

// Snapshots are a tab's snapshots (*snapshot.Tab).
type Snapshots interface {
	// Previous is the latest snapshot taken (nil before the first).
	Previous() *snapshot.Snapshot
	// Snapshot takes a snapshot, which becomes the latest.
	Snapshot(ctx context.Context, opts snapshot.Options) (*snapshot.Snapshot, error)
	// Resolve fills in the BackendNodeID of a snapshot's entries, leaving
	// out those whose element is gone.
	Resolve(ctx context.Context, entries []refmap.Entry) ([]refmap.Entry, error)
}

// Service is what the tools need of the service beyond the popup.
type Service interface {
	// Audit writes the line of a decision: who made it, what (method), on
	// what (target) and how it ended; fill (may be nil) adds fields.
	Audit(who, method, target string, err error, fill func(*audit.Entry))
	// TopURL is the URL of the document the tab shows (its top frame's).
	TopURL(ctx context.Context, sess cdp.Session) (string, error)
}

// Methods runs the popup's page tools for a service.
type Methods struct {
	s   Service
	log *slog.Logger
}

// New returns the page tools of s, logging to log.
func New(s Service, log *slog.Logger) *Methods {
	return &Methods{s: s, log: log}
}

// Latest keeps the person's latest pick at one browser; its zero value
// holds none.
type Latest struct {
	mu   sync.Mutex
	pick *protocol.PopupPickResult
}

// Set keeps pick as the latest.
func (l *Latest) Set(pick *protocol.PopupPickResult) {
	l.mu.Lock()
	l.pick = pick
	l.mu.Unlock()
}

// Get returns the latest pick (nil before the first).
func (l *Latest) Get() *protocol.PopupPickResult {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pick
}
