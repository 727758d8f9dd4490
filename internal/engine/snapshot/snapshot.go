// Package snapshot takes the text snapshot an agent reads of a tab: an
// indented tree of roles, accessible names and states, with a ref on every
// element the agent can act on. It computes roles and names in the page (one
// small script per frame, in an isolated world), so only the compact tree
// crosses chrome.debugger, never the page's full accessibility tree; the
// backendNodeId behind a ref is fetched when the ref is used. A Tab keeps a
// tab's refs and previous snapshot, takes a snapshot lazily when a ref comes
// before any snapshot, and fails closed on refs from a navigated document.
package snapshot

import (
	"bytes"
	"compress/flate"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/engine/cdperr"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/refmap"
)

//go:embed snapshot.js
var script string

// worldName names egohost's isolated world in every frame; the page's own
// scripts cannot reach it.
const worldName = "egohost"

// Options says what a snapshot shows.
type Options struct {
	// Interactive shows only elements with refs, under the landmarks,
	// headings and containers that give them context; no plain text.
	Interactive bool
	// Scope is a ref ("@12"): the snapshot shows that element's subtree
	// only. Tab.Snapshot resolves it.
	Scope string
	// ScopeNode is a node the caller resolved (e.g. from a locator): the
	// snapshot shows its subtree only. ScopeSession is the session it
	// belongs to ("" = the tab's main session).
	ScopeNode    cdp.BackendNodeID
	ScopeSession target.SessionID
	// Viewport shows only elements that intersect the viewport.
	Viewport bool
	// URLs writes each link's target (`url=`) in a full snapshot. Without
	// it a link's line has none: an agent acts on the ref, and reads one
	// link's target with `get attr @N href`.
	URLs bool
	// MaxChars caps the text (0 = no cap). What is cut is named in a
	// marker line that says how to get it (Start).
	MaxChars int
	// Start skips the first Start lines of the text (paging through a
	// snapshot cut by MaxChars; the marker gives the number).
	Start int
	// Diff is a previous snapshot of the same tab: the text then shows
	// only what changed, with unchanged lines collapsed.
	Diff *Snapshot
	// DiffPrevious makes Tab.Snapshot diff against the tab's previous
	// snapshot of the same shape (Interactive, Viewport, URLs and scope equal);
	// when there is none, the text is the whole snapshot under a marker
	// line that says so.
	DiffPrevious bool
	// Numbering gives refs their numbers; a Tab passes its own so the same
	// element keeps its ref. nil: a fresh numbering.
	Numbering *refmap.Numbering
	// Reach, when set, is which frame documents the snapshot may show: a
	// frame it refuses (by the frame tree, or by what the document says
	// of itself in the walk) shows as its iframe's line marked withheld,
	// with nothing inside and no refs; a refused main frame (or scope) is
	// a *cdptab.WithheldError.
	Reach cdptab.Reach
	// Viewer names who the snapshot is for when it has a Reach (the
	// caller's name): a diff compares only with an earlier snapshot for
	// the same viewer, so it never shows lines another saw.
	Viewer string
	// Pack: a frame's walk result of at least Pack characters crosses
	// packed (deflated in the page, base64), at about a fifth of its size:
	// what crosses chrome.debugger and native messaging costs ~80 ns a
	// byte, deflating it ~25 (docs/benchmarks.md). 0: the Tab's
	// (PackOver), by default never (a direct DevTools connection gains
	// nothing from it).
	Pack int

	// Parsed: a main frame document still being parsed is not walked;
	// the snapshot fails with ErrLoading instead (the caller waits for
	// DOMContentLoaded and takes it again). The check rides on the walk.
	Parsed bool

	allRefs bool        // tests: a ref on every element the text shows
	noDiff  string      // a diff was asked with nothing to compare to: the marker line
	loaded  *loadedDocs // a Tab's documents that hold snapshot.js (nil: ask each world)
	world   MainWorld   // a Tab's: egohost's world in the main frame, when made already
}

// MainWorld returns the main frame's World when one is made (ok false
// when none is). It must not make one: a snapshot asks it before anything
// else, and walks there while it reads the frame tree.
type MainWorld func(ctx context.Context) (w aria.World, ok bool)

// Snapshot is one snapshot of a tab.
type Snapshot struct {
	// Text is what the agent reads (see docs/snapshot.md).
	Text string
	// Entries are the refs the snapshot found, in document order, even
	// those the text does not show (cut by MaxChars or Start).
	Entries []refmap.Entry
	// Truncated says what MaxChars and Start left out.
	Truncated Truncation
	// Stats counts what the snapshot saw and cost.
	Stats Stats
	// URL and Title are the main frame's.
	URL, Title string

	lines []line // the whole rendering, for diffs
}

// Truncation says what a snapshot's text left out.
type Truncation struct {
	Cut        bool // the text is not the whole snapshot
	FirstLine  int  // first line shown (0-based)
	ShownLines int
	TotalLines int
	// Next is the Start that shows the rest (0 when nothing follows).
	Next int
	// HiddenRefs counts refs on lines the text does not show.
	HiddenRefs int
}

// Stats counts what a snapshot saw and what it cost.
type Stats struct {
	Elements int           // elements walked in the page
	Refs     int           // refs handed out
	Frames   int           // frame documents walked
	Withheld int           // frame documents left out (Options.Reach)
	Lines    int           // lines of the whole rendering
	Chars    int           // characters of the whole rendering
	Bytes    int           // bytes of tree the page sent back
	Took     time.Duration // wall time of the snapshot
	PageTime time.Duration // time the script took in the page (summed over frames)
	// FrameErrors lists frames that could not be walked (their iframe
	// shows no content); the snapshot itself still succeeds.
	FrameErrors []string
}

// ErrWrongFrame means a scope node is not in the frame asked.
var errWrongFrame = errors.New("scope node is not in this frame")

// errWrongWorld is a guarded walk (aria.World) that found itself in another
// context than egohost's world.
var errWrongWorld = errors.New("not egohost's world")

// ErrLoading is a snapshot with Options.Parsed of a main frame document
// still being parsed.
var ErrLoading = errors.New("the page is still being parsed")

// scope is a resolved scope: a node by backendNodeId in a session, or a
// snapshot-local node in a frame.
type scope struct {
	session       target.SessionID
	backendNodeID cdp.BackendNodeID
	frameID       cdp.FrameID
	local         int64
}

// frameDoc is one frame document to walk.
type frameDoc struct {
	session   cdp.Session
	sessionID target.SessionID
	frame     *cdp.Frame
	root      bool // the session's root frame

	tree   []*Node
	owners []cdp.BackendNodeID // the backendNodeIds of the iframes in tree, by placeholder index
	places []*Node             // the placeholders, by index
	url    string
	origin string // location.origin
	title  string
	// withheld says why Options.Reach refused the document ("" when it
	// did not): it is not walked, or its walk is dropped.
	withheld string
	elems    int
	bytes    int
	err      error
	isScope  bool        // the scope node lives here
	pageMs   int         // time the script took in the page
	nodes    int         // nodes in tree
	guard    *aria.World // the walk runs guarded in this world (early)
}

func take(ctx context.Context, t cdptab.Tab, opts Options, sc *scope) (*Snapshot, error) {
	start := time.Now()
	numbering := opts.Numbering
	if numbering == nil {
		numbering = refmap.NewNumbering()
	}
	jsOpts := map[string]any{"viewport": opts.Viewport, "interactive": opts.Interactive, "urls": opts.URLs, "allIds": opts.allRefs, "parsed": opts.Parsed, "pack": opts.Pack}
	early := walkEarly(ctx, t, opts, sc, jsOpts)
	docs, children, err := frames(ctx, t, opts.Reach)
	if err != nil {
		return nil, err
	}
	// Walk every frame document at once.
	var wg sync.WaitGroup
	for _, d := range docs {
		if d.withheld != "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !(d.sessionID == "" && d.root && d.adopt(early)) {
				d.err = walk(ctx, d, jsOpts, sc, opts.loaded)
			}
			// The walk's own report of its document decides: the frame
			// may have navigated since the frame tree was read.
			if d.err == nil && opts.Reach != nil {
				if ok, why := opts.Reach(d.url, d.origin); !ok {
					d.withheld, d.tree, d.owners, d.places = why, nil, nil, nil
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	var main *frameDoc
	for _, d := range docs {
		if d.sessionID == "" && d.root {
			main = d
		}
	}
	switch {
	case main == nil:
		return nil, errors.New("snapshot: no main frame")
	case main.withheld != "":
		return nil, fmt.Errorf("snapshot: %w", &cdptab.WithheldError{URL: main.url, Origin: main.origin, Why: main.withheld})
	case main.err != nil:
		return nil, fmt.Errorf("snapshot: main frame: %w", main.err)
	}
	top := main
	if sc != nil {
		top = nil
		for _, d := range docs {
			if d.isScope {
				top = d
			}
		}
		if top == nil {
			return nil, fmt.Errorf("snapshot: scope node %d: not found in any frame of the tab", sc.backendNodeID)
		}
		if top.withheld != "" {
			return nil, fmt.Errorf("snapshot: %w", &cdptab.WithheldError{URL: top.url, Origin: top.origin, Why: top.withheld, Frame: true})
		}
	}
	stitch(ctx, t, docs, children)

	s := &Snapshot{URL: main.url, Title: main.title}
	nodes := 0
	for _, d := range docs {
		nodes += d.nodes
		s.Stats.Elements += d.elems
		s.Stats.Bytes += d.bytes
		s.Stats.PageTime += time.Duration(d.pageMs) * time.Millisecond
		switch {
		case d.withheld != "":
			s.Stats.Withheld++
		case d.err == nil:
			s.Stats.Frames++
		case !errors.Is(d.err, errWrongFrame):
			s.Stats.FrameErrors = append(s.Stats.FrameErrors, fmt.Sprintf("%s (%s): %v", d.frame.ID, d.frame.URL, d.err))
		}
	}
	s.Entries = number(top.tree, numbering)
	s.Stats.Refs = len(s.Entries)
	render(s, top.tree, opts, nodes)
	s.Stats.Took = time.Since(start)
	return s, nil
}

// frames lists the frame documents of the tab: the local frames of the
// main session and of every out-of-process iframe's session. A frame
// reach refuses, and every frame inside it, is marked withheld (not to be
// walked).
func frames(ctx context.Context, t cdptab.Tab, reach cdptab.Reach) ([]*frameDoc, []cdptab.Child, error) {
	type sess struct {
		id target.SessionID
		s  cdp.Session
	}
	list := []sess{{"", t}}
	var kids []cdptab.Child
	for _, c := range t.Children() {
		if c.Type == "iframe" {
			kids = append(kids, c)
			list = append(list, sess{c.SessionID, t.Child(c.SessionID)})
		}
	}
	ss := make([]cdp.Session, len(list))
	for i, s := range list {
		ss[i] = s.s
	}
	trees, errs := cdptab.FrameTrees(ctx, ss)
	if errs[0] != nil {
		return nil, nil, fmt.Errorf("snapshot: get frame tree: %w", errs[0])
	}
	var docs []*frameDoc
	withheld := make(map[cdp.FrameID]string)
	for i, s := range list {
		if trees[i] == nil { // a child that went away meanwhile
			continue
		}
		var add func(ft *page.FrameTree, root bool)
		add = func(ft *page.FrameTree, root bool) {
			if ft == nil || ft.Frame == nil {
				return
			}
			d := &frameDoc{session: s.s, sessionID: s.id, frame: ft.Frame, root: root, url: ft.Frame.URL, origin: ft.Frame.SecurityOrigin}
			if why, ok := withheld[ft.Frame.ParentID]; ok {
				d.withheld = "inside a withheld frame: " + why
			} else if reach != nil {
				if ok, why := reach(ft.Frame.URL, ft.Frame.SecurityOrigin); !ok {
					d.withheld = why
				}
			}
			if d.withheld != "" {
				withheld[ft.Frame.ID] = d.withheld
			}
			docs = append(docs, d)
			for _, c := range ft.ChildFrames {
				add(c, false)
			}
		}
		add(trees[i], true)
	}
	return docs, kids, nil
}

// walkEarly starts the walk of the main frame's document in the world
// opts.world names, beside the frame tree's read (one round trip less):
// for a whole-tab snapshot, when the world is made already. The channel
// gives the walk's document once, nil when there was no world to walk in
// (no channel: no early walk).
func walkEarly(ctx context.Context, t cdptab.Tab, opts Options, sc *scope, jsOpts map[string]any) <-chan *frameDoc {
	if sc != nil || opts.world == nil {
		return nil
	}
	out := make(chan *frameDoc, 1)
	go func() {
		w, ok := opts.world(ctx) // may wait for the world's making
		if ok && opts.Reach != nil {
			ok, _ = opts.Reach(w.URL, w.Origin) // never a walk the caller may not have
		}
		if !ok {
			out <- nil
			return
		}
		d := &frameDoc{session: t, root: true, frame: &cdp.Frame{ID: w.Frame, LoaderID: w.Loader}, guard: &w}
		d.err = walkIn(ctx, d, w.Context, jsOpts, nil, opts.loaded, docKey{"", w.Frame, w.Loader})
		out <- d
	}()
	return out
}

// adopt takes the early walk's result for d when it walked d's document
// (the frame tree's frame and loader): it reports whether it did. A walk
// in an earlier document, or in no world of ours, is dropped (d is walked
// again).
func (d *frameDoc) adopt(early <-chan *frameDoc) bool {
	if early == nil {
		return false
	}
	e := <-early
	if e == nil || e.frame.ID != d.frame.ID || e.frame.LoaderID != d.frame.LoaderID {
		return false
	}
	if e.err != nil && !errors.Is(e.err, ErrLoading) {
		return false
	}
	e.frame = d.frame // the frame tree's, for the refs of e's nodes (Node.frame is e)
	d.tree, d.owners, d.places = e.tree, e.owners, e.places
	d.url, d.origin, d.title = e.url, e.origin, e.title
	d.elems, d.bytes, d.pageMs, d.nodes, d.err = e.elems, e.bytes, e.pageMs, e.nodes, e.err
	return true
}

// world returns the execution context of egohost's isolated world in a
// frame of a session.
func world(ctx context.Context, s cdp.Session, frameID cdp.FrameID) (runtime.ExecutionContextID, error) {
	no := false
	w, err := cdp.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
		FrameID: frameID, WorldName: worldName, GrantUniveralAccess: &no,
	})
	if err != nil {
		return 0, fmt.Errorf("create isolated world in frame %s: %w", frameID, err)
	}
	return w.ExecutionContextID, nil
}

// Walker is the snapshot's walk (snapshot.js), kept in egohost's world of
// each frame: what a preparation of a new document may send ahead
// (resolver.Resolver.KeepOnPrepare).
func Walker() aria.Func { return walker }

// walker is snapshot.js, kept in egohost's world of each frame (with its
// local ids) once a snapshot has run there.
var walker = aria.Keep(aria.Compact(script))

// loadedDocs remembers the frame documents whose egohost world holds the
// page module and snapshot.js (a Tab's, across its snapshots), and that
// world's execution context: the first walk of a document makes the world
// and sends them at once, later ones neither (a named world lives as long
// as its document; one Chrome no longer knows is made again).
type loadedDocs struct {
	mu   sync.Mutex
	docs map[docKey]runtime.ExecutionContextID
}

type docKey struct {
	session target.SessionID
	frame   cdp.FrameID
	loader  cdp.LoaderID
}

// maxLoadedDocs bounds the memory (it starts again when full: a document
// it forgot costs one more round trip).
const maxLoadedDocs = 256

// first says what the first call of a walk of k sends.
func (l *loadedDocs) first(k docKey) aria.Install {
	if l == nil {
		return aria.InstallNone
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.docs[k] != 0 {
		return aria.InstallNone
	}
	return aria.InstallModule
}

// world returns the context of k's world when a walk there loaded it.
func (l *loadedDocs) world(k docKey) (runtime.ExecutionContextID, bool) {
	if l == nil {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	cid := l.docs[k]
	return cid, cid != 0
}

// add remembers that k's world, context cid, holds snapshot.js.
func (l *loadedDocs) add(k docKey, cid runtime.ExecutionContextID) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.docs == nil || len(l.docs) >= maxLoadedDocs {
		l.docs = make(map[docKey]runtime.ExecutionContextID)
	}
	l.docs[k] = cid
}

// forget drops k (its world is gone).
func (l *loadedDocs) forget(k docKey) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.docs, k)
}

// walk runs snapshot.js in one frame document.
func walk(ctx context.Context, d *frameDoc, jsOpts map[string]any, sc *scope, loaded *loadedDocs) error {
	key := docKey{d.sessionID, d.frame.ID, d.frame.LoaderID}
	if cid, ok := loaded.world(key); ok {
		err := walkIn(ctx, d, cid, jsOpts, sc, loaded, key)
		if !cdperr.ContextGone(err) {
			return err
		}
		loaded.forget(key) // the world went (its document lives on): make it again
	}
	cid, err := world(ctx, d.session, d.frame.ID)
	if err != nil {
		return err
	}
	return walkIn(ctx, d, cid, jsOpts, sc, loaded, key)
}

// walkIn is walk in the world whose context is cid.
func walkIn(ctx context.Context, d *frameDoc, cid runtime.ExecutionContextID, jsOpts map[string]any, sc *scope, loaded *loadedDocs, key docKey) error {
	local := sc != nil && sc.local != 0 && sc.frameID == d.frame.ID
	if local {
		jsOpts = maps.Clone(jsOpts)
		jsOpts["local"] = sc.local
	}
	optsJSON, err := json.Marshal(jsOpts)
	if err != nil {
		return fmt.Errorf("walk frame: %w", err)
	}
	yes := true
	op := json.RawMessage(`"walk"`)
	// By default the walk evaluates in the frame's world; a scope given as
	// a backend node calls it on that node instead.
	call := func(in aria.Install) (*runtime.RemoteObject, *runtime.ExceptionDetails, error) {
		expr := walker.Expr(in, op, optsJSON)
		if d.guard != nil {
			expr = d.guard.Guard(expr)
		}
		r, err := cdp.Call(ctx, d.session, runtime.Evaluate, runtime.EvaluateParams{
			Expression: expr,
			ContextID:  cid, Silent: &yes, SerializationOptions: cdptab.DeepNodes(),
			AwaitPromise: &yes, // a packed text comes as a promise
		})
		if err != nil {
			return nil, nil, fmt.Errorf("walk frame: evaluate: %w", err)
		}
		return r.Result, r.ExceptionDetails, nil
	}
	switch {
	case local:
		d.isScope = true
	case sc != nil && sc.backendNodeID != 0 && sc.session == d.sessionID:
		rn, err := cdp.Call(ctx, d.session, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: sc.backendNodeID, ExecutionContextID: cid})
		if err != nil {
			return fmt.Errorf("%w: %v", errWrongFrame, err)
		}
		defer func() {
			_ = d.session.Call(ctx, runtime.CommandReleaseObject, runtime.ReleaseObjectParams{ObjectID: rn.Object.ObjectID}, nil)
		}()
		d.isScope = true
		call = func(in aria.Install) (*runtime.RemoteObject, *runtime.ExceptionDetails, error) {
			r, err := cdp.Call(ctx, d.session, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
				FunctionDeclaration: walker.Decl(in),
				ObjectID:            rn.Object.ObjectID,
				Arguments:           []*runtime.CallArgument{{Value: jsonv2.Value(op)}, {Value: jsonv2.Value(optsJSON)}},
				Silent:              &yes, SerializationOptions: cdptab.DeepNodes(), AwaitPromise: &yes,
			})
			if err != nil {
				return nil, nil, fmt.Errorf("walk frame: call: %w", err)
			}
			return r.Result, r.ExceptionDetails, nil
		}
	}
	var res *runtime.RemoteObject
	var exc *runtime.ExceptionDetails
	in := loaded.first(key)
	if d.guard != nil && d.guard.Module && in == aria.InstallModule {
		in = aria.InstallFunc // the world has the module: send snapshot.js alone
		if d.guard.Kept[walker.Key()] {
			in = aria.InstallNone // and snapshot.js (a preparation sent it)
		}
	}
	for {
		if res, exc, err = call(in); err != nil {
			return err
		}
		next, again := walker.Again(in, res)
		if !again {
			break
		}
		in = next // a new document: load the module and snapshot.js
	}
	if w, ok := aria.StringOf(res); ok && d.guard != nil && exc == nil && w == d.guard.Wrong {
		return errWrongWorld
	}
	if exc == nil {
		loaded.add(key, cid)
	}
	if exc != nil {
		msg := exc.Text
		if exc.Exception != nil && exc.Exception.Description != "" {
			msg = exc.Exception.Description
		}
		return fmt.Errorf("walk frame: script failed: %s", msg)
	}
	if res == nil || res.DeepSerializedValue == nil {
		return errors.New("walk frame: no result")
	}
	// The tree's text is most of the result (hundreds of KB on a large
	// page): decoded straight into a string, in one pass.
	var items []struct {
		Type  string `json:"type"`
		Value any    `json:"value"`
	}
	if err := jsonv2.Unmarshal(res.DeepSerializedValue.Value, &items); err != nil || len(items) == 0 {
		return fmt.Errorf("walk frame: decode result: %v", err)
	}
	text, ok := items[0].Value.(string)
	if !ok {
		return fmt.Errorf("walk frame: decode tree: a %s, not a string", items[0].Type)
	}
	d.bytes = len(text) // what crossed
	if z, ok := strings.CutPrefix(text, packedPrefix); ok {
		if text, err = unpack(z, maxUnpacked); err != nil {
			return fmt.Errorf("walk frame: %w", err)
		}
	}
	switch text {
	case "wrong-frame":
		d.isScope = false
		return errWrongFrame
	case "gone":
		return fmt.Errorf("%w: the scope element is no longer in the latest snapshot", ErrGone)
	case "loading":
		return ErrLoading
	}
	for _, it := range items[1:] {
		n, _ := it.Value.(map[string]any)
		id, _ := n["backendNodeId"].(float64)
		d.owners = append(d.owners, cdp.BackendNodeID(id))
	}
	d.places = make([]*Node, len(d.owners))
	tree, err := d.parse(text)
	if err != nil {
		return fmt.Errorf("walk frame: %w", err)
	}
	d.tree = tree
	return nil
}

// PackRelayed is the Pack of a tab whose snapshots cross the extension
// (the page engine's, Tab.PackOver): from 32 KB of text, packing saves
// more than it costs.
const PackRelayed = 32 << 10

// packedPrefix starts a walk's text that snapshot.js packed (Options.Pack):
// the raw deflate stream of the text follows, in base64.
const packedPrefix = "z:"

// maxUnpacked caps a packed text's size: Chrome's own cap on a message an
// extension posts, which the text would have met unpacked.
const maxUnpacked = 64 << 20

// unpack reads a text snapshot.js packed, of at most limit bytes.
func unpack(z string, limit int) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(z)
	if err != nil {
		return "", fmt.Errorf("unpack: %w", err)
	}
	r := flate.NewReader(bytes.NewReader(raw))
	var b strings.Builder
	b.Grow(min(len(raw)*6, limit))
	n, err := io.Copy(&b, io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return "", fmt.Errorf("unpack: %w", err)
	}
	if n > int64(limit) {
		return "", fmt.Errorf("unpack: the text is larger than %d bytes", limit)
	}
	return b.String(), nil
}

// Node is one node of a snapshot's tree: an element (Role set) or a run
// of text (Text set).
type Node struct {
	Role   string
	Name   string
	Text   string
	Ref    string   // "" when the element has no ref
	States []string // rendered states: "checked", "level=2", …
	Value  string   // a control's value
	URL    string   // a link's target
	Kids   []*Node
	// Withheld, on an iframe, says whose document it shows and why the
	// snapshot left it out (Options.Reach).
	Withheld string
	// Message: in an interactive-only snapshot, an element whose text the
	// page announces (an alert, a status, a live region); its first kid
	// is its text.
	Message bool
	// Beside: in an interactive-only snapshot, the text beside a field
	// with no name ("Name of new wiki page:"), shown as beside="…".
	Beside string
	// Column: in an interactive-only snapshot, the header of the table
	// column of a field with no name ("Value"), shown as column="…".
	Column string
	// Title: in an interactive-only snapshot, the tooltip of an element
	// to act on with no name and no text, shown as title="…".
	Title string
	// Class: in an interactive-only snapshot, the class names that say
	// what an element to act on with nothing else to tell it by does (an
	// icon: "x-tool-close"), shown as class="…".
	Class string
	// Options, OptionCount: in an interactive-only snapshot, a closed
	// select's options' labels when they are few, else how many it has.
	Options     []string
	OptionCount int

	local     int64
	frame     *frameDoc
	placement int // iframe placeholder index, -1 otherwise
}

// parse reads snapshot.js's output: a header line (elements walked,
// milliseconds, iframes, URL, title), then one record per node: depth,
// role ("" for text), name or text, local id, states, url, value, iframe
// index, message (1), the text beside an unnamed field, its column's
// header, the title of an unnamed element with no text, a closed
// select's options ("L" and labels split by U+001F, or "N" and a count),
// split by tabs.
func (d *frameDoc) parse(text string) ([]*Node, error) {
	head, body, _ := strings.Cut(text, "\n")
	hf := strings.SplitN(head, "\t", 6)
	if len(hf) != 6 {
		return nil, fmt.Errorf("parse tree: bad header %q", head)
	}
	d.elems, _ = strconv.Atoi(hf[0])
	d.pageMs, _ = strconv.Atoi(hf[1])
	d.origin, d.url, d.title = hf[3], hf[4], hf[5]
	var top []*Node
	var stack []*Node // stack[i] is the latest node at depth i
	// One allocation for the nodes: a record a line.
	slab := make([]Node, strings.Count(body, "\n")+1)
	used := 0
	for body != "" {
		rec := body
		if i := strings.IndexByte(body, '\n'); i >= 0 {
			rec, body = body[:i], body[i+1:]
		} else {
			body = ""
		}
		if rec == "" {
			continue
		}
		var f [14]string
		for i, rest := 0, rec; i < len(f); i++ {
			k := strings.IndexByte(rest, '\t')
			if k < 0 {
				f[i] = rest
				break
			}
			f[i], rest = rest[:k], rest[k+1:]
		}
		depth, err := strconv.Atoi(f[0])
		if err != nil || depth < 0 || depth > len(stack) {
			return nil, fmt.Errorf("parse tree: bad record %q", rec)
		}
		n := &slab[used]
		n.placement, n.frame = -1, d
		used++
		if f[1] == "" {
			n.Text = f[2]
		} else {
			n.Role, n.Name, n.Value = f[1], f[2], f[6]
			if f[3] != "" {
				n.local, _ = strconv.ParseInt(f[3], 10, 64)
			}
			if f[4] != "" {
				n.States = strings.Split(f[4], ",")
			}
			n.URL = f[5]
			n.Message = f[8] == "1"
			n.Beside, n.Column, n.Title, n.Class = f[9], f[10], f[11], f[13]
			if o := f[12]; o != "" {
				switch o[0] {
				case 'L':
					n.Options = strings.Split(o[1:], "\x1f")
				case 'N':
					n.OptionCount, _ = strconv.Atoi(o[1:])
				}
			}
			if f[7] != "" {
				k, err := strconv.Atoi(f[7])
				if err == nil && k >= 0 && k < len(d.places) {
					n.placement = k
					d.places[k] = n
				}
			}
		}
		stack = stack[:depth]
		if depth == 0 {
			top = append(top, n)
		} else {
			p := stack[depth-1]
			p.Kids = append(p.Kids, n)
		}
		stack = append(stack, n)
	}
	d.nodes = used
	return top, nil
}

// stitch puts each child frame's tree under its iframe placeholder.
func stitch(ctx context.Context, t cdptab.Tab, docs []*frameDoc, kids []cdptab.Child) {
	type owner struct {
		session target.SessionID
		id      cdp.BackendNodeID
	}
	places := make(map[owner]*Node)
	for _, d := range docs {
		for i, id := range d.owners {
			if id != 0 && d.places[i] != nil {
				places[owner{d.sessionID, id}] = d.places[i]
			}
		}
	}
	if len(places) == 0 {
		return
	}
	parentOf := make(map[target.SessionID]target.SessionID)
	for _, c := range kids {
		parentOf[c.SessionID] = c.Parent
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, d := range docs {
		if d.err != nil || (d.root && d.sessionID == "") || strings.HasPrefix(d.withheld, "inside a withheld frame") {
			continue
		}
		// A local child frame's owner lives in the same session; an
		// out-of-process frame's in its parent's session.
		sess, sid := d.session, d.sessionID
		if d.root {
			sid = parentOf[d.sessionID]
			if sid == "" {
				sess = t
			} else {
				sess = t.Child(sid)
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fo, err := cdp.Call(ctx, sess, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: d.frame.ID})
			if err != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if p := places[owner{sid, fo.BackendNodeID}]; p != nil {
				p.Kids = d.tree
				if d.withheld != "" {
					p.Kids, p.Withheld = nil, cdptab.OriginOf(d.url, d.origin)+", "+d.withheld
				}
			}
		}()
	}
	wg.Wait()
}

// ownText is an unnamed element's text when it is one run of at most
// refmap.TextMax bytes, white space squeezed (Entry.Text), else "".
func ownText(n *Node) string {
	if n.Name != "" || len(n.Kids) != 1 || n.Kids[0].Text == "" {
		return ""
	}
	t := strings.Join(strings.Fields(n.Kids[0].Text), " ")
	if len(t) > refmap.TextMax {
		return ""
	}
	return t
}

// number gives every element with a local id its tab-wide ref, in document
// order, and returns the entries.
func number(tree []*Node, numbering *refmap.Numbering) []refmap.Entry {
	var nodes []*Node
	var walkTree func([]*Node)
	walkTree = func(ns []*Node) {
		for _, n := range ns {
			if n.local != 0 && n.frame != nil {
				nodes = append(nodes, n)
			}
			walkTree(n.Kids)
		}
	}
	walkTree(tree)
	keys := make([]refmap.Key, len(nodes))
	for i, n := range nodes {
		keys[i] = refmap.Key{FrameID: n.frame.frame.ID, LoaderID: n.frame.frame.LoaderID, Node: n.local}
	}
	refs := numbering.Refs(keys)
	out := make([]refmap.Entry, len(nodes))
	seen := make(map[[2]string]int, len(nodes))
	for i, n := range nodes {
		f := n.frame
		n.Ref = refs[i]
		k := [2]string{n.Role, n.Name}
		out[i] = refmap.Entry{
			Ref: n.Ref, Role: n.Role, Name: n.Name, Text: ownText(n), Nth: seen[k],
			FrameID: f.frame.ID, SessionID: f.sessionID, LoaderID: f.frame.LoaderID, Local: n.local,
		}
		seen[k]++
	}
	return out
}
