// Package refmap holds a tab's snapshot refs: "@23" → the DOM node (its
// backendNodeId, role, accessible name, frame and document) it named when
// the snapshot was taken. It does no I/O. Every snapshot replaces the whole
// map; a helper that gets a ref while the map is empty takes one snapshot
// first, shared by every caller that races for it. Numbering gives the same
// node the same ref in every snapshot of a tab and never gives a number to
// a second node.
package refmap

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/engine/locator"
)

// Entry is what a ref names.
type Entry struct {
	Ref           string            `json:"ref"` // canonical, e.g. "23"
	BackendNodeID cdp.BackendNodeID `json:"backendNodeId"`
	Role          string            `json:"role"`
	Name          string            `json:"name"`
	// Text is, for an element with no name, its text when that is one run
	// of at most TextMax bytes (what a snapshot shows after it:
	// `term @12: localclient@127.0.0.1`): the fallback for a removed
	// element looks for it with its role and that text first. ""
	// otherwise.
	Text      string           `json:"text,omitempty"`
	Nth       int              `json:"nth"`                // index among entries with the same role and name
	Selector  string           `json:"selector,omitempty"` // filled in when a stable selector is known
	FrameID   cdp.FrameID      `json:"frameId,omitempty"`  // the frame the node lives in ("" = main frame)
	SessionID target.SessionID `json:"sessionId,omitempty"`
	LoaderID  cdp.LoaderID     `json:"loaderId,omitempty"` // the document the node came from
	// Local is the node's number in the snapshot registry of its frame's
	// document (snapshot resolves it to BackendNodeID when the ref is used,
	// so a snapshot need not fetch every backendNodeId). 0 = none.
	Local int64 `json:"local,omitempty"`
}

// TextMax bounds Entry.Text.
const TextMax = 80

// ParseRef returns the canonical ref ("21") for "@21", "ref=21" or "21",
// and false for anything else (locator.ParseRef: the target syntax).
func ParseRef(input string) (string, bool) { return locator.ParseRef(input) }

// ForeignRef reports whether input is a ref in another tool's form, such
// as "e12" or "[ref=e5]" (locator.ForeignRef).
func ForeignRef(input string) bool { return locator.ForeignRef(input) }

// Map is one tab's refs. It is safe for concurrent use.
type Map struct {
	mu         sync.Mutex
	entries    map[string]Entry
	generation uint64
	flight     *flight
}

type flight struct {
	done      chan struct{}
	err       error
	followers int // callers waiting on this flight (guarded by Map.mu)
}

// New returns an empty map.
func New() *Map { return &Map{entries: make(map[string]Entry)} }

// Add records ref → backendNodeID in the main frame.
func (m *Map) Add(ref string, backendNodeID cdp.BackendNodeID, role, name string, nth int) {
	m.AddWithFrame(ref, backendNodeID, role, name, nth, "")
}

// AddWithFrame records ref → backendNodeID in the given frame.
func (m *Map) AddWithFrame(ref string, backendNodeID cdp.BackendNodeID, role, name string, nth int, frameID cdp.FrameID) {
	m.AddEntry(Entry{Ref: ref, BackendNodeID: backendNodeID, Role: role, Name: name, Nth: nth, FrameID: frameID})
}

// AddEntry records a whole entry under e.Ref.
func (m *Map) AddEntry(e Entry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries[e.Ref] = e
}

// Get returns the entry of a canonical ref.
func (m *Map) Get(ref string) (Entry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[ref]
	return e, ok
}

// Clear removes every entry.
func (m *Map) Clear() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries = make(map[string]Entry)
	m.generation++
}

// Size returns the number of entries.
func (m *Map) Size() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}

// Generation counts the rebuilds and clears of the map.
func (m *Map) Generation() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.generation
}

// Rebuild discards every entry and fills the map from a snapshot's entries,
// in one step: readers see the old map or the new one, never a mix.
// Entries without a ref, or with neither a backendNodeId nor a Local
// number to find the node by, are skipped.
func (m *Map) Rebuild(entries []Entry) {
	fresh := make(map[string]Entry, len(entries))
	for _, e := range entries {
		if e.Ref == "" || (e.BackendNodeID == 0 && e.Local == 0) {
			continue
		}
		fresh[e.Ref] = e
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries = fresh
	m.generation++
}

// Entries returns a copy of every entry, in no particular order.
func (m *Map) Entries() []Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Collect(maps.Values(m.entries))
}

// Ensure makes sure the map is populated before input is resolved: when
// input is a ref and the map is empty, it calls snapshot (which is expected
// to Rebuild the map). Callers that race share one call and all wait for
// it. Input that is not a ref, or a populated map, costs nothing.
func (m *Map) Ensure(ctx context.Context, input string, snapshot func(context.Context) error) error {
	if _, ok := ParseRef(input); !ok {
		return nil
	}
	for {
		err, retry := m.ensureOnce(ctx, snapshot)
		if !retry {
			return err
		}
	}
}

// ensureOnce is one round of Ensure. retry is true when this caller
// followed a leader whose own context ended: its snapshot says nothing
// about this caller, whose context is still alive, so it tries again.
func (m *Map) ensureOnce(ctx context.Context, snapshot func(context.Context) error) (err error, retry bool) {
	m.mu.Lock()
	if len(m.entries) > 0 {
		m.mu.Unlock()
		return nil, false
	}
	f := m.flight
	leader := f == nil
	if leader {
		f = &flight{done: make(chan struct{})}
		m.flight = f
	} else {
		f.followers++
	}
	m.mu.Unlock()

	if leader {
		f.err = snapshot(ctx)
		m.mu.Lock()
		m.flight = nil
		m.mu.Unlock()
		close(f.done)
		return f.err, false
	}
	select {
	case <-f.done:
		if f.err != nil && ctx.Err() == nil && (errors.Is(f.err, context.DeadlineExceeded) || errors.Is(f.err, context.Canceled)) {
			return nil, true
		}
		return f.err, false
	case <-ctx.Done():
		return ctx.Err(), false
	}
}
