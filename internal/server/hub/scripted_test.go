package hub

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/browserids"
	"github.com/egohost/egohost/internal/testkit/fakeext"
	"github.com/egohost/egohost/internal/testkit/sockdir"
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
		{name: "tab 5 closed: 3 and 6 stay linked (6 may hold 3's window: opener.opener)", do: func() { s.event(&extwire.Message{Event: "tab.removed", TabID: 5}) }, want: []int{3, 6}, reload: []int{3}, closeFirst: []int{6}},
		{name: "tab 3 reloaded while 6 is open", do: func() { nav(3, "L3") }, want: []int{3, 6}, reload: []int{3}, closeFirst: []int{6}},
		{name: "tab 6 closed, then tab 3 reloaded", do: func() { s.event(&extwire.Message{Event: "tab.removed", TabID: 6}); nav(3, "L4") }},
		{name: "a clean tab opened one", do: func() { opened("tab.created", 7, 3); nav(7, "N1") }},
		{name: "an agent ran script in tab 7, then it opened tab 8", do: func() { s.mark(7); opened("tab.created", 8, 7) }, want: []int{3, 7, 8}, reload: []int{3}, closeFirst: []int{7, 8}},
		{name: "tabs 7 and 3 closed; tab 8's opener is tab 9, whose documents the link never followed: close both", do: func() {
			s.event(&extwire.Message{Event: "tab.removed", TabID: 7})
			s.event(&extwire.Message{Event: "tab.removed", TabID: 3})
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
	// The tab to reload is one asked about: the person's tab 20 opened
	// tab 21, which an agent's space took, and its script reached 20.
	nav(20, "P1")
	opened("tab.created", 21, 20)
	nav(21, "Q1")
	s.mark(21)
	if reload, closeFirst := s.advise([]int{21}); !slices.Equal(reload, []int{21}) || !slices.Equal(closeFirst, []int{20}) {
		t.Errorf("the space's tab 21, opened by the person's tab 20: reload %v, close first %v; want [21], [20]", reload, closeFirst)
	}
}

// What a link knew of its tabs' pages (an agent's script in one, a tab it
// opened, an agent's raw CDP on its session) goes on with the next link to
// the same browser: a relay restart, a stop of the extension's worker or
// of the service ends neither the page nor the debugger session. A tab
// closed meanwhile is forgotten, and the openers in the browser's hello
// are learned.
func TestMarksOutliveTheLink(t *testing.T) {
	dir := sockdir.New(t)
	f := newFixture(t, dir, nil)
	hello := func(tabs ...protocol.Tab) (*fakeext.Ext, *Link) { t.Helper(); return helloB1(t, f, tabs...) }
	check := func(what string, l *Link, wantReload, wantClose []int, wantCDP map[int]bool) {
		t.Helper()
		reload, closeFirst := l.ScriptedAdvice([]int{3, 5, 7})
		if !slices.Equal(reload, wantReload) || !slices.Equal(closeFirst, wantClose) {
			t.Errorf("%s: reload %v, close first %v; want %v, %v", what, reload, closeFirst, wantReload, wantClose)
		}
		for _, tab := range []int{3, 5, 7} {
			if got := l.AgentCDP(tab); got != wantCDP[tab] {
				t.Errorf("%s: tab %d reached by an agent's raw CDP: %v, want %v", what, tab, got, wantCDP[tab])
			}
		}
	}
	// Tab 5 was opened by tab 3 before the link: the hello says so.
	e, l := hello(protocol.Tab{ID: 3}, protocol.Tab{ID: 5, OpenerTabID: 3}, protocol.Tab{ID: 7})
	l.MarkScripted(3)
	l.MarkAgentCDP(3, "alice")
	l.MarkAgentCDP(7, "bob")
	check("the first link", l, []int{3}, []int{5}, map[int]bool{3: true, 7: true})
	e.Conn.Close()
	waitGone(t, f, "b1")
	// Tab 7 closed while no link was up.
	e, l = hello(protocol.Tab{ID: 3}, protocol.Tab{ID: 5, OpenerTabID: 3})
	check("the next link", l, []int{3}, []int{5}, map[int]bool{3: true})
	// A hello whose tab list failed (none listed) forgets nothing.
	e.Conn.Close()
	waitGone(t, f, "b1")
	e, l = hello()
	check("a link whose hello listed no tab", l, []int{3}, []int{5}, map[int]bool{3: true})
	l.event(&extwire.Message{Event: "cdp", TabID: 5, Method: "Page.frameNavigated", Params: []byte(`{"frame":{"id":"F","loaderId":"L5"},"type":"Navigation"}`)})
	e.Conn.Close()
	waitGone(t, f, "b1")
	// The service restarts; its browser's hello lists tab 5 as opened
	// by nobody now.
	f.stop()
	f = newFixture(t, dir, nil)
	_, l = hello(protocol.Tab{ID: 3}, protocol.Tab{ID: 5}, protocol.Tab{ID: 7})
	check("after a restart of the service", l, []int{3}, []int{5}, map[int]bool{3: true})
	// The link took them, and the file keeps them with the marks the link
	// makes: a service killed now (its links never end) leaves them all
	// to the next one, started here on a copy of the data dir.
	l.MarkScripted(7)
	l.MarkAgentCDP(7, "carol")
	killed := sockdir.New(t)
	copyFiles(t, dir, killed, MarksFile, browserids.File)
	f = newFixture(t, killed, nil)
	_, l = hello(protocol.Tab{ID: 3}, protocol.Tab{ID: 5}, protocol.Tab{ID: 7})
	check("after the service was killed", l, []int{3, 7}, []int{5}, map[int]bool{3: true, 7: true})
}

// What the scripted pages' bookkeeping adds to the link's reader, per
// event: a main frame's new document in a tab on its own and in one of 20
// linked tabs (one opened the next) an agent's script ran in, and a
// tab.updated naming an opener the link knows already.
// Run: go test ./internal/server/hub -run '^$' -bench ScriptedEvent
func BenchmarkScriptedEvent(b *testing.B) {
	nav := func(tab int) *extwire.Message {
		return &extwire.Message{Event: "cdp", TabID: tab, Method: "Page.frameNavigated",
			Params: []byte(`{"frame":{"id":"F","loaderId":"L","url":"https://a.example/"},"type":"Navigation"}`)}
	}
	b.Run("new document, a tab alone", func(b *testing.B) {
		var s scriptedDocs
		in := nav(1)
		for b.Loop() {
			s.event(in)
		}
	})
	// linked20 is 20 tabs, each opened by the one before, the first
	// scripted.
	linked20 := func() *scriptedDocs {
		s := new(scriptedDocs)
		for i := 2; i <= 20; i++ {
			s.event(&extwire.Message{Event: "tab.created", Tab: &protocol.Tab{ID: i, OpenerTabID: i - 1}})
		}
		s.mark(1)
		return s
	}
	b.Run("new document, 20 linked tabs scripted", func(b *testing.B) {
		s := linked20()
		in := nav(10)
		for b.Loop() {
			s.event(in)
		}
	})
	b.Run("an agent's call (mark) on a scripted tab of 20 linked", func(b *testing.B) {
		s := linked20()
		for b.Loop() {
			s.mark(10)
		}
	})
	b.Run("tab.updated, a known opener", func(b *testing.B) {
		var s scriptedDocs
		in := &extwire.Message{Event: "tab.updated", Tab: &protocol.Tab{ID: 2, OpenerTabID: 1}}
		s.event(in)
		for b.Loop() {
			s.event(in)
		}
	})
}

// An event says when it marked a tab (the link then writes MarksFile): a
// tab opened by a scripted one, a new document of a tab linked to one, a
// page the back/forward cache gave back to a tab ever scripted; not a
// new document or a link that marks nothing.
func TestEventSaysWhenItMarks(t *testing.T) {
	var s scriptedDocs
	opened := func(tab, opener int) *extwire.Message {
		return &extwire.Message{Event: "tab.created", Tab: &protocol.Tab{ID: tab, OpenerTabID: opener}}
	}
	nav := func(tab int, loader, typ string) *extwire.Message {
		return &extwire.Message{Event: "cdp", TabID: tab, Method: "Page.frameNavigated",
			Params: fmt.Appendf(nil, `{"frame":{"id":"F","loaderId":%q},"type":%q}`, loader, typ)}
	}
	for _, step := range []struct {
		what   string
		do     func() bool
		marked bool
	}{
		{"tab 2 opened by tab 1, nothing scripted", func() bool { return s.event(opened(2, 1)) }, false},
		{"an agent's script in tab 1", func() bool { return s.mark(1) }, true},
		{"the same again", func() bool { return s.mark(1) }, false},
		{"tab 3 opened by tab 1", func() bool { return s.event(opened(3, 1)) }, true},
		{"tab 4 on its own navigates", func() bool { return s.event(nav(4, "A", "Navigation")) }, false},
		{"tab 5 shows a document", func() bool { return s.event(nav(5, "D", "Navigation")) }, false},
		{"tab 5 said to be opened by tab 1", func() bool {
			return s.event(&extwire.Message{Event: "tab.updated", Tab: &protocol.Tab{ID: 5, OpenerTabID: 1}})
		}, true},
		{"tab 5's next document, tab 1 still scripted", func() bool { return s.event(nav(5, "E", "Navigation")) }, true},
		{"tab 4 navigates again, then is scripted", func() bool { s.event(nav(4, "C", "Navigation")); return s.mark(4) }, true},
		{"tab 4's first document back from the cache", func() bool { return s.event(nav(4, "A", "BackForwardCacheRestore")) }, true},
		{"tab 4's next document", func() bool { return s.event(nav(4, "G", "Navigation")) }, false},
		{"tab 3 closes", func() bool { return s.event(&extwire.Message{Event: "tab.removed", TabID: 3}) }, false},
	} {
		if got := step.do(); got != step.marked {
			t.Errorf("%s: marked %v, want %v", step.what, got, step.marked)
		}
	}
}

// What a mark costs the call that makes it: MarksFile written whole, for
// a browser with 20 tabs an agent's script ran in (the file is written
// at a link's first mark of a document, not at every call).
// Run: go test ./internal/server/hub -run '^$' -bench SaveMarks
func BenchmarkSaveMarks(b *testing.B) {
	h := New(Options[*Link]{DataDir: b.TempDir(), Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	var s scriptedDocs
	for i := 1; i <= 20; i++ {
		s.event(&extwire.Message{Event: "cdp", TabID: i, Method: "Page.frameNavigated", Params: fmt.Appendf(nil, `{"frame":{"id":"F","loaderId":"L%d"},"type":"Navigation"}`, i)})
		s.mark(i)
	}
	tabs, links := s.take()
	h.carried["b1"] = carried{tabs: tabs, links: links, cdp: map[int][]string{1: {"bot"}}}
	for b.Loop() {
		h.mu.Lock()
		h.saveMarks()
		h.mu.Unlock()
	}
}

// A space's popup window stays in its space through a relay restart and a
// service restart (a hello's list cannot say which group its opener was
// in when it came), while it is in the same window.
func TestPopupsOutliveTheLink(t *testing.T) {
	dir := sockdir.New(t)
	f := newFixture(t, dir, nil)
	hello := func(tabs ...protocol.Tab) (*fakeext.Ext, *Link) { t.Helper(); return helloB1(t, f, tabs...) }
	opener := protocol.Tab{ID: 3, WindowID: 1, GroupID: 50}
	popup := protocol.Tab{ID: 9, WindowID: 9, Popup: true, OpenerTabID: 3}
	e, l := hello(opener)
	l.event(&extwire.Message{Event: "tab.created", Tab: &popup})
	if got := l.Layout.GroupOf(9); got != 50 {
		t.Fatalf("the popup's group: %d, want 50", got)
	}
	// A service killed now (its link up) leaves it too: a service started
	// on a copy of the data dir places it.
	killed := sockdir.New(t)
	copyFiles(t, dir, killed, MarksFile, browserids.File)
	if _, k := helloB1(t, newFixture(t, killed, nil), opener, popup); k.Layout.GroupOf(9) != 50 {
		t.Errorf("after the service was killed: the popup's group %d, want 50", k.Layout.GroupOf(9))
	}
	e.Conn.Close()
	waitGone(t, f, "b1")
	e, l = hello(opener, popup)
	if got := l.Layout.GroupOf(9); got != 50 {
		t.Errorf("after a relay restart: the popup's group %d, want 50", got)
	}
	e.Conn.Close()
	waitGone(t, f, "b1")
	f.stop()
	f = newFixture(t, dir, nil)
	e, l = hello(opener, popup)
	if got := l.Layout.GroupOf(9); got != 50 {
		t.Errorf("after a service restart: the popup's group %d, want 50", got)
	}
	e.Conn.Close()
	waitGone(t, f, "b1")
	moved := popup
	moved.WindowID = 10
	_, l = hello(opener, moved)
	if got := l.Layout.GroupOf(9); got != 0 {
		t.Errorf("the popup in another window at the hello: group %d, want 0", got)
	}
}

// helloB1 connects a fake extension to f that says hello with browser key
// keyA and tabs, and returns it and its link, b1.
func helloB1(t *testing.T, f *fixture, tabs ...protocol.Tab) (*fakeext.Ext, *Link) {
	t.Helper()
	e := f.connectExt(t, testOrigin)
	if id := e.HelloAs(keyA, tabs...); id != "b1" {
		t.Fatalf("after hello: browser %q, want b1", id)
	}
	return e, f.h.Get("b1")
}

// copyFiles copies the named files of dir from to dir to, as a service
// killed at that moment leaves them.
func copyFiles(t *testing.T, from, to string, names ...string) {
	t.Helper()
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
