package hub

import (
	"encoding/json"
	"slices"
	"sync"

	cdppage "github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
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
//
// Unless another tab can reach it. A page and a window it opened
// (window.open, a link with a target) hold each other (opener, the
// window open returned) and, on one origin, script each other: an agent's
// script in one tab can put its own script in the other, which puts it
// back into the first tab's next document after the person reloads it
// (measured through Chromium: the password typed after the reload was
// read). So the link also keeps which tab opened which (the tabs' opener,
// in tab.created, tab.updated and the browser's hello: Chromium 156 names
// it for a window.open with no address and for a popup window too), and an agent's script in a tab reaches
// every tab linked to it that way, directly or through others: their
// documents count as scripted, and so does a new document in a tab whose
// linked tabs still show one. Chrome does not say whether an opener is
// still reachable (a link's noopener), so every opener counts. A linked
// tab whose documents the link does not follow (no debugger on it) stays
// scripted until it closes; the person is told to close such tabs, then
// reload the others (Scripted).

// maxScriptedDocs bounds the documents remembered of one tab.
const maxScriptedDocs = 64

// scriptedDocs is what the link knows of each tab's documents: which one
// it shows (its main frame's loader ID, "" before Chrome said), which of
// them an agent's script reached, and which tabs opened which.
type scriptedDocs struct {
	mu    sync.Mutex
	tabs  map[int]*tabDocs
	links map[int]map[int]bool // both ways: tab → the tabs it opened or was opened by
	marks int                  // the marks made so far (reach), to tell that one was
}

type tabDocs struct {
	current  string
	followed bool            // the link heard which document the tab shows
	scripted map[string]bool // by loader ID; "" a document shown before Chrome named it
	ever     bool            // an agent's script reached one of the tab's documents
	// reached: a linked tab's script reached this tab, whose documents
	// the link does not follow: until the tab closes.
	reached bool
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

// reach notes that an agent's script reached the document tab id shows
// (or, when the link does not follow its documents, the tab).
func (s *scriptedDocs) reach(id int) {
	t := s.tab(id)
	if !t.followed && len(s.links[id]) > 0 {
		t.reached = true
	}
	if !t.scripted[t.current] && len(t.scripted) >= maxScriptedDocs {
		clear(t.scripted) // forgets documents the tab left; its current one is marked below
	}
	t.scripted[t.current], t.ever = true, true
	s.marks++
}

// atRisk reports whether an agent's script may run in the document tab id
// shows.
func (s *scriptedDocs) atRisk(id int) bool {
	t := s.tabs[id]
	return t != nil && (t.reached || t.scripted[t.current])
}

// linked returns the tabs linked to id (it included), directly or
// through others, in ascending order.
func (s *scriptedDocs) linked(id int) []int {
	seen := map[int]bool{id: true}
	todo := []int{id}
	for len(todo) > 0 {
		at := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for next := range s.links[at] {
			if !seen[next] {
				seen[next] = true
				todo = append(todo, next)
			}
		}
	}
	out := make([]int, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// spread makes every tab linked to id scripted when one of them is.
func (s *scriptedDocs) spread(id int) {
	if len(s.links[id]) == 0 {
		return // a tab alone: nothing to spread
	}
	group := s.linked(id)
	if !slices.ContainsFunc(group, s.atRisk) {
		return
	}
	for _, t := range group {
		if !s.atRisk(t) {
			s.reach(t)
		}
	}
}

// mark notes that an agent runs script in the document tab shows: it
// reaches the tabs linked to it too. It reports whether that is new.
func (s *scriptedDocs) mark(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	// The agent's script went through the tab's debugger: the link hears
	// of the tab's next documents (and counts the one it shows as its
	// last, when it did not hear of it).
	t := s.tab(id)
	t.followed = true
	if t.scripted[t.current] {
		// Marked already, and spread then (a link or a document since
		// spreads itself): nothing to walk on every call of the agent.
		return false
	}
	s.reach(id)
	s.spread(id)
	return true
}

// shown reports whether an agent's script may run in the document tab
// shows: one ran there, or in a tab linked to it.
func (s *scriptedDocs) shown(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.atRisk(id)
}

// advise splits tabs into those whose page an agent's script may run in
// and a reload makes the site's own again (reload), once the tabs in
// closeFirst are closed: the others linked to them that are scripted too
// (they may be outside tabs), but the first one of tabs the link follows
// in each group of linked tabs (the oldest: Chrome numbers tabs in
// order); a group with none of those is all to close.
func (s *scriptedDocs) advise(tabs []int) (reload, closeFirst []int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range tabs {
		if !s.atRisk(id) {
			continue
		}
		group := slices.DeleteFunc(s.linked(id), func(t int) bool { return !s.atRisk(t) })
		keep := slices.IndexFunc(group, func(t int) bool { return !s.tabs[t].reached && slices.Contains(tabs, t) })
		if keep >= 0 && group[keep] == id {
			reload = append(reload, id)
		}
		for i, t := range group {
			if i != keep && !slices.Contains(closeFirst, t) {
				closeFirst = append(closeFirst, t)
			}
		}
	}
	slices.Sort(closeFirst)
	return reload, closeFirst
}

// link notes that tab opened was opened by opener.
func (s *scriptedDocs) link(opened, opener int) {
	if opened == opener || opener == 0 || s.links[opened][opener] {
		return
	}
	if s.links == nil {
		s.links = make(map[int]map[int]bool)
	}
	for _, p := range [][2]int{{opened, opener}, {opener, opened}} {
		if s.links[p[0]] == nil {
			s.links[p[0]] = make(map[int]bool)
		}
		s.links[p[0]][p[1]] = true
	}
	s.spread(opened)
}

// event follows the tabs' documents, every tab's (so that a mark names
// the document by its loader ID: a frameNavigated that names the same
// document again leaves its mark): a main frame's new document (a
// cross-document navigation, a reload too) is a document no agent ran
// script in, unless it is one the back/forward cache gave back (the same
// document, with what ran in it: taken as scripted when the tab ever
// was, its loader ID being the old one's only as far as Chrome keeps it)
// or a tab linked to it shows a scripted one; a tab's opener links the
// two; a closed tab goes, the tabs it linked left linked to each other.
// It reports whether the event marked a tab's document.
func (s *scriptedDocs) event(in *extwire.Message) bool {
	switch {
	case in.Event == "tab.removed":
		s.mu.Lock()
		defer s.mu.Unlock()
		before := s.marks
		delete(s.tabs, in.TabID)
		var linked []int
		for t := range s.links[in.TabID] {
			delete(s.links[t], in.TabID)
			linked = append(linked, t)
		}
		delete(s.links, in.TabID)
		// The pages it linked keep each other: one may hold the other's
		// window from before (opener.opener).
		for i := 1; i < len(linked); i++ {
			s.link(linked[i], linked[0])
		}
		return s.marks != before
	case (in.Event == "tab.created" || in.Event == "tab.updated") && in.Tab != nil && in.Tab.OpenerTabID != 0:
		s.mu.Lock()
		defer s.mu.Unlock()
		before := s.marks
		s.link(in.Tab.ID, in.Tab.OpenerTabID)
		return s.marks != before
	case in.Event == "cdp" && in.SessionID == "" && in.Method == cdppage.FrameNavigated.Method:
		var ev struct {
			Frame struct {
				ParentID string `json:"parentId"`
				LoaderID string `json:"loaderId"`
			} `json:"frame"`
			Type string `json:"type"`
		}
		if json.Unmarshal(in.Params, &ev) != nil || ev.Frame.ParentID != "" {
			return false
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		before := s.marks
		t := s.tab(in.TabID)
		t.current, t.followed = ev.Frame.LoaderID, true
		if ev.Type == string(cdppage.NavigationTypeBackForwardCacheRestore) && t.ever && !t.scripted[t.current] {
			t.scripted[t.current] = true
			s.marks++
		}
		s.spread(in.TabID)
		return s.marks != before
	}
	return false
}

// carried are a link's marks of its tabs' documents, for the link that
// follows it to the same browser (Hub.register): a relay restart or a
// stop of the extension's worker does not end a page, nor what an
// agent's script left in it.
type carried struct {
	tabs   map[int]*tabDocs
	links  map[int]map[int]bool
	cdp    map[int][]string      // browserlink.Link.AgentCDPMarks
	popups map[int]page.PopupTab // page.Layout.Popups: the spaces' popup windows
}

// take hands over what s knows, and forgets it.
func (s *scriptedDocs) take() (map[int]*tabDocs, map[int]map[int]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tabs, links := s.tabs, s.links
	s.tabs, s.links = nil, nil
	return tabs, links
}

// resume takes over what the link before this one knew of the tabs still
// open (isOpen; a tab's documents as it last heard of them: a navigation
// it did not hear of counts as the document before), and the openers of
// the tabs the browser lists now (those opened before the link heard of
// it).
func (s *scriptedDocs) resume(tabs map[int]*tabDocs, links map[int]map[int]bool, isOpen func(tab int) bool, open []protocol.Tab) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, t := range tabs {
		if isOpen(id) {
			if s.tabs == nil {
				s.tabs = make(map[int]*tabDocs)
			}
			s.tabs[id] = t
		}
	}
	for a, to := range links {
		for b := range to {
			if isOpen(a) && isOpen(b) {
				s.link(a, b)
			}
		}
	}
	for _, t := range open {
		s.link(t.ID, t.OpenerTabID)
	}
}

// carry hands over the link's marks of its tabs (scripted documents,
// agents' raw CDP) for the link that follows it to the same browser.
func (l *Link) carry() carried {
	tabs, links := l.scripted.take()
	return carried{tabs: tabs, links: links, cdp: l.AgentCDPMarks(), popups: l.Layout.Popups()}
}

// resume takes over the marks c of the link before this one to the same
// browser (none for its first), for the tabs open now: those the hello
// lists, or all of them when it lists none (its list failed).
func (l *Link) resume(c carried, open []protocol.Tab) {
	windows := make(map[int]int, len(open)) // tab → window
	for _, t := range open {
		windows[t.ID] = t.WindowID
	}
	isOpen := func(tab int) bool {
		_, ok := windows[tab]
		return ok || len(open) == 0
	}
	l.scripted.resume(c.tabs, c.links, isOpen, open)
	l.ResumeAgentCDP(c.cdp, isOpen)
	l.Layout.KeepPopups(c.popups, func(tab, window int) bool {
		w, ok := windows[tab]
		return ok && w == window || len(open) == 0
	})
}

// MarkScripted notes that an agent runs its own script in the document
// tab shows.
func (l *Link) MarkScripted(tab int) {
	if l.scripted.mark(tab) {
		l.marked()
	}
}

// MarkAgentCDP notes that the raw CDP of the named agent is about to
// reach tab (browserlink.Link.MarkAgentCDP).
func (l *Link) MarkAgentCDP(tab int, agent string) {
	if l.Link.MarkAgentCDP(tab, agent) {
		l.marked()
	}
}

// marked writes the link's new mark to the marks file (Hub.saveLiveMarks),
// so that a service that is killed, or fails, leaves it behind too.
func (l *Link) marked() {
	if l.saveMarks != nil {
		l.saveMarks()
	}
}

// saved is what the link knows now of its tabs' pages, as MarksFile
// keeps it.
func (l *Link) saved() map[int]savedTab {
	cdp := l.AgentCDPMarks()
	s := &l.scripted
	s.mu.Lock()
	defer s.mu.Unlock()
	return carried{tabs: s.tabs, links: s.links, cdp: cdp, popups: l.Layout.Popups()}.saved()
}

// ScriptedTabs are the tabs an agent's own script may run in, in order.
func (l *Link) ScriptedTabs() []int {
	s := &l.scripted
	s.mu.Lock()
	defer s.mu.Unlock()
	var tabs []int
	for id := range s.tabs {
		if s.atRisk(id) {
			tabs = append(tabs, id)
		}
	}
	slices.Sort(tabs)
	return tabs
}

// ScriptedAdvice splits tabs into those an agent's own script may run in
// and a reload makes the site's own again (reload), once the tabs in
// closeFirst are closed: scripted tabs linked to them (one opened the
// other), maybe not among tabs, that a reload would not make safe. A
// tab's script is as far as the link heard of its navigations: a new
// document it did not hear of counts as the one before.
func (l *Link) ScriptedAdvice(tabs []int) (reload, closeFirst []int) {
	return l.scripted.advise(tabs)
}
