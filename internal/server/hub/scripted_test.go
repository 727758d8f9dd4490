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
	navigated := func(tab int, session, parent, loader, typ string) {
		s.event(&extwire.Message{Event: "cdp", TabID: tab, SessionID: session, Method: "Page.frameNavigated",
			Params: []byte(fmt.Sprintf(`{"frame":{"id":"F","parentId":%q,"loaderId":%q,"url":"https://a.example/"},"type":%q}`, parent, loader, typ))})
	}
	check := func(when string, want3, want4 bool) {
		t.Helper()
		if got3, got4 := s.shown(3), s.shown(4); got3 != want3 || got4 != want4 {
			t.Errorf("%s: tabs 3 and 4 scripted: got %v %v, want %v %v", when, got3, got4, want3, want4)
		}
	}
	navigated(3, "", "", "L1", "Navigation")
	check("at first", false, false)
	s.mark(3)
	check("an agent ran script in tab 3", true, false)
	navigated(3, "", "MAIN", "L9", "Navigation")
	navigated(3, "C1", "", "L8", "Navigation")
	check("a frame's and a child session's documents", true, false)
	navigated(3, "", "", "L2", "Navigation")
	check("tab 3 loaded a new document", false, false)
	s.mark(3)
	navigated(3, "", "", "L3", "Navigation")
	navigated(3, "", "", "L2", "BackForwardCacheRestore")
	check("tab 3 went back to the scripted document, from the cache", true, false)
	navigated(3, "", "", "L4", "Navigation")
	navigated(3, "", "", "L3", "BackForwardCacheRestore")
	check("tab 3 went back, from the cache, to a document the link cannot tell", true, false)
	navigated(4, "", "", "L1", "BackForwardCacheRestore")
	check("a tab no agent ran script in, from the cache", true, false)
	s.event(&extwire.Message{Event: "tab.removed", TabID: 3})
	check("tab 3 closed", false, false)
	for range maxScriptedDocs + 1 {
		s.mark(4)
		navigated(4, "", "", fmt.Sprint("N", len(s.tabs[4].scripted)), "Navigation")
	}
	if n := len(s.tabs[4].scripted); n > maxScriptedDocs {
		t.Errorf("documents remembered of tab 4: got %d, want at most %d", n, maxScriptedDocs)
	}
}
