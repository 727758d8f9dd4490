package hub

import (
	"fmt"
	"slices"
	"testing"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
)

// The link remembers whether an agent ran script in the document a tab
// shows: a new document of the main frame (a navigation, a reload) is
// clean, a frame's or a child session's is not the tab's document, the
// back/forward cache's document is taken as scripted when the tab ever
// was, and a closed tab is forgotten.
func TestScriptedFollowsTheDocument(t *testing.T) {
	var s scriptedDocs
	// A step: an agent's script in tab mark (0: none), then the main
	// frame's documents of tab 3 or 4 given (session, parent, loader, type).
	type nav struct {
		tab                          int
		session, parent, loader, typ string
	}
	steps := []struct {
		name         string
		mark         int
		navs         []nav
		closed       int
		want3, want4 bool
	}{
		{name: "at first", navs: []nav{{3, "", "", "L1", "Navigation"}}},
		{name: "an agent ran script in tab 3", mark: 3, want3: true},
		{name: "a frame's and a child session's documents", navs: []nav{{3, "", "MAIN", "L9", "Navigation"}, {3, "C1", "", "L8", "Navigation"}}, want3: true},
		{name: "the same document named again", navs: []nav{{3, "", "", "L1", "Navigation"}}, want3: true},
		{name: "tab 3 loaded a new document", navs: []nav{{3, "", "", "L2", "Navigation"}}},
		{name: "tab 3 went back to the scripted document, from the cache", mark: 3, navs: []nav{{3, "", "", "L3", "Navigation"}, {3, "", "", "L2", "BackForwardCacheRestore"}}, want3: true},
		{name: "tab 3 went back, from the cache, to a document the link cannot tell", navs: []nav{{3, "", "", "L4", "Navigation"}, {3, "", "", "L3", "BackForwardCacheRestore"}}, want3: true},
		{name: "a tab no agent ran script in, from the cache", navs: []nav{{4, "", "", "L1", "BackForwardCacheRestore"}}, want3: true},
		{name: "tab 3 closed", closed: 3},
	}
	for _, st := range steps {
		if st.mark != 0 {
			s.mark(st.mark)
		}
		for _, n := range st.navs {
			s.event(&extwire.Message{Event: "cdp", TabID: n.tab, SessionID: n.session, Method: "Page.frameNavigated",
				Params: []byte(fmt.Sprintf(`{"frame":{"id":"F","parentId":%q,"loaderId":%q,"url":"https://a.example/"},"type":%q}`, n.parent, n.loader, n.typ))})
		}
		if st.closed != 0 {
			s.event(&extwire.Message{Event: "tab.removed", TabID: st.closed})
		}
		if got3, got4 := s.shown(3), s.shown(4); got3 != st.want3 || got4 != st.want4 {
			t.Errorf("%s: tabs 3 and 4 scripted: got %v %v, want %v %v", st.name, got3, got4, st.want3, st.want4)
		}
	}
	for i := range maxScriptedDocs + 1 {
		s.mark(4)
		s.event(&extwire.Message{Event: "cdp", TabID: 4, Method: "Page.frameNavigated", Params: []byte(fmt.Sprintf(`{"frame":{"id":"F","loaderId":"N%d"},"type":"Navigation"}`, i))})
	}
	if n := len(s.tabs[4].scripted); n > maxScriptedDocs {
		t.Errorf("documents remembered of tab 4: got %d, want at most %d", n, maxScriptedDocs)
	}
}

// A tab opened by another (window.open, a link with a target) can script
// it and be scripted by it: an agent's script in one reaches every tab
// linked to it, directly or through others, and a reload does not make a
// tab safe while a tab linked to it is still scripted. A linked tab whose
// documents the link does not follow is scripted until it closes; the
// person is told to close those, then reload the rest.
func TestScriptedReachesLinkedTabs(t *testing.T) {
	var s scriptedDocs
	nav := func(tab int, loader string) {
		s.event(&extwire.Message{Event: "cdp", TabID: tab, Method: "Page.frameNavigated",
			Params: []byte(fmt.Sprintf(`{"frame":{"id":"F","loaderId":%q},"type":"Navigation"}`, loader))})
	}
	opened := func(event string, tab, opener int) {
		s.event(&extwire.Message{Event: event, Tab: &protocol.Tab{ID: tab, OpenerTabID: opener}})
	}
	steps := []struct {
		name       string
		do         func()
		want       []int // the tabs of 3, 5, 6, 7, 8 an agent's script may run in
		reload     []int // advise(3, 5, 6, 7, 8)
		closeFirst []int
	}{
		{name: "tab 3 opened 5, which opened 6; nothing scripted", do: func() {
			nav(3, "L1")
			opened("tab.created", 5, 3)
			opened("tab.created", 6, 5)
			nav(6, "M1")
		}},
		{name: "an agent ran script in tab 3", do: func() { s.mark(3) }, want: []int{3, 5, 6}, reload: []int{3}, closeFirst: []int{5, 6}},
		{name: "tab 3 reloaded while 5 and 6 are open", do: func() { nav(3, "L2") }, want: []int{3, 5, 6}, reload: []int{3}, closeFirst: []int{5, 6}},
		{name: "tab 6 reloaded while 3 and 5 are open", do: func() { nav(6, "M2"); opened("tab.updated", 6, 5) }, want: []int{3, 5, 6}, reload: []int{3}, closeFirst: []int{5, 6}},
		{name: "tab 5 closed: 3 and 6 are no longer linked", do: func() { s.event(&extwire.Message{Event: "tab.removed", TabID: 5}) }, want: []int{3, 6}, reload: []int{3, 6}},
		{name: "tabs 3 and 6 reloaded", do: func() { nav(3, "L3"); nav(6, "M3") }},
		{name: "a clean tab opened one", do: func() { opened("tab.created", 7, 3); nav(7, "N1") }},
		{name: "an agent ran script in tab 6, then it opened tab 8", do: func() { s.mark(6); opened("tab.created", 8, 6) }, want: []int{6, 8}, reload: []int{6}, closeFirst: []int{8}},
		{name: "tab 6 closed; tab 8's opener is tab 9, whose documents the link never followed: close both", do: func() {
			s.event(&extwire.Message{Event: "tab.removed", TabID: 6})
			opened("tab.updated", 8, 9)
		}, want: []int{8}, closeFirst: []int{8, 9}},
	}
	for _, st := range steps {
		st.do()
		var got []int
		for _, tab := range []int{3, 5, 6, 7, 8} {
			if s.shown(tab) {
				got = append(got, tab)
			}
		}
		reload, closeFirst := s.advise([]int{3, 5, 6, 7, 8})
		if !slices.Equal(got, st.want) || !slices.Equal(reload, st.reload) || !slices.Equal(closeFirst, st.closeFirst) {
			t.Errorf("%s: scripted %v, reload %v, close first %v; want %v, %v, %v", st.name, got, reload, closeFirst, st.want, st.reload, st.closeFirst)
		}
	}
}
