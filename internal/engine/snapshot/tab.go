package snapshot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/refmap"
)

// Errors of Lookup, for errors.Is: the ref map's (refmap.ErrStaleRef, …),
// by their old names.
var (
	ErrStaleRef   = refmap.ErrStaleRef
	ErrUnknownRef = refmap.ErrUnknownRef
	ErrNotRef     = refmap.ErrNotRef
	ErrGone       = refmap.ErrGone
)

// Tab is one tab's snapshot state: its ref map, the numbering that keeps
// an element's ref the same across snapshots, and the previous snapshot
// for diffs. Use one Tab per tab; it is safe for concurrent use.
type Tab struct {
	t         cdptab.Tab
	refs      *refmap.Map
	numbering *refmap.Numbering
	loaded    loadedDocs // the documents that hold snapshot.js
	mainWorld MainWorld  // set by UseMainWorld before first use
	pack      int        // set by PackOver before first use: the Options.Pack of a call that names none

	mu   sync.Mutex // one snapshot at a time
	prev *Snapshot  // the latest snapshot, of any shape
	// byShape keeps the latest snapshot of each shape, so that a diff
	// compares like with like (an interactive snapshot with the previous
	// interactive one, never with a full one). At most maxShapes.
	byShape map[shape]*Snapshot
	shapes  []shape // byShape's keys, oldest first
}

// maxShapes bounds the snapshots a Tab keeps for diffs (one per shape:
// full, interactive, viewport, a few scopes).
const maxShapes = 8

// shape is what a snapshot covers and how it renders: two snapshots diff
// line for line only when their shapes are equal.
type shape struct {
	interactive, viewport, urls bool
	scope                       string
	scopeNode                   cdp.BackendNodeID
	scopeSession                target.SessionID
	viewer                      string // Options.Viewer: a diff never shows one viewer what another saw
}

func shapeOf(opts Options) shape {
	return shape{interactive: opts.Interactive, viewport: opts.Viewport, urls: opts.URLs && !opts.Interactive, scope: opts.Scope, scopeNode: opts.ScopeNode, scopeSession: opts.ScopeSession, viewer: opts.Viewer}
}

// String names a shape for people: "full", "interactive (-i)", "viewport, scope @3".
func (s shape) String() string {
	var parts []string
	if s.interactive {
		parts = append(parts, "interactive (-i)")
	}
	if s.viewport {
		parts = append(parts, "viewport")
	}
	if s.urls {
		parts = append(parts, "urls")
	}
	switch {
	case s.scope != "":
		parts = append(parts, "scope "+s.scope)
	case s.scopeNode != 0:
		parts = append(parts, "the same scope")
	}
	if len(parts) == 0 {
		return "full"
	}
	return strings.Join(parts, ", ")
}

// remember keeps s as the latest snapshot of its shape.
func (t *Tab) remember(k shape, s *Snapshot) {
	if t.byShape == nil {
		t.byShape = make(map[shape]*Snapshot)
	}
	if _, ok := t.byShape[k]; !ok {
		if len(t.shapes) == maxShapes {
			delete(t.byShape, t.shapes[0])
			t.shapes = t.shapes[1:]
		}
		t.shapes = append(t.shapes, k)
	}
	t.byShape[k] = s
}

// NewTab returns the snapshot state of the tab t, with refs counting from 1.
func NewTab(t cdptab.Tab) *Tab {
	return NewTabShared(t, refmap.NewCounter())
}

// NewTabShared returns the snapshot state of the tab t, drawing ref numbers
// from c. Tabs that share a counter never share a ref: a ref of one tab is
// an unknown ref on the others.
func NewTabShared(t cdptab.Tab, c *refmap.Counter) *Tab {
	return &Tab{t: t, refs: refmap.New(), numbering: refmap.NewSharedNumbering(c)}
}

// UseMainWorld has the tab's snapshots walk the main frame's document in
// the world f gives, when it gives one, beside their read of the frame
// tree: one round trip less (World). Call it before the Tab's first use.
func (t *Tab) UseMainWorld(f MainWorld) { t.mainWorld = f }

// PackOver has the tab's snapshots pack a walk result of at least n
// characters (Options.Pack), unless a call says otherwise: for a tab whose
// commands cross the extension. Call it before the Tab's first use.
func (t *Tab) PackOver(n int) { t.pack = n }

// Refs returns the tab's ref map.
func (t *Tab) Refs() *refmap.Map { return t.refs }

// Previous returns the tab's latest snapshot taken with Snapshot (nil
// before the first).
func (t *Tab) Previous() *Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.prev
}

// Snapshot takes a snapshot of the tab and rebuilds its ref map from it.
// opts.Scope may be a ref of this tab; opts.DiffPrevious diffs against
// the previous snapshot.
func (t *Tab) Snapshot(ctx context.Context, opts Options) (*Snapshot, error) {
	return t.snapshot(ctx, opts, true)
}

func (t *Tab) snapshot(ctx context.Context, opts Options, keep bool) (*Snapshot, error) {
	var sc *scope
	if opts.Scope != "" {
		// Lookup, not just the map: a ref whose page navigated must fail
		// closed as stale before the walk.
		e, err := t.Lookup(ctx, opts.Scope)
		if err != nil {
			return nil, fmt.Errorf("snapshot scope: %w", err)
		}
		sc = &scope{session: e.SessionID, frameID: e.FrameID, local: e.Local, backendNodeID: e.BackendNodeID}
		if e.Local != 0 {
			sc.backendNodeID = 0
		}
	} else if opts.ScopeNode != 0 {
		sc = &scope{session: opts.ScopeSession, backendNodeID: opts.ScopeNode}
	}
	opts.Numbering = t.numbering
	if opts.Pack == 0 {
		opts.Pack = t.pack
	}
	opts.loaded = &t.loaded
	opts.world = t.mainWorld
	t.mu.Lock()
	defer t.mu.Unlock()
	k := shapeOf(opts)
	if opts.DiffPrevious && opts.Diff == nil {
		opts.Diff = t.byShape[k]
		if opts.Diff == nil {
			opts.noDiff = fmt.Sprintf("[diff: no earlier %s snapshot of this tab to compare with (a diff compares like with like); the whole snapshot follows]", k)
		}
	}
	s, err := take(ctx, t.t, opts, sc)
	if err != nil {
		return nil, err
	}
	t.refs.Rebuild(s.Entries)
	docs := make(map[cdp.FrameID]cdp.LoaderID)
	for _, e := range s.Entries {
		docs[e.FrameID] = e.LoaderID
	}
	if sc == nil && !opts.Viewport && len(s.Stats.FrameErrors) == 0 && s.Stats.Withheld == 0 {
		// Forget the numbers of documents that are gone (their refs stay
		// stale forever: numbers are never handed out twice). Only after a
		// snapshot that saw every element of every frame: a viewport
		// snapshot, one with a frame it could not walk or one that
		// withheld a frame would make elements it did not see lose their
		// numbers.
		t.numbering.Forget(func(f cdp.FrameID, l cdp.LoaderID) bool { return docs[f] == l })
	}
	if keep {
		t.prev = s
		t.remember(k, s)
	}
	return s, nil
}

// entry returns the map's entry for a ref input, or why there is none.
func (t *Tab) entry(input string) (refmap.Entry, error) {
	ref, ok := refmap.ParseRef(input)
	if !ok {
		return refmap.Entry{}, fmt.Errorf("%w: %q (want @N, ref=N or N)", ErrNotRef, input)
	}
	if e, ok := t.refs.Get(ref); ok {
		return e, nil
	}
	if t.numbering.Issued(ref) {
		return refmap.Entry{}, fmt.Errorf("%w @%s: the latest snapshot no longer has it (the page changed); take a new snapshot", ErrStaleRef, ref)
	}
	return refmap.Entry{}, fmt.Errorf("%w @%s: this tab's latest snapshot has %d refs; take a new snapshot and use one of its refs", ErrUnknownRef, ref, t.refs.Size())
}

// Lookup returns the entry of a ref with its BackendNodeID filled in. When
// the tab has no refs yet it takes a snapshot first (one, shared by every
// caller that races for it). A ref whose document navigated fails with
// ErrStaleRef; a ref the tab never handed out with ErrUnknownRef; a ref
// whose element was removed returns its entry with ErrGone.
func (t *Tab) Lookup(ctx context.Context, input string) (refmap.Entry, error) {
	err := t.refs.Ensure(ctx, input, func(ctx context.Context) error {
		_, err := t.snapshot(ctx, Options{Interactive: true}, false)
		return err
	})
	if err != nil {
		return refmap.Entry{}, fmt.Errorf("lookup %s: lazy snapshot: %w", input, err)
	}
	e, err := t.entry(input)
	if err != nil {
		return refmap.Entry{}, err
	}
	if e.Local == 0 {
		return e, nil // the backendNodeId came with the snapshot
	}
	return t.resolve(ctx, e)
}

// Local returns a ref's entry as this tab's snapshots gave it, with no
// round trip and no lazy snapshot, and, when its element is known by a
// local id of snapshot.js, an expression that evaluates, in egohost's
// world of the entry's document, to that element: null when the latest
// snapshot of the document no longer has it, when it left the document,
// or when the world holds no snapshot.js (nothing is installed). The
// expression proves nothing about the document: the caller runs it only
// in the world of the entry's document (its LoaderID). ok is false when
// the tab has no such entry, or it came with its BackendNodeID (Lookup
// then).
func (t *Tab) Local(input string) (e refmap.Entry, expr string, ok bool) {
	e, err := t.entry(input)
	if err != nil || e.Local == 0 {
		return e, "", false
	}
	call := walker.Call(aria.InstallNone, "document", `"lookup", `+strconv.FormatInt(e.Local, 10))
	return e, "((r) => Array.isArray(r) && r[2] ? r[1] : null)(" + call + ")", true
}

// resolve finds the element of a lazily resolved entry in its frame's
// isolated world, and checks that the frame still shows the document the
// ref came from.
func (t *Tab) resolve(ctx context.Context, e refmap.Entry) (refmap.Entry, error) {
	s, ok := t.session(e.SessionID)
	if !ok {
		return e, frameGone(e.Ref)
	}
	cid, err := world(ctx, s, e.FrameID)
	if err != nil {
		if ctx.Err() == nil && !t.hasFrame(ctx, s, e.FrameID) {
			return e, frameGone(e.Ref)
		}
		return e, fmt.Errorf("lookup @%s: %w", e.Ref, err)
	}
	items, err := askWalker(ctx, s, cid, "lookup", e.Local, 3)
	if err != nil {
		return e, fmt.Errorf("lookup @%s: %w", e.Ref, err)
	}
	var doc, el walkerNode
	_ = json.Unmarshal(items[0].Value, &doc)
	if doc.LoaderID != e.LoaderID {
		return e, fmt.Errorf("%w @%s: the page navigated; take a new snapshot", ErrStaleRef, e.Ref)
	}
	if items[1].Type != "node" {
		return e, fmt.Errorf("%w @%s: the latest snapshot of its frame no longer has it; take a new snapshot", ErrStaleRef, e.Ref)
	}
	if err := json.Unmarshal(items[1].Value, &el); err != nil || el.BackendNodeID == 0 {
		return e, fmt.Errorf("lookup @%s: decode node: %v", e.Ref, err)
	}
	e.BackendNodeID = el.BackendNodeID
	if string(items[2].Value) != "true" {
		return e, fmt.Errorf("ref @%s (%s %q): %w", e.Ref, e.Role, e.Name, ErrGone)
	}
	return e, nil
}

// session returns the session of a ref's frame document: the tab's main
// session for id "", else the child session id while the tab has it
// (ok false once it is gone: the frame's process went with a navigation).
func (t *Tab) session(id target.SessionID) (s cdp.Session, ok bool) {
	if id == "" {
		return t.t, true
	}
	for _, c := range t.t.Children() {
		if c.SessionID == id {
			return t.t.Child(id), true
		}
	}
	return nil, false
}

// frameGone is the error of a ref whose frame is gone.
func frameGone(ref string) error {
	return fmt.Errorf("%w @%s: its frame is gone (the page navigated); take a new snapshot", ErrStaleRef, ref)
}

func (t *Tab) hasFrame(ctx context.Context, s cdp.Session, id cdp.FrameID) bool {
	res, err := cdp.Call(ctx, s, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return false
	}
	var find func(ft *page.FrameTree) bool
	find = func(ft *page.FrameTree) bool {
		if ft == nil || ft.Frame == nil {
			return false
		}
		if ft.Frame.ID == id {
			return true
		}
		for _, c := range ft.ChildFrames {
			if find(c) {
				return true
			}
		}
		return false
	}
	return find(res.FrameTree)
}

// Resolve fills in the BackendNodeID of every entry of a snapshot of this
// tab, with one round trip per frame (Lookup takes one per ref). Entries
// whose element was removed, or whose frame navigated, are left out.
func (t *Tab) Resolve(ctx context.Context, entries []refmap.Entry) ([]refmap.Entry, error) {
	type frameKey struct {
		session target.SessionID
		frame   cdp.FrameID
	}
	groups := make(map[frameKey][]int)
	var order []frameKey
	out := make([]refmap.Entry, 0, len(entries))
	for i, e := range entries {
		if e.Local == 0 {
			continue // the backendNodeId came with the snapshot
		}
		k := frameKey{e.SessionID, e.FrameID}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	resolved := make(map[int]cdp.BackendNodeID)
	for _, k := range order {
		idx := groups[k]
		s, ok := t.session(k.session)
		if !ok {
			continue // the frame's process is gone
		}
		cid, err := world(ctx, s, k.frame)
		if err != nil {
			continue // the frame is gone
		}
		locals := make([]int64, len(idx))
		for j, i := range idx {
			locals[j] = entries[i].Local
		}
		items, err := askWalker(ctx, s, cid, "resolve", locals, len(idx)+1)
		if err != nil {
			return nil, fmt.Errorf("resolve refs: %w", err)
		}
		var node walkerNode
		_ = json.Unmarshal(items[0].Value, &node)
		if len(idx) > 0 && node.LoaderID != entries[idx[0]].LoaderID {
			continue // the frame navigated since the snapshot
		}
		for j, i := range idx {
			node.BackendNodeID = 0
			if items[j+1].Type == "node" && json.Unmarshal(items[j+1].Value, &node) == nil && node.BackendNodeID != 0 {
				resolved[i] = node.BackendNodeID
			}
		}
	}
	for i, e := range entries {
		if e.Local != 0 {
			id, ok := resolved[i]
			if !ok {
				continue
			}
			e.BackendNodeID = id
		}
		out = append(out, e)
	}
	return out, nil
}

// Named returns the entries of the latest snapshot with role and name in
// the tab's main document (its frame mainFrame), each with its element's BackendNodeID (those
// whose element is gone, or whose document navigated, left out): what an
// ambiguous locator's error names its matches by, their refs. (Only the
// main document's: it asks nothing of a frame, which an agent's reach may
// refuse.)
func (t *Tab) Named(ctx context.Context, mainFrame cdp.FrameID, role, name string) ([]refmap.Entry, error) {
	var named []refmap.Entry
	for _, x := range t.refs.Entries() {
		if x.Role == role && x.Name == name && x.SessionID == "" && x.FrameID == mainFrame {
			named = append(named, x)
		}
	}
	if len(named) == 0 {
		return nil, nil
	}
	live, err := t.Resolve(ctx, named)
	if err != nil {
		return nil, fmt.Errorf("refs named %s %q: %w", role, name, err)
	}
	return live, nil
}

// Twins returns the entries of the latest snapshot that have e's role and
// name (and text, when e has one: Entry.Text) in e's document (e among
// them), in document order, each with the BackendNodeID of its element
// when that is still in the page and 0 when it is not. An entry's Nth is its index among every entry of the tab
// with its role and name; Twins keeps those of one document.
func (t *Tab) Twins(ctx context.Context, e refmap.Entry) ([]refmap.Entry, error) {
	var twins []refmap.Entry
	for _, x := range t.refs.Entries() {
		if x.Role == e.Role && x.Name == e.Name && (e.Text == "" || x.Text == e.Text) && x.FrameID == e.FrameID && x.LoaderID == e.LoaderID && x.SessionID == e.SessionID {
			twins = append(twins, x)
		}
	}
	slices.SortFunc(twins, func(a, b refmap.Entry) int { return a.Nth - b.Nth })
	live, err := t.Resolve(ctx, twins)
	if err != nil {
		return nil, fmt.Errorf("twins of @%s: %w", e.Ref, err)
	}
	ids := make(map[string]cdp.BackendNodeID, len(live))
	for _, x := range live {
		ids[x.Ref] = x.BackendNodeID
	}
	for i := range twins {
		if twins[i].Local != 0 {
			twins[i].BackendNodeID = ids[twins[i].Ref]
		}
	}
	return twins, nil
}

// Owner reports whether a snapshot of the tab gave the element id (of e's
// frame document) a ref, and its ref in the latest snapshot ("" when the
// latest has none for it: it had one in an earlier snapshot).
func (t *Tab) Owner(ctx context.Context, e refmap.Entry, id cdp.BackendNodeID) (bool, string, error) {
	for _, x := range t.refs.Entries() {
		if x.Local == 0 && x.BackendNodeID == id && x.SessionID == e.SessionID {
			return true, x.Ref, nil // an entry that came with its backendNodeId
		}
	}
	s, ok := t.session(e.SessionID)
	if !ok {
		return false, "", frameGone(e.Ref)
	}
	cid, err := world(ctx, s, e.FrameID)
	if err != nil {
		return false, "", fmt.Errorf("owner of node %d: %w", id, err)
	}
	rn, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id, ExecutionContextID: cid})
	if err != nil {
		return false, "", fmt.Errorf("owner of node %d: %w", id, err)
	}
	if rn.Object == nil || rn.Object.ObjectID == "" {
		return false, "", fmt.Errorf("owner of node %d: no object", id)
	}
	defer aria.Release(ctx, s, rn.Object.ObjectID)
	yes := true
	// A document no snapshot walked lacks the walker (CallOn loads it): it
	// gave no refs.
	c, err := walker.CallOn(ctx, s, runtime.CallFunctionOnParams{ObjectID: rn.Object.ObjectID, ReturnByValue: &yes, Silent: &yes}, walker.Decl, "localOf")
	if err != nil {
		return false, "", fmt.Errorf("owner of node %d: %w", id, err)
	}
	if c.ExceptionDetails != nil || c.Result == nil {
		return false, "", fmt.Errorf("owner of node %d: the script failed", id)
	}
	var local int64
	if err := json.Unmarshal(c.Result.Value, &local); err != nil {
		return false, "", fmt.Errorf("owner of node %d: decode: %w", id, err)
	}
	if local == 0 {
		return false, "", nil
	}
	for _, x := range t.refs.Entries() {
		if x.Local == local && x.FrameID == e.FrameID && x.LoaderID == e.LoaderID && x.SessionID == e.SessionID {
			return true, x.Ref, nil
		}
	}
	return true, "", nil
}

// walkerItem is one deep-serialized value of snapshot.js's answer to
// lookup or resolve: a node (Type "node", Value a walkerNode) or another.
type walkerItem struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// walkerNode is a deep-serialized node: its backendNodeId and, for a
// document, its loader.
type walkerNode struct {
	BackendNodeID cdp.BackendNodeID `json:"backendNodeId"`
	LoaderID      cdp.LoaderID      `json:"loaderId"`
}

// askWalker asks snapshot.js in egohost's world of a frame (op lookup or
// resolve), loading it when the world has none (a document no snapshot
// walked: it has no refs, and the answer says so), and returns its
// answer's want values, the first of them the document.
func askWalker(ctx context.Context, s cdp.Session, cid runtime.ExecutionContextID, op string, arg any, want int) ([]walkerItem, error) {
	yes := true
	r, err := walker.Evaluate(ctx, s, runtime.EvaluateParams{ContextID: cid, Silent: &yes, SerializationOptions: cdptab.DeepNodes()}, op, arg)
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	if r.ExceptionDetails != nil || r.Result == nil || r.Result.DeepSerializedValue == nil {
		return nil, errors.New("the resolve script failed")
	}
	var items []walkerItem
	if err := json.Unmarshal(r.Result.DeepSerializedValue.Value, &items); err != nil || len(items) != want {
		return nil, fmt.Errorf("decode: %v", err)
	}
	return items, nil
}
