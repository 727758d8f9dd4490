package service

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/filegate"
	"github.com/egohost/egohost/protocol"
)

// link is one connected browser as the service sees it: the browser link
// (browserlink) and the state the service keeps for its tabs.
type link struct {
	*browserlink.Link

	// id and key are set once, by register at the first hello, in the
	// reader's goroutine; agents only reach a link after that.
	id        string
	key       string // the profile's browser key, "" when it sent none
	relayPID  int
	origin    string
	log       *slog.Logger
	connected time.Time
	person    *agent     // the person at this browser: the popup's calls run as it
	popup     popupState // the person's Stop-all switch and latest pick (popupfront.go)

	tabs   *page.Tabs  // the tabs it follows: their page engines
	layout page.Layout // the tabs' groups and each window's active tab, from the hello and tab events

	// syncMu guards synced: whether the spaces were reconciled with this
	// browser's tab groups (internal/server/service/spaces.go), once per link.
	syncMu sync.Mutex
	synced bool

	urls page.URLs // each tab's current URL, for the origin rules (access.go)

	// held reports whether a tab is in a space the person has taken over:
	// its console and network are not recorded then (takeover.go).
	held      func(tab int) bool
	uploads   *filegate.Store // the files the tabs were handed: they go with their tab
	downloads page.Downloads  // which tab each download came from (downloads.go)
}

// info describes the link for browsers.list.
func (l *link) info() protocol.Browser {
	b := protocol.Browser{ID: l.id, ConnectedAt: l.connected, RelayPID: l.relayPID}
	if h := l.Hello(); h != nil {
		b.ExtensionID, b.Version, b.UserAgent = h.ExtensionID, h.Version, h.UserAgent
	}
	b.AutomationStopped = l.popup.isStopped()
	return b
}

// event keeps the tabs' state in step with the browser's events; the
// link calls it in its reader's goroutine, before the subscribers.
func (l *link) event(in *extwire.Message) {
	l.urls.Track(in)
	l.layout.Track(in)
	l.downloads.Track(in)
	l.tabs.Track(in, l.held)
	if in.Event == "tab.removed" {
		l.uploads.Drop(uploadOwner(l.id, in.TabID))
	}
}

// tabURL returns the tab's URL now: from the registry, or, for a tab it
// has heard nothing of yet, from the browser (and remembered).
func (s *Service) tabURL(ctx context.Context, l *link, id int) (string, error) {
	if url, ok := l.urls.Get(id); ok {
		return url, nil
	}
	tabs, err := s.listTabs(ctx, l)
	if err != nil {
		return "", err
	}
	url := ""
	for _, t := range tabs {
		l.urls.Set(t.ID, t.URL)
		if t.ID == id {
			url = t.URL
		}
	}
	return url, nil
}
