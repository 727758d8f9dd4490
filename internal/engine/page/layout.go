package page

import (
	"slices"
	"sync"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
)

// Layout is a browser's tabs as its windows and tab groups hold them: each
// tab's group, each window's active tab. It is kept from the hello's tab
// list and the tab events (Track). The zero value is ready to use.
type Layout struct {
	mu     sync.Mutex
	groups map[int]int // tab → its Chrome tab group (tabs in none are absent)
	// active is each window's active tab, and activeIn the window a tab
	// was last seen active in (tab.activated events, the hello): a
	// space's tab must be active in its window to render and take input.
	active   map[int]int // window → tab
	activeIn map[int]int // tab → window
}

// Reset records the tabs' groups and the active tabs the hello listed.
func (y *Layout) Reset(tabs []protocol.Tab) {
	y.mu.Lock()
	defer y.mu.Unlock()
	y.groups = make(map[int]int)
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

// Track follows one event of the browser's link. It runs in the link's
// reader.
func (y *Layout) Track(in *extwire.Message) {
	switch in.Event {
	case "tab.created", "tab.updated":
		if in.Tab != nil {
			y.SetGroup(in.Tab.ID, in.Tab.GroupID)
			if in.Event == "tab.created" && in.Tab.Active {
				y.SetActive(in.Tab.ID, in.Tab.WindowID)
			}
		}
	case "tab.activated":
		y.SetActive(in.TabID, in.WindowID)
	case "tab.removed":
		y.SetGroup(in.TabID, 0)
		y.mu.Lock()
		delete(y.activeIn, in.TabID)
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

// GroupOf returns a tab's group, 0 when it is in none.
func (y *Layout) GroupOf(tab int) int {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.groups[tab]
}

// TabsInGroup returns the tabs of a group, in ID order.
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
	y.mu.Unlock()
	slices.Sort(out)
	return out
}
