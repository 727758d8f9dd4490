package hub

import (
	"encoding/json"
	"sync"

	cdppage "github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/link/extwire"
)

// An agent that runs its own script in a page (eval, a wait's function,
// raw CDP) can leave it running there: a listener on every key, a
// function wrapped, a form's submit hooked. It lasts as long as the
// document, whoever holds the tab after, so a person who takes the tab
// over to type a password would type it into the agent's script. The link
// remembers, for each tab, whether an agent ran script in the document it
// shows now, and the service says so when the person takes the tab
// (protocol.Space.Scripted): a reload gives a document of the site's own
// scripts only.

// maxScriptedDocs bounds the documents remembered of one tab.
const maxScriptedDocs = 64

// scriptedDocs is what the link knows of each tab's documents: which one
// it shows (its main frame's loader ID, "" before Chrome said), and which
// of them an agent ran script in.
type scriptedDocs struct {
	mu   sync.Mutex
	tabs map[int]*tabDocs
}

type tabDocs struct {
	current  string
	scripted map[string]bool // by loader ID; "" a document shown before Chrome named it
	ever     bool            // an agent ran script in one of the tab's documents
}

func (s *scriptedDocs) tab(id int) *tabDocs {
	if s.tabs == nil {
		s.tabs = make(map[int]*tabDocs)
	}
	t := s.tabs[id]
	if t == nil {
		t = &tabDocs{scripted: make(map[string]bool)}
		s.tabs[id] = t
	}
	return t
}

// mark notes that an agent runs script in the document tab shows.
func (s *scriptedDocs) mark(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tab(id)
	if !t.scripted[t.current] && len(t.scripted) >= maxScriptedDocs {
		clear(t.scripted) // forgets documents the tab left; its current one is marked below
	}
	t.scripted[t.current], t.ever = true, true
}

// shown reports whether an agent ran script in the document tab shows.
func (s *scriptedDocs) shown(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tabs[id]
	return t != nil && t.scripted[t.current]
}

// event follows the tabs' documents, every tab's (so that a mark names
// the document by its loader ID: a frameNavigated that names the same
// document again leaves its mark): a main frame's new document (a
// cross-document navigation, a reload too) is a document no agent ran
// script in, unless it is one the back/forward cache gave back (the same
// document, with what ran in it: taken as scripted when the tab ever
// was, its loader ID being the old one's only as far as Chrome keeps it);
// a closed tab goes.
func (s *scriptedDocs) event(in *extwire.Message) {
	switch {
	case in.Event == "tab.removed":
		s.mu.Lock()
		delete(s.tabs, in.TabID)
		s.mu.Unlock()
	case in.Event == "cdp" && in.SessionID == "" && in.Method == cdppage.FrameNavigated.Method:
		var ev struct {
			Frame struct {
				ParentID string `json:"parentId"`
				LoaderID string `json:"loaderId"`
			} `json:"frame"`
			Type string `json:"type"`
		}
		if json.Unmarshal(in.Params, &ev) != nil || ev.Frame.ParentID != "" {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		t := s.tab(in.TabID)
		t.current = ev.Frame.LoaderID
		if ev.Type == string(cdppage.NavigationTypeBackForwardCacheRestore) && t.ever {
			t.scripted[t.current] = true
		}
	}
}

// MarkScripted notes that an agent runs its own script in the document
// tab shows.
func (l *Link) MarkScripted(tab int) { l.scripted.mark(tab) }

// Scripted reports whether an agent ran its own script in the document
// tab shows (as far as the link heard of the tab's navigations: a new
// document it did not hear of counts as the one before).
func (l *Link) Scripted(tab int) bool { return l.scripted.shown(tab) }
