// Package confirmmethods asks the person to confirm a paired agent's act
// that its policy (agents.confirm) names, and runs the methods that answer
// (README "Confirmations", issue 26 §1). An ask is made at the moment of
// acting, bound to the element acted on: it is listed, the browser's
// popup and the agent's connection are told, and the act waits for the
// person's yes (timeouts.confirm at most), with an audit line for the ask
// and one for the answer. confirm.list and confirm.answer are the owner's
// CLI; popup.confirm.list and popup.confirm.answer the person at a
// browser. The owner and the person are never asked. The policy is
// internal/server/confirm's and the waiting internal/server/confirm/asks';
// the call, its tab and the browsers are the service's, behind the
// interfaces declared here.
package confirmmethods

import (
	"context"
	"log/slog"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/confirm/asks"
)

// Call is a call that may ask the person about its act, or that answers
// an ask (the owner's).
type Call interface {
	// Agent is the caller's paired name: whose policy and "always"
	// answers judge the act.
	Agent() string
	// Method is the method called.
	Method() string
	// Kinds are the kinds of act the agent's policy may ask the person
	// about in a call of the method, on some origin (none: nothing asks).
	Kinds() []confirm.Kind
	// AuditName is the caller as the audit log names it.
	AuditName() string
	// Notify sends the caller's connection a notification.
	Notify(method string, params any)
}

// Popup is the browser whose popup made a popup.confirm.* call.
type Popup interface {
	// Browser is the browser's ID.
	Browser() string
}

// Tab is the tab an act is made on.
type Tab interface {
	// Browser is the ID of the tab's browser, ID the tab's.
	Browser() string
	ID() int
	// Page is the tab's main CDP session.
	Page() cdp.Session
}

// Runner reads the element an element action acts on (*actions.Runner).
type Runner interface {
	// Facts is what the page says of the element (enter: for a press of
	// Enter in it).
	Facts(ctx context.Context, el actions.Element, enter bool) (actions.Facts, error)
	// Picture is a PNG of the box, drawn on the page around it.
	Picture(ctx context.Context, box actions.Box) ([]byte, error)
}

// Service is what the asks and the methods need of the service.
type Service interface {
	// Policy is the agents' confirmation policy (agents.confirm).
	Policy() confirm.Policy
	// Asks holds the acts waiting for the person and the "always"
	// answers.
	Asks() *asks.Store
	// Wait is how long an ask waits for the person (timeouts.confirm).
	Wait() time.Duration
	// Audit writes a line of the audit log.
	Audit(e audit.Entry)
	// NotifyBrowser sends the extension of a connected browser a notice
	// (nothing when the browser is not connected).
	NotifyBrowser(browser, topic string, params any) error
}

// Methods asks the person and runs the confirmation methods for a
// service.
type Methods struct {
	s   Service
	log *slog.Logger
}

// New returns the confirmations of s, logging to log.
func New(s Service, log *slog.Logger) *Methods {
	return &Methods{s: s, log: log}
}
