package service

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/egohost/egohost/browserlink"
	"github.com/egohost/egohost/extwire"
	"github.com/egohost/egohost/filegate"
	"github.com/egohost/egohost/internal/page"
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
	tabs   map[int]*page.Tab // the tabs it follows: their page engines
	groups map[int]int       // tab → its Chrome tab group (tabs in none are absent), from the hello and tab events
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

	urls page.URLs // each tab's current URL, for the origin rules (access.go)

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
	l.urls.Track(in)
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
		l.downloads.track(in)
		if in.SessionID == "" {
			l.follow(in)
		}
	}
}

// closeTabs closes every tab's state when the link ends.
func (l *link) closeTabs() {
	l.mu.Lock()
	tabs := l.tabs
	l.tabs = make(map[int]*page.Tab)
	l.mu.Unlock()
	for _, t := range tabs {
		t.Close()
	}
}

// follow feeds a CDP event of a tab's main session to the tab's dialog
// state and record, if the service follows the tab.
func (l *link) follow(in *extwire.Message) {
	if page.DialogEvent(in.Method) {
		// Followed or not: a dialog that opens now blocks the tab's next call.
		l.tab(in.TabID).FollowDialog(in.Method, in.Params)
		return
	}
	if !page.Records(in.Method) {
		return
	}
	t := l.followed(in.TabID)
	if t == nil || (l.held != nil && l.held(in.TabID)) {
		return // not followed, or the person's own doings (takeover.go)
	}
	if rec := t.Record(); rec != nil {
		rec.Add(in.Method, in.Params)
	}
}

// tab returns the engine of a tab, made on first use.
func (l *link) tab(id int) *page.Tab {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.tabs[id]
	if !ok {
		t = page.NewTab(id, l.Session(id), l.refs, l.log)
		l.tabs[id] = t
	}
	return t
}

// dropTab forgets a tab's engine (closed or detached).
func (l *link) dropTab(id int) {
	l.mu.Lock()
	t := l.tabs[id]
	delete(l.tabs, id)
	l.mu.Unlock()
	if t != nil {
		go t.Close() // never block the link's reader on the page's watchers
	}
}

// page returns the tab's engine, opening its page on first use.
func (l *link) page(ctx context.Context, tabID int) (page.Engine, error) {
	_, eng, err := l.open(ctx, tabID)
	return eng, err
}

// open returns the tab and its engine, opening its page on first use. A
// tab dropped while the call reached it (a detach, then the call run
// again: service/again.go) is opened as the new Tab that stands for it
// now, never again as the dropped one (whose page nobody would close).
func (l *link) open(ctx context.Context, tabID int) (*page.Tab, page.Engine, error) {
	for range 3 {
		t := l.tab(tabID)
		eng, err := t.Open(ctx)
		if err == nil || !t.Closed() {
			return t, eng, err
		}
	}
	return nil, page.Engine{}, protocol.Errorf(protocol.CodeDetached, "tab %d was detached again and again while it was reached", tabID)
}

// openDialog returns the dialog open on a tab, or nil.
func (l *link) openDialog(tabID int) *protocol.Dialog {
	if t := l.followed(tabID); t != nil {
		return t.Dialog()
	}
	return nil
}

// hasPage reports whether the service has the tab open (attached).
func (l *link) hasPage(tabID int) bool {
	t := l.followed(tabID)
	if t == nil {
		return false
	}
	_, ok := t.Engine()
	return ok
}

// followed returns the engine of a tab the service follows (one a call
// reached since its attach), nil for any other tab.
func (l *link) followed(tabID int) *page.Tab {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tabs[tabID]
}

// recordOf returns the record of a followed tab, nil when it has none.
func (l *link) recordOf(tabID int) *page.Record {
	if t := l.followed(tabID); t != nil {
		return t.Record()
	}
	return nil
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
