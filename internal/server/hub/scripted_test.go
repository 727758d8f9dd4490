package hub

import (
	"fmt"
	"testing"

	"github.com/egohost/egohost/internal/link/extwire"
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
