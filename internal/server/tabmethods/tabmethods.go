// Package tabmethods answers the agents' methods on browsers and their
// tabs (PROTOCOL.md §3.1): ping, browsers.list, tabs.list, tabs.open,
// tabs.close, tabs.select and debug.echo. It decides what each sends the
// browser's extension and what the caller gets back: which tabs a caller
// sees, where tabs.open puts a new tab (a named agent's space, its
// window, its empty tab) and what it waits for, and the errors' words.
// The service gives it the caller (Call), the browsers as the call
// reaches them (Browser) and the rest of what a handler needs (Service);
// how a call reaches its tab (the tab choice and its checks) stays the
// service's.
package tabmethods

import (
	"context"
	"encoding/json"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/protocol"
)

// Call is what the handlers need of the call they answer.
type Call interface {
	// Agent is the connection's agent name, "" while it has none.
	Agent() string
	// Person reports whether the caller is the person (the owner's own
	// connection without a name, or the popup).
	Person() bool
	// Owner reports whether the caller holds the owner's token.
	Owner() bool
	// Home is the browser of the popup that made the call, "" for an
	// agent's call.
	Home() string
	// Pick returns the browser the call goes to ("" for the only one, or
	// the popup's own), waiting while it is on its way back.
	Pick(ctx context.Context, browser string) (Browser, error)
	// Now returns the named browser ("" for the only one) as it is now,
	// without waiting: b is nil while it is reconnecting, and
	// reconnecting lists the browsers asked for that are.
	Now(browser string) (b Browser, reconnecting []protocol.Browser, err error)
	// Target resolves the tab the call is for and checks that the caller
	// may act on it: its browser and the tab's ID.
	Target(ctx context.Context, t protocol.Target) (Browser, int, error)
	// CheckDestination refuses a URL the caller may not load.
	CheckDestination(dest string) error
	// CheckLanded refuses where a navigation of the caller's in tab ended
	// when the caller may not reach it.
	CheckLanded(tab int, landed string) error
	// MayAsk reports whether the call may wait for the person about an
	// act of kind.
	MayAsk(kind confirm.Kind) bool
	// Confirm asks the person about an act of kind on actURL's origin
	// when the caller's policy names it there: nil when nothing asks or
	// the person said yes.
	Confirm(ctx context.Context, kind confirm.Kind, actURL string, q protocol.Confirm) error
	// Load loads url in the tab as goto does, within timeout (0: the
	// navigation timeout), and waits for the load state until.
	Load(ctx context.Context, t protocol.Target, url, until string, timeout time.Duration) (protocol.NavResult, error)
}

// Browser is one connected browser as a call reaches it: what it
// filters and checks is for that call's caller.
type Browser interface {
	// ID is the browser's ID.
	ID() string
	// Info describes the browser as browsers.list does.
	Info() protocol.Browser
	// CheckAutomation refuses calls while the person has stopped all
	// automation of the browser.
	CheckAutomation() error
	// Call sends an op to the browser's extension; its error is the
	// agents'.
	Call(ctx context.Context, op extwire.Op) (json.RawMessage, error)
	// Tabs lists the browser's tabs.
	Tabs(ctx context.Context) ([]protocol.Tab, error)
	// Sync reconciles the browser's spaces with its tab groups (once).
	Sync(ctx context.Context)
	// SpaceFor returns the space the agent's new tab in the browser goes
	// to, making one when it has none there; its error is the agents'
	// (user_in_control when the person has that space).
	SpaceFor(ctx context.Context, agent string) (spaces.Space, error)
	// AddTab puts a tab into a space's group (a new group when it has
	// none left) and returns the space as it is now.
	AddTab(ctx context.Context, sp spaces.Space, tab int) (spaces.Space, error)
	// Visible returns the tabs the caller may see.
	Visible(tabs []protocol.Tab) []protocol.Tab
	// CheckScope refuses a tab the caller may not reach.
	CheckScope(ctx context.Context, tab int) error
	// Dialog is the JavaScript dialog open on the tab, as the caller may
	// see it; nil when none is, or egohost is not attached to the tab.
	Dialog(tab int) *protocol.Dialog
}

// Service is what the handlers need of the service beside the call.
type Service interface {
	// Browsers returns the connected browsers and those reconnecting.
	Browsers() (connected, reconnecting []protocol.Browser)
	// Spaces is the registry of the agents' spaces.
	Spaces() *spaces.Registry
	// Tokenless counts what connections without a token did.
	Tokenless() *protocol.TokenlessStats
	// Dirs are the service's state and data folders.
	Dirs() (state, data string)
}

// Methods are the handlers of the browsers and tabs methods.
type Methods struct {
	svc     Service
	version string
}

// New returns the handlers of the browsers and tabs methods over svc, a
// service of that version.
func New(svc Service, version string) *Methods {
	return &Methods{svc: svc, version: version}
}

// TabReply reads the extension's reply to op about one tab of browser.
func TabReply(raw json.RawMessage, browser, op string) (protocol.TabResult, error) {
	var res protocol.TabResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return res, protocol.Errorf(protocol.CodeExtension, "%s: bad reply: %v", op, err)
	}
	res.Tab.Browser = browser
	return res, nil
}
