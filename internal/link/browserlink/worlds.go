package browserlink

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/link/extwire"
)

// This file remembers which execution contexts of each tab are egohost's
// own isolated worlds, so that a paired agent's raw CDP can be kept out of
// them (PROTOCOL.md §3.7.1): a world the service made through a Session
// (Page.createIsolatedWorld's answer: every world the service makes is
// egohost's, and agents' raw CDP does not go through a Session), and a
// world Chrome reports made under egohost's name (the new documents'
// worlds, a session whose Runtime domain is on). A context is forgotten
// when Chrome says it is gone, its session detaches or its tab goes.

// OwnWorldName reports whether an isolated world's name is one egohost's
// engine gives its worlds: "egohost" and any name that starts so (the
// rule pairing.EgohostWorld keeps agents from).
func OwnWorldName(name string) bool { return strings.HasPrefix(name, "egohost") }

// maxOwnWorlds bounds the worlds remembered for one tab; past it the
// oldest goes (a page that keeps making frames, each with egohost's world,
// and never ending them).
const maxOwnWorlds = 4096

// ownWorld is a remembered world: its system-unique ID when Chrome said
// it, and when it was added (the oldest goes first past the bound).
type ownWorld struct {
	unique string
	seq    uint64
}

// ownWorlds are the egohost worlds of a link's tabs, by tab, session ID
// ("" the tab's own) and execution context ID.
type ownWorlds struct {
	mu      sync.Mutex
	tabs    map[int]map[string]map[int64]ownWorld
	counts  map[int]int         // each tab's worlds
	uniques map[string]struct{} // every remembered world's unique ID
	seq     uint64
}

func (w *ownWorlds) add(tab int, session string, id int64, unique string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tabs == nil {
		w.tabs = make(map[int]map[string]map[int64]ownWorld)
		w.counts = make(map[int]int)
		w.uniques = make(map[string]struct{})
	}
	sessions := w.tabs[tab]
	if sessions == nil {
		sessions = make(map[string]map[int64]ownWorld)
		w.tabs[tab] = sessions
	}
	ids := sessions[session]
	if ids == nil {
		ids = make(map[int64]ownWorld)
		sessions[session] = ids
	}
	old, had := ids[id]
	if !had {
		if w.counts[tab] >= maxOwnWorlds {
			w.dropOldestLocked(tab)
		}
		w.counts[tab]++
	}
	if unique == "" {
		unique = old.unique
	}
	w.seq++
	ids[id] = ownWorld{unique: unique, seq: w.seq}
	if unique != "" {
		w.uniques[unique] = struct{}{}
	}
}

func (w *ownWorlds) dropOldestLocked(tab int) {
	var oldS string
	var oldID int64
	var oldSeq uint64
	for s, ids := range w.tabs[tab] {
		for id, ow := range ids {
			if oldSeq == 0 || ow.seq < oldSeq {
				oldS, oldID, oldSeq = s, id, ow.seq
			}
		}
	}
	if oldSeq != 0 {
		w.deleteLocked(tab, oldS, oldID)
	}
}

func (w *ownWorlds) deleteLocked(tab int, session string, id int64) {
	ids := w.tabs[tab][session]
	ow, ok := ids[id]
	if !ok {
		return
	}
	delete(ids, id)
	delete(w.uniques, ow.unique)
	w.counts[tab]--
}

// dropSession forgets a session's worlds.
func (w *ownWorlds) dropSession(tab int, session string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ow := range w.tabs[tab][session] {
		delete(w.uniques, ow.unique)
		w.counts[tab]--
	}
	delete(w.tabs[tab], session)
}

// dropTab forgets a tab's worlds.
func (w *ownWorlds) dropTab(tab int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, ids := range w.tabs[tab] {
		for _, ow := range ids {
			delete(w.uniques, ow.unique)
		}
	}
	delete(w.tabs, tab)
	delete(w.counts, tab)
}

func (w *ownWorlds) has(tab int, session string, id int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.tabs[tab][session][id]
	return ok
}

func (w *ownWorlds) hasUnique(unique string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.uniques[unique]
	return ok
}

// event follows one event of the browser: the worlds Chrome reports made
// under egohost's name, and the ends of contexts, sessions and tabs. It
// runs in the link's reader, before any subscriber gets the event (an
// agent that learns of a world from it finds it remembered).
func (w *ownWorlds) event(in *extwire.Message) {
	// A debugger's detach ends no context: a page's worlds and their IDs
	// outlive the session, and egohost may use them again after it attaches
	// again.
	switch in.Event {
	case "tab.removed":
		w.dropTab(in.TabID)
		return
	case "cdp":
	default:
		return
	}
	switch in.Method {
	case runtime.ExecutionContextCreated.Method:
		var ev struct {
			Context struct {
				ID       int64  `json:"id"`
				Name     string `json:"name"`
				UniqueID string `json:"uniqueId"`
			} `json:"context"`
		}
		if json.Unmarshal(in.Params, &ev) == nil && OwnWorldName(ev.Context.Name) {
			w.add(in.TabID, in.SessionID, ev.Context.ID, ev.Context.UniqueID)
		}
	case runtime.ExecutionContextDestroyed.Method:
		var ev struct {
			ID int64 `json:"executionContextId"`
		}
		if json.Unmarshal(in.Params, &ev) == nil {
			w.mu.Lock()
			w.deleteLocked(in.TabID, in.SessionID, ev.ID)
			w.mu.Unlock()
		}
	case runtime.ExecutionContextsCleared.Method:
		w.dropSession(in.TabID, in.SessionID)
	case target.DetachedFromTarget.Method:
		var ev struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(in.Params, &ev) == nil && ev.SessionID != "" {
			w.dropSession(in.TabID, ev.SessionID)
		}
	}
}

// OwnContext reports whether execution context id of a tab's session
// ("" its own) is one of egohost's own isolated worlds.
func (l *Link) OwnContext(tab int, session string, id int64) bool {
	return l.worlds.has(tab, session, id)
}

// OwnUniqueContext reports whether a system-unique execution context ID
// is one of egohost's own isolated worlds (in any tab).
func (l *Link) OwnUniqueContext(unique string) bool { return l.worlds.hasUnique(unique) }
