package service

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/cdpsub"
	"github.com/egohost/egohost/protocol"
)

// The agents' cdp.subscribe subscriptions run in internal/server/cdpsub;
// these are the service's browsers and links as they see them.

// subBrowsers is the connected browsers as a subscription finds its
// browser's next link (cdpsub.Browsers).
type subBrowsers struct{ s *Service }

func (b subBrowsers) Changed() <-chan struct{} { return b.s.hub.Changed() }

func (b subBrowsers) Link(browser string) cdpsub.Link {
	l := b.s.hub.Get(browser)
	if l == nil {
		return nil
	}
	return subLink{s: b.s, l: l}
}

// subLink is a link as a subscription uses it (cdpsub.Link).
type subLink struct {
	s *Service
	l *link
}

func (sl subLink) Subscribe(sub *browserlink.Subscriber) func() { return sl.l.Subscribe(sub) }

func (sl subLink) Call(ctx context.Context, op extwire.Op) (json.RawMessage, error) {
	return sl.l.Call(ctx, op)
}

func (sl subLink) Closed() <-chan struct{} { return sl.l.Closed() }
func (sl subLink) Held(tab int) bool       { return sl.l.Held(tab) }
func (sl subLink) Log() *slog.Logger       { return sl.l.Log }

func (sl subLink) Tabs(ctx context.Context) ([]protocol.Tab, error) { return sl.s.listTabs(ctx, sl.l) }

// IsPerson reports whether the agent is the person (cdpsub.Agent).
func (a *agent) IsPerson() bool { return isPerson(a.agentName()) }
