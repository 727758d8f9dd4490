package page

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	cdppage "github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
)

// Layout is a browser's tabs as its windows and tab groups hold them: each
// tab's group, each window's active tab. It is kept from the hello's tab
// list and the tab events (Track). The zero value is ready to use.
//
// Chrome puts a tab a page opened in the opener's tab group, but no tab of
// a popup window (window.open with features: a sign-in, a payment) in any
// group: such a tab counts in its opener's group (GroupOf, TabsInGroup),
// so that it is in the space of the page that opened it, and the
// person's when that page is.
type Layout struct {
	mu     sync.Mutex
	groups map[int]int // tab → its Chrome tab group (tabs in none are absent)
	popups map[int]int // a popup window's tab → the tab that opened it
	// active is each window's active tab, and activeIn the window a tab
	// was last seen active in (tab.activated events, the hello): a
	// space's tab must be active in its window to render and take input.
	active   map[int]int // window → tab
	activeIn map[int]int // tab → window
	// opened are the watches of the tabs a tab opens (WatchOpened).
	opened []*OpenedWatch
}

// Reset records the tabs' groups and the active tabs the hello listed.
func (y *Layout) Reset(tabs []protocol.Tab) {
	y.mu.Lock()
	defer y.mu.Unlock()
	y.groups, y.popups = make(map[int]int), make(map[int]int)
	y.active, y.activeIn = make(map[int]int), make(map[int]int)
	for _, t := range tabs {
		if t.GroupID > 0 {
			y.groups[t.ID] = t.GroupID
		}
		if t.Popup && t.OpenerTabID != 0 {
			y.popups[t.ID] = t.OpenerTabID
		}
		if t.Active {
			y.active[t.WindowID], y.activeIn[t.ID] = t.ID, t.WindowID
		}
	}
}

// Track follows one event of the browser's link. It runs in the link's
// reader.
func (y *Layout) Track(in *extwire.Message) {
	switch in.Event {
	case "tab.created", "tab.updated":
		if in.Tab != nil {
			y.SetGroup(in.Tab.ID, in.Tab.GroupID)
			y.setPopup(*in.Tab)
			if in.Event == "tab.created" && in.Tab.Active {
				y.SetActive(in.Tab.ID, in.Tab.WindowID)
			}
			if in.Event == "tab.created" {
				y.created(*in.Tab)
			}
		}
	case "tab.activated":
		y.SetActive(in.TabID, in.WindowID)
	case "cdp":
		if in.Method == cdppage.WindowOpen.Method {
			y.announced(in.TabID, in.Params)
		}
	case "tab.removed":
		y.SetGroup(in.TabID, 0)
		y.mu.Lock()
		delete(y.activeIn, in.TabID)
		delete(y.popups, in.TabID)
		for t, opener := range y.popups {
			if opener == in.TabID {
				delete(y.popups, t) // the person's from now on, in no group
			}
		}
		y.mu.Unlock()
	}
}

// SetActive records that tab became its window's active tab.
func (y *Layout) SetActive(tab, window int) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if y.active == nil {
		y.active, y.activeIn = make(map[int]int), make(map[int]int)
	}
	y.active[window], y.activeIn[tab] = tab, window
}

// IsActive reports whether tab is, as far as the events tell, its
// window's active tab.
func (y *Layout) IsActive(tab int) bool {
	y.mu.Lock()
	defer y.mu.Unlock()
	w, ok := y.activeIn[tab]
	return ok && y.active[w] == tab
}

// SetGroup records a tab's group (0: none).
func (y *Layout) SetGroup(tab, group int) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if y.groups == nil {
		y.groups = make(map[int]int)
	}
	if group > 0 {
		y.groups[tab] = group
	} else {
		delete(y.groups, tab)
	}
}

// setPopup records that t is a popup window's tab and which tab opened
// it. A tab.updated that does not say so (Chrome names an opener only
// while it is open; a worker that just started may not know the window
// yet) changes nothing: the tab goes with its opener's group, none once
// that has closed.
func (y *Layout) setPopup(t protocol.Tab) {
	if !t.Popup || t.OpenerTabID == 0 || t.OpenerTabID == t.ID {
		return
	}
	y.mu.Lock()
	defer y.mu.Unlock()
	if y.popups == nil {
		y.popups = make(map[int]int)
	}
	y.popups[t.ID] = t.OpenerTabID
}

// GroupOf returns a tab's group, 0 when it is in none: Chrome's, or for a
// popup window's tab its opener's (SpaceGroup).
func (y *Layout) GroupOf(tab int) int {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.groupOf(tab)
}

// maxPopupChain bounds the openers followed from a popup window's tab (a
// popup a popup opened, …).
const maxPopupChain = 8

// groupOf is GroupOf under y.mu.
func (y *Layout) groupOf(tab int) int {
	for range maxPopupChain {
		if g, ok := y.groups[tab]; ok {
			return g
		}
		opener, ok := y.popups[tab]
		if !ok {
			return 0
		}
		tab = opener
	}
	return 0
}

// PopupsOf returns the popup windows' tabs that tab opened, directly or
// through others (they go where it goes: GroupOf), in ID order.
func (y *Layout) PopupsOf(tab int) []int {
	y.mu.Lock()
	defer y.mu.Unlock()
	var out []int
	for t := range y.popups {
		at := t
		for range maxPopupChain {
			opener, ok := y.popups[at]
			if !ok {
				break
			}
			if opener == tab {
				out = append(out, t)
				break
			}
			at = opener
		}
	}
	slices.Sort(out)
	return out
}

// ChromeGroupOf returns the tab group Chrome has the tab in, 0 for none
// (a popup window's tab: always none).
func (y *Layout) ChromeGroupOf(tab int) int {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.groups[tab]
}

// SpaceGroup returns the group tab t counts in, t as a tab list or event
// of the browser gives it: its own, or for a popup window's tab its
// opener's (GroupOf).
func (y *Layout) SpaceGroup(t protocol.Tab) int {
	if t.GroupID > 0 || !t.Popup || t.OpenerTabID == 0 {
		return t.GroupID
	}
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.groupOf(t.OpenerTabID)
}

// TabsInGroup returns the tabs of a group, in ID order: those Chrome has
// in it, and the popup windows' tabs they opened (GroupOf).
func (y *Layout) TabsInGroup(group int) []int {
	out := []int{}
	if group <= 0 {
		return out
	}
	y.mu.Lock()
	for t, g := range y.groups {
		if g == group {
			out = append(out, t)
		}
	}
	for t := range y.popups {
		if y.groupOf(t) == group {
			out = append(out, t)
		}
	}
	y.mu.Unlock()
	slices.Sort(out)
	return out
}

// OpenedWatch collects the tabs one tab opens while it runs
// (Layout.WatchOpened): the tabs Chrome creates with that tab as their
// opener (a link with target=_blank, window.open, a form with a target).
type OpenedWatch struct {
	y      *Layout
	opener int
	tabs   []protocol.Tab
	// announced are the windows the tab's page opened (Page.windowOpen,
	// which Chrome sends before it makes the tab): Done waits a moment
	// for the tabs of those that came with a user gesture. One opened
	// without a gesture may be blocked as a popup: no tab to wait for.
	announced []announcement
	changed   chan struct{} // closed and replaced at each change
}

// announcement is a window a page opened (Page.windowOpen).
type announcement struct {
	url     string
	gesture bool
}

// WatchOpened starts collecting the tabs that tab opens; Done ends it.
// The opener's Page.windowOpen events count only where its Page domain is
// on (an action's watch turns it on).
func (y *Layout) WatchOpened(tab int) *OpenedWatch {
	w := &OpenedWatch{y: y, opener: tab, changed: make(chan struct{})}
	y.mu.Lock()
	y.opened = append(y.opened, w)
	y.mu.Unlock()
	return w
}

// Done ends the watch and returns the tabs the opener opened meanwhile,
// in the order Chrome created them. When the page announced more windows
// with a gesture than have come, it waits for them up to wait (and ctx).
// Chrome makes a tab before its first navigation: a tab's URL is the
// one the page asked for when the announcements tell which that is.
func (w *OpenedWatch) Done(ctx context.Context, wait time.Duration) []protocol.Tab {
	y := w.y
	var timeout <-chan time.Time
	y.mu.Lock()
wait:
	for len(w.tabs) < w.gestured() {
		changed := w.changed
		y.mu.Unlock()
		if timeout == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-changed:
			y.mu.Lock()
		case <-timeout:
			y.mu.Lock()
			break wait
		case <-ctx.Done():
			y.mu.Lock()
			break wait
		}
	}
	y.opened = slices.DeleteFunc(y.opened, func(o *OpenedWatch) bool { return o == w })
	out := slices.Clone(w.tabs)
	asked := w.announced
	if len(asked) != len(out) {
		asked = slices.DeleteFunc(slices.Clone(asked), func(a announcement) bool { return !a.gesture })
	}
	y.mu.Unlock()
	if len(asked) == len(out) {
		for i := range out {
			if out[i].URL == "" {
				out[i].URL = asked[i].url
			}
		}
	}
	return out
}

// created gives a tab Chrome made with an opener to that opener's
// watches. Chrome gives no opener to a tab that window.open made with no
// URL (Jupyter opens its new notebooks so, then sends the tab to their
// address): a tab without one, on no address yet or on the one
// announced, is the window a watched tab announced (Page.windowOpen comes
// first) and has no tab for yet, if one did.
func (y *Layout) created(t protocol.Tab) {
	y.mu.Lock()
	defer y.mu.Unlock()
	for _, w := range y.opened {
		switch {
		case t.OpenerTabID != 0 && w.opener != t.OpenerTabID:
			continue
		case t.OpenerTabID == 0:
			if len(w.tabs) >= len(w.announced) {
				continue
			}
			if next := w.announced[len(w.tabs)].url; t.URL != "" && t.URL != next {
				continue
			}
			t.OpenerTabID = w.opener
		}
		w.tabs = append(w.tabs, t)
		w.signal()
		return // one watch a tab
	}
}

// announced notes a window a tab's page opened (Page.windowOpen's
// params) for that tab's watches.
func (y *Layout) announced(tab int, params json.RawMessage) {
	var ev cdppage.EventWindowOpen
	if jsonv2.Unmarshal(params, &ev) != nil {
		return
	}
	y.mu.Lock()
	defer y.mu.Unlock()
	for _, w := range y.opened {
		if w.opener == tab {
			w.announced = append(w.announced, announcement{url: ev.URL, gesture: ev.UserGesture})
			w.signal()
		}
	}
}

// gestured is how many of the announced windows came with a user gesture
// (under y.mu).
func (w *OpenedWatch) gestured() int {
	n := 0
	for _, a := range w.announced {
		if a.gesture {
			n++
		}
	}
	return n
}

// signal wakes Done (under y.mu).
func (w *OpenedWatch) signal() {
	close(w.changed)
	w.changed = make(chan struct{})
}
