package service

import (
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/egohost/egohost/browserlink"
	"github.com/egohost/egohost/extwire"
	"github.com/egohost/egohost/filegate"
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

	mu     sync.Mutex
	tabs   map[int]*tabState
	groups map[int]int // tab → its Chrome tab group (tabs in none are absent), from the hello and tab events
	// active is each window's active tab, and activeIn the window a tab
	// was last seen active in (tab.activated events, the hello): a
	// space's tab must be active in its window to render and take input.
	active   map[int]int     // window → tab
	activeIn map[int]int     // tab → window
	refs     *refmap.Counter // shared by every tab of every link: refs never repeat

	// syncMu guards synced: whether the spaces were reconciled with this
	// browser's tab groups (service/spaces.go), once per link.
	syncMu sync.Mutex
	synced bool

	urls tabURLs // each tab's current URL, for the origin rules (access.go)

	// held reports whether a tab is in a space the person has taken over:
	// its console and network are not recorded then (takeover.go).
	held      func(tab int) bool
	uploads   *filegate.Store // the files the tabs were handed: they go with their tab
	downloads downloadTabs    // which tab each download came from (downloads.go)
}

// setGroups records the tabs' groups the hello listed.
func (l *link) setGroups(tabs []protocol.Tab) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.groups = make(map[int]int)
	l.active, l.activeIn = make(map[int]int), make(map[int]int)
	for _, t := range tabs {
		if t.GroupID > 0 {
			l.groups[t.ID] = t.GroupID
		}
		if t.Active {
			l.active[t.WindowID], l.activeIn[t.ID] = t.ID, t.WindowID
		}
	}
}

// setActive records that tab became its window's active tab.
func (l *link) setActive(tab, window int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.active == nil {
		l.active, l.activeIn = make(map[int]int), make(map[int]int)
	}
	l.active[window], l.activeIn[tab] = tab, window
}

// isActive reports whether tab is, as far as the events tell, its
// window's active tab.
func (l *link) isActive(tab int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.activeIn[tab]
	return ok && l.active[w] == tab
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
	b.AutomationStopped = l.popup.isStopped()
	return b
}

// event keeps the tabs' state in step with the browser's events; the
// link calls it in its reader's goroutine, before the subscribers.
func (l *link) event(in *extwire.Message) {
	l.urls.track(in)
	switch in.Event {
	case "tab.created", "tab.updated":
		if in.Tab != nil {
			l.setGroup(in.Tab.ID, in.Tab.GroupID)
			if in.Event == "tab.created" && in.Tab.Active {
				l.setActive(in.Tab.ID, in.Tab.WindowID)
			}
		}
	case "tab.activated":
		l.setActive(in.TabID, in.WindowID)
	case "tab.removed":
		l.setGroup(in.TabID, 0)
		l.mu.Lock()
		delete(l.activeIn, in.TabID)
		l.mu.Unlock()
		l.dropTab(in.TabID)
		l.uploads.Drop(uploadOwner(l.id, in.TabID))
	case "detached":
		l.dropTab(in.TabID)
	case "cdp":
		if in.SessionID == "" {
			l.trackDialog(in)
		}
		l.downloads.track(in)
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
