package service

import (
	"log/slog"
	"slices"
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

	mu     sync.Mutex
	tabs   map[int]*tabState
	groups map[int]int     // tab → its Chrome tab group (tabs in none are absent), from the hello and tab events
	refs   *refmap.Counter // shared by every tab of every link: refs never repeat

	// syncMu guards synced: whether the spaces were reconciled with this
	// browser's tab groups (service/spaces.go), once per link.
	syncMu sync.Mutex
	synced bool
}

// setGroups records the tabs' groups the hello listed.
func (l *link) setGroups(tabs []protocol.Tab) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.groups = make(map[int]int)
	for _, t := range tabs {
		if t.GroupID > 0 {
			l.groups[t.ID] = t.GroupID
		}
	}
}

// setGroup records a tab's group (0: none).
func (l *link) setGroup(tab, group int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.groups == nil {
		l.groups = make(map[int]int)
	}
	if group > 0 {
		l.groups[tab] = group
	} else {
		delete(l.groups, tab)
	}
}

// groupOf returns a tab's group, 0 when it is in none.
func (l *link) groupOf(tab int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.groups[tab]
}

// tabsInGroup returns the tabs of a group, in ID order.
func (l *link) tabsInGroup(group int) []int {
	out := []int{}
	if group <= 0 {
		return out
	}
	l.mu.Lock()
	for t, g := range l.groups {
		if g == group {
			out = append(out, t)
		}
	}
	l.mu.Unlock()
	slices.Sort(out)
	return out
}

// info describes the link for browsers.list.
func (l *link) info() protocol.Browser {
	b := protocol.Browser{ID: l.id, ConnectedAt: l.connected, RelayPID: l.relayPID}
	if h := l.Hello(); h != nil {
		b.ExtensionID, b.Version, b.UserAgent = h.ExtensionID, h.Version, h.UserAgent
	}
	return b
}

// event keeps the tabs' state in step with the browser's events; the
// link calls it in its reader's goroutine, before the subscribers.
func (l *link) event(in *browserlink.Message) {
	switch in.Event {
	case "tab.created", "tab.updated":
		if in.Tab != nil {
			l.setGroup(in.Tab.ID, in.Tab.GroupID)
		}
	case "tab.removed":
		l.setGroup(in.TabID, 0)
		l.dropTab(in.TabID)
	case "detached":
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
