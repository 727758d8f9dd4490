package page

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
)

// Tabs are the tabs of one browser that the service follows (a call
// reached them since their attach): each one's page engine, made on first
// use and closed with the tab. It is safe for concurrent use.
type Tabs struct {
	session func(tabID int) cdptab.Sessions // a tab's main session
	refs    *refmap.Counter                 // shared by every tab of every browser: refs never repeat

	mu   sync.Mutex
	log  *slog.Logger
	tabs map[int]*Tab
}

// NewTabs returns the followed tabs of a browser whose tab sessions
// session makes; refs numbers their snapshots' refs.
func NewTabs(session func(tabID int) cdptab.Sessions, refs *refmap.Counter) *Tabs {
	return &Tabs{session: session, refs: refs, tabs: make(map[int]*Tab)}
}

// SetLog sets the log of the tabs made from now on (the browser's, once
// it has its ID).
func (ts *Tabs) SetLog(log *slog.Logger) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.log = log
}

// Tab returns the engine of a tab, made on first use.
func (ts *Tabs) Tab(id int) *Tab {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.tabs[id]
	if !ok {
		t = NewTab(id, ts.session(id), ts.refs, ts.log)
		ts.tabs[id] = t
	}
	return t
}

// Followed returns the engine of a tab the service follows, nil for any
// other tab.
func (ts *Tabs) Followed(id int) *Tab {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.tabs[id]
}

// Drop forgets a tab's engine (closed or detached).
func (ts *Tabs) Drop(id int) {
	ts.mu.Lock()
	t := ts.tabs[id]
	delete(ts.tabs, id)
	ts.mu.Unlock()
	if t != nil {
		go t.Close() // never block the link's reader on the page's watchers
	}
}

// CloseAll closes every tab's engine (the browser's link ended).
func (ts *Tabs) CloseAll() {
	ts.mu.Lock()
	tabs := ts.tabs
	ts.tabs = make(map[int]*Tab)
	ts.mu.Unlock()
	for _, t := range tabs {
		t.Close()
	}
}

// Open returns the tab and its engine, opening its page on first use. A
// tab dropped while the call reached it (a detach, then the call run
// again) is opened as the new Tab that stands for it now, never again as
// the dropped one (whose page nobody would close).
func (ts *Tabs) Open(ctx context.Context, id int) (*Tab, Engine, error) {
	for range 3 {
		t := ts.Tab(id)
		eng, err := t.Open(ctx)
		if err == nil || !t.Closed() {
			return t, eng, err
		}
	}
	return nil, Engine{}, protocol.Errorf(protocol.CodeDetached, "tab %d was detached again and again while it was reached", id)
}

// Dialog returns the dialog open on a followed tab, or nil.
func (ts *Tabs) Dialog(id int) *protocol.Dialog {
	if t := ts.Followed(id); t != nil {
		return t.Dialog()
	}
	return nil
}

// HasPage reports whether the tab's page is open (attached).
func (ts *Tabs) HasPage(id int) bool {
	t := ts.Followed(id)
	if t == nil {
		return false
	}
	_, ok := t.Engine()
	return ok
}

// RecordOf returns the record of a followed tab, nil when it has none.
func (ts *Tabs) RecordOf(id int) *Record {
	if t := ts.Followed(id); t != nil {
		return t.Record()
	}
	return nil
}

// WithRef returns the tab whose latest snapshot handed out ref.
func (ts *Tabs) WithRef(ref string) (int, bool) {
	ts.mu.Lock()
	tabs := make(map[int]*Tab, len(ts.tabs))
	for id, t := range ts.tabs {
		tabs[id] = t
	}
	ts.mu.Unlock()
	for id, t := range tabs {
		eng, ok := t.Engine()
		if !ok {
			continue
		}
		if _, ok := eng.Snap.Refs().Get(ref); ok {
			return id, true
		}
	}
	return 0, false
}

// Track follows one event of the browser's link: a closed or detached
// tab's engine goes; a CDP event of a tab's main session feeds the tab's
// dialog state and, unless held says the person holds the tab, its
// record. held is asked about the event's own time for a console message
// or an exception (Chrome replays those logged before when the debugger
// attaches: one logged while the person held the tab is theirs), about
// now (the zero time) for the rest. It runs in the link's reader.
func (ts *Tabs) Track(in *extwire.Message, held func(tab int, at time.Time) bool) {
	switch in.Event {
	case "tab.removed", "detached":
		ts.Drop(in.TabID)
	case "cdp":
		if in.SessionID == "" {
			ts.follow(in, held)
		}
	}
}

func (ts *Tabs) follow(in *extwire.Message, held func(tab int, at time.Time) bool) {
	if DialogEvent(in.Method) {
		// Followed or not: a dialog that opens now blocks the tab's next call.
		ts.Tab(in.TabID).FollowDialog(in.Method, in.Params)
		return
	}
	if !Records(in.Method) {
		return
	}
	t := ts.Followed(in.TabID)
	if t == nil || (held != nil && held(in.TabID, LoggedAt(in.Method, in.Params))) {
		return // not followed, or the person's own doings
	}
	if rec := t.Record(); rec != nil {
		rec.Add(in.Method, in.Params)
	}
}
