package page

import (
	"context"
	"encoding/json"
	"maps"
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
// group: such a tab counts in the group its opener was in when it came
// (GroupOf, TabsInGroup), so that it is in the space of the page that
// opened it, and stays there when that page moves or closes; a popup the
// person's tab opened is the person's even if that tab later joins a
// space. A popup window's tab that moves to another window (Chrome's
// "Show as tab") is an ordinary tab from then on, in Chrome's group.
type Layout struct {
	mu     sync.Mutex
	groups map[int]int      // tab → its Chrome tab group (tabs in none are absent)
	popups map[int]PopupTab // the tabs of popup windows a grouped tab opened
	// active is each window's active tab, and activeIn the window a tab
	// was last seen active in (tab.activated events, the hello): a
	// space's tab must be active in its window to render and take input.
	active   map[int]int // window → tab
	activeIn map[int]int // tab → window
	// opened are the watches of the tabs a tab opens (WatchOpened).
	opened []*OpenedWatch
}

// PopupTab is a popup window's tab that a grouped tab opened: the group
// its opener was in then, and its window.
type PopupTab struct {
	Group  int `json:"group"`
	Window int `json:"window"`
}

// Reset records the tabs' groups and the active tabs the hello listed.
func (y *Layout) Reset(tabs []protocol.Tab) {
	y.mu.Lock()
	defer y.mu.Unlock()
	y.groups, y.popups = make(map[int]int), make(map[int]PopupTab)
	y.active, y.activeIn = make(map[int]int), make(map[int]int)
	for _, t := range tabs {
		if t.GroupID > 0 {
			y.groups[t.ID] = t.GroupID
		}
		if t.Active {
			y.active[t.WindowID], y.activeIn[t.ID] = t.ID, t.WindowID
		}
	}
}

// Popups returns the popup windows' tabs the layout counts in a group,
// for the link that follows this one to the same browser (KeepPopups): a
// hello's tab list says which tabs are popups' and their openers, not
// which group each opener was in when its popup came.
func (y *Layout) Popups() map[int]PopupTab {
	y.mu.Lock()
	defer y.mu.Unlock()
	return maps.Clone(y.popups)
}

// KeepPopups takes over the popups of the layout before this one
// (Popups) whose tab is still open in the same window (open). A link that
// knows none (a fresh service without them, a browser without a key)
// counts the popup windows it finds open in no group: the person's, as a
// popup the link cannot place must be.
func (y *Layout) KeepPopups(popups map[int]PopupTab, open func(tab, window int) bool) {
	y.mu.Lock()
	defer y.mu.Unlock()
	for tab, p := range popups {
		if !open(tab, p.Window) {
			continue
		}
		if y.popups == nil {
			y.popups = make(map[int]PopupTab)
		}
		y.popups[tab] = p
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

// setPopup follows what t, as an event gives it, says of a popup
// window's tab: one a grouped tab opened counts in that tab's group from
// now on (the first time the link hears it is a popup's: Chrome names an
// opener only while it is open, and a worker that just started may not
// know the window yet); one now in another window than its popup's was
// moved out of it, and is an ordinary tab.
func (y *Layout) setPopup(t protocol.Tab) {
	y.mu.Lock()
	defer y.mu.Unlock()
	if p, ok := y.popups[t.ID]; ok {
		if t.WindowID != 0 && t.WindowID != p.Window {
			delete(y.popups, t.ID)
		}
		return
	}
	if !t.Popup || t.OpenerTabID == 0 || t.OpenerTabID == t.ID {
		return
	}
	if g := y.groupOf(t.OpenerTabID); g > 0 {
		if y.popups == nil {
			y.popups = make(map[int]PopupTab)
		}
		y.popups[t.ID] = PopupTab{Group: g, Window: t.WindowID}
	}
}

// GroupOf returns a tab's group, 0 when it is in none: Chrome's, or for a
// popup window's tab the one its opener was in (SpaceGroup).
func (y *Layout) GroupOf(tab int) int {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.groupOf(tab)
}

// groupOf is GroupOf under y.mu.
func (y *Layout) groupOf(tab int) int {
	if g, ok := y.groups[tab]; ok {
		return g
	}
	return y.popups[tab].Group
}

// SpaceGroup returns the group tab t counts in, t as a tab list of the
// browser gives it: Chrome's, or for a popup window's tab the one its
// opener was in (GroupOf), as long as it is in its popup window.
func (y *Layout) SpaceGroup(t protocol.Tab) int {
	if t.GroupID > 0 {
		return t.GroupID
	}
	y.mu.Lock()
	defer y.mu.Unlock()
	if p, ok := y.popups[t.ID]; ok && (t.WindowID == 0 || t.WindowID == p.Window) {
		return p.Group
	}
	return 0
}

// TabsInGroup returns the tabs of a group, in ID order: those Chrome has
// in it, and the popup windows' tabs its tabs opened (GroupOf).
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
	for t, p := range y.popups {
		if p.Group == group {
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
