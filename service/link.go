package service

import (
	"log/slog"
	"sync"
	"time"

	"github.com/egohost/egohost/browserlink"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
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

	mu   sync.Mutex
	tabs map[int]*tabState
	refs *refmap.Counter // shared by every tab of every link: refs never repeat
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
func (l *link) event(in *browserlink.Message) {
	switch in.Event {
	case "detached", "tab.removed":
		l.dropTab(in.TabID)
	case "cdp":
		if in.SessionID == "" {
			l.trackDialog(in)
		}
		l.record(in)
	}
}

// closeTabs closes every tab's state when the link ends.
func (l *link) closeTabs() {
	l.mu.Lock()
	tabs := l.tabs
	l.tabs = make(map[int]*tabState)
	l.mu.Unlock()
	for _, t := range tabs {
		t.close()
	}
}
