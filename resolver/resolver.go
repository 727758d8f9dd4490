// Package resolver turns a ref ("@12") or a locator (css, xpath, role,
// text, label, placeholder, alt, title, testid, chained with >> and
// filtered, with nth / last) into an element of a tab: the centre of its
// border box in top-level viewport coordinates, a remote object, or the
// list of matches. It is seed 000's five-stage pipeline over a CDP
// executor passed in explicitly (the extension relay, a direct DevTools
// connection or a fake), and it works in every frame of the tab (same
// process or not) and in open shadow roots.
//
// Locators other than role run as one Runtime.evaluate per frame that
// finds, counts, checks strictness and measures. Role locators run the same
// way to find candidates, and every candidate is then checked against
// Chrome's own accessibility tree (Accessibility.getPartialAXTree), so roles
// and names are Chrome's. Errors are *Error values, transient (no match
// yet: retry with Wait) or permanent (ambiguous, invalid, stale).
package resolver

import (
	"context"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/target"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/engine/locator"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/refmap"
)

// Refs looks up the snapshot refs of the tab. *snapshot.Tab satisfies it.
// Lookup's errors are classified with errors.Is: snapshot.ErrGone (the
// element was removed: fall back to role and name), snapshot.ErrStaleRef
// (the document navigated: fail closed), snapshot.ErrUnknownRef and
// snapshot.ErrNotRef (permanent); anything else is transient.
//
// Twins and Owner serve the fallback for a removed element (see
// fallbackNode): Twins lists the latest snapshot's entries with a ref's
// role and name in its document, in document order, each with its
// element's BackendNodeID when that is still in the page (0 when not);
// Owner reports whether a snapshot gave an element of that document a ref,
// and which ref the latest snapshot gives it.
type Refs interface {
	Lookup(ctx context.Context, input string) (refmap.Entry, error)
	Twins(ctx context.Context, e refmap.Entry) ([]refmap.Entry, error)
	Owner(ctx context.Context, e refmap.Entry, id cdp.BackendNodeID) (owned bool, ref string, err error)
}

// Point is a place to click: the centre of an element's border box (of
// its first line, for an inline element that wraps) in the tab's
// top-level viewport (CSS pixels), whatever frame the element is in. SessionID is the session the element lives in ("" for the tab's
// main session; an out-of-process iframe's otherwise).
type Point struct {
	X, Y      float64
	SessionID target.SessionID
}

// Object is a remote object for an element, in egohost's isolated world
// of the element's frame, reachable through SessionID ("" for the tab's
// main session). The caller releases it when done.
type Object = cdptab.Object

// Match is one element a locator matches.
type Match struct {
	BackendNodeID cdp.BackendNodeID
	// Role is Chrome's computed role and Name the accessible name as role
	// locators read it and the snapshot shows it (Chrome's, but for its
	// own rules: locatorName); "none" and "" for an element hidden from
	// the accessibility tree.
	Role, Name string
	FrameID    cdp.FrameID      // "" for the tab's main frame
	SessionID  target.SessionID // "" for the tab's main session
	// Box is the element's box in top-level viewport coordinates; nil when
	// it has none (not rendered, or empty).
	Box *Box
}

// Box is an element's geometry: the centre of its border box (as Point)
// and the size of its border box, in top-level viewport CSS pixels.
type Box struct {
	X, Y          float64
	Width, Height float64
}

// Resolver resolves refs and locators on one tab. It is safe for
// concurrent use. It remembers, per frame, the context of egohost's
// isolated world (Chrome forgets it when the frame navigates, and the
// Resolver then makes a new one).
type Resolver struct {
	tab   cdptab.Tab
	refs  Refs
	reach cdptab.Reach // nil: every document
	c     *cache       // shared by the Resolvers Within makes
}

// cache is what a Resolver remembers of the tab's frames.
type cache struct {
	mu     sync.Mutex
	worlds map[frameKey]worldRef
	roots  map[target.SessionID]cdp.FrameID // a session's root frame
	// prep is closed when the running Prepare ends (nil when none runs):
	// a resolution that finds no world waits for it rather than make
	// another one beside it.
	prep chan struct{}
	// newDocs follows the worlds Chrome makes in the main session's new
	// documents (FollowNewDocuments); nil when not followed.
	newDocs *newDocs
	// keep are the functions a preparation sends with the module
	// (KeepOnPrepare).
	keep kept
}

// kept is what KeepOnPrepare keeps: the functions' keepers (aria.Func.
// Keeper), each after a comma, made once, and their keys.
type kept struct {
	expr string
	keys []string
}

// preparingKey marks Prepare's own context (its resolution must not wait
// for itself).
type preparingKey struct{}

// waitPrepare waits, within ctx, for a Prepare that is running (not when
// ctx is that Prepare's).
func (c *cache) waitPrepare(ctx context.Context) {
	if ctx.Value(preparingKey{}) != nil {
		return
	}
	c.mu.Lock()
	p := c.prep
	c.mu.Unlock()
	if p == nil {
		return
	}
	select {
	case <-p:
	case <-ctx.Done():
	}
}

type frameKey struct {
	session target.SessionID
	frame   cdp.FrameID
}

// New returns a Resolver for tab. refs may be nil: refs then fail with
// ErrNoRefs.
func New(tab cdptab.Tab, refs Refs) *Resolver {
	return &Resolver{
		tab:  tab,
		refs: refs,
		c:    &cache{worlds: make(map[frameKey]worldRef), roots: make(map[target.SessionID]cdp.FrameID)},
	}
}

// Within returns a Resolver of the same tab (sharing what r remembers)
// that reaches only the documents reach allows: it never searches a frame
// whose document reach refuses (a locator that matches only there matches
// nothing; its frames are left out too), and a ref into such a frame, or
// a tab whose main document reach refuses, fails with a
// *cdptab.WithheldError. Each document is judged by what it says of
// itself (its location.href and location.origin) in the isolated world
// every evaluation there then runs in: a world belongs to one document,
// so a frame that navigates after the check makes the next evaluation
// fail and judges the new document, never runs in it unchecked.
func (r *Resolver) Within(reach cdptab.Reach) *Resolver {
	return &Resolver{tab: r.tab, refs: r.refs, reach: reach, c: r.c}
}

// parsed is a target: a ref or a locator.
type parsed struct {
	input string
	ref   string // canonical ref, or ""
	loc   locator.Locator
}

func parse(input string) (parsed, error) {
	if ref, ok := refmap.ParseRef(input); ok {
		return parsed{input: input, ref: ref}, nil
	}
	if refmap.ForeignRef(input) {
		return parsed{}, &Error{Kind: Permanent, Op: "parse", Target: input, Err: fmt.Errorf("%q is not a ref here: %w", input, refmap.ErrForeignRef)}
	}
	l, err := locator.Parse(input)
	if err != nil {
		return parsed{}, &Error{Kind: Permanent, Op: "parse", Target: input, Err: err}
	}
	return parsed{input: input, loc: l}, nil
}

// Center resolves target (a ref or a locator) to exactly one element and
// returns the centre of its border box in top-level viewport coordinates.
// A locator must match one element unless it ends with nth= or last.
func (r *Resolver) Center(ctx context.Context, target string) (Point, error) {
	p, err := parse(target)
	if err != nil {
		return Point{}, err
	}
	if p.ref != "" {
		return r.refCenter(ctx, p)
	}
	el, err := r.one(ctx, p, modeCenter)
	if err != nil {
		return Point{}, err
	}
	return el.point, nil
}

// Object resolves target to exactly one element and returns a remote
// object for it.
func (r *Resolver) Object(ctx context.Context, target string) (Object, error) {
	p, err := parse(target)
	if err != nil {
		return Object{}, err
	}
	if p.ref != "" {
		return r.refObject(ctx, p)
	}
	el, err := r.one(ctx, p, modeObject)
	if err != nil {
		return Object{}, err
	}
	return el.object, nil
}

// PageObject resolves target as Object does, and returns the element as
// an object of its frame's page world (the document's own), not of
// egohost's: what a caller is handed (resolve's object mode) to use with
// its own CDP, which is kept out of egohost's worlds. Two round trips more
// than Object (the node's ID, then its object there).
func (r *Resolver) PageObject(ctx context.Context, target string) (Object, error) {
	o, err := r.Object(ctx, target)
	if err != nil {
		return Object{}, err
	}
	s := r.session(o.SessionID)
	defer aria.Release(ctx, s, o.ObjectID)
	n, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: o.ObjectID})
	if err != nil {
		return Object{}, classify("object", target, err)
	}
	if n.Node == nil {
		return Object{}, classify("object", target, fmt.Errorf("describe node: no node"))
	}
	res, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: n.Node.BackendNodeID})
	if err != nil {
		return Object{}, classify("object", target, err)
	}
	if res.Object == nil || res.Object.ObjectID == "" {
		return Object{}, classify("object", target, fmt.Errorf("resolve node: no object"))
	}
	return Object{ObjectID: res.Object.ObjectID, SessionID: o.SessionID}, nil
}

// All returns every element target matches, in document order (the main
// frame first, then the other frames), with Chrome's role and name for
// each. No match is not an error. A ref gives its one element.
func (r *Resolver) All(ctx context.Context, target string) ([]Match, error) {
	p, err := parse(target)
	if err != nil {
		return nil, err
	}
	if p.ref != "" {
		m, err := r.refMatch(ctx, p)
		if err != nil {
			return nil, err
		}
		return []Match{m}, nil
	}
	return r.all(ctx, p)
}

// Count returns how many elements target matches (0 is not an error).
func (r *Resolver) Count(ctx context.Context, target string) (int, error) {
	p, err := parse(target)
	if err != nil {
		return 0, err
	}
	if p.ref != "" {
		if _, err := r.refMatch(ctx, p); err != nil {
			if IsTransient(err) {
				return 0, nil
			}
			return 0, err
		}
		return 1, nil
	}
	return r.count(ctx, p)
}

func (p parsed) String() string {
	if p.ref != "" {
		return "@" + p.ref
	}
	return p.loc.String()
}

// String prints the box as "(x, y) w×h", or "no box" for nil.
func (b *Box) String() string {
	if b == nil {
		return "no box"
	}
	return fmt.Sprintf("(%.1f, %.1f) %.1f×%.1f", b.X, b.Y, b.Width, b.Height)
}

// preparedDoc is the main frame's document, for Prepare. With a reach, the
// frame tree first, as every resolution reads it: a main document r may
// not reach (a redirect, a page that moved on) is refused before a world
// is made in it. Without one, every document is reachable, and the main
// frame's ID (remembered per session) is all it takes: the frame tree,
// which the renderer answers only between the new page's tasks while it
// loads, would hold the world back.
func (r *Resolver) preparedDoc(ctx context.Context) (doc, error) {
	if r.reach == nil {
		d := r.mainDoc()
		id, err := r.rootFrame(ctx, d.sid, d.s)
		if err != nil {
			return doc{}, err
		}
		d.frameID = id
		return d, nil
	}
	docs, err := r.documents(ctx)
	if err != nil {
		return doc{}, err
	}
	if len(docs) == 0 {
		return doc{}, fmt.Errorf("the tab has no frame")
	}
	return docs[0], nil
}

// KeepOnPrepare has a preparation that finds the world Chrome made
// (FollowNewDocuments) send fs too, kept there (aria.Func.Keeper): the
// functions the first action or snapshot on a new document would
// otherwise send on its reply's path (the actions' checks, the snapshot's
// walk), in the same evaluation as the module, where the page's loading
// leaves time.
func (r *Resolver) KeepOnPrepare(fs ...aria.Func) {
	var k kept
	for _, f := range fs {
		if src := f.Keeper(); src != "" {
			k.expr += ", " + src
			k.keys = append(k.keys, f.Key())
		}
	}
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	r.c.keep = k
}

// prepareTarget is what Prepare counts: the root element, found at once.
const prepareTarget = "css=:root"

// Prepare readies egohost's world in the main frame's current document:
// it makes the world (or takes the one Chrome made at the document's
// start: FollowNewDocuments, prepareAtOnce) and installs the page module
// and the engine there (and the functions of KeepOnPrepare),
// which the first resolution in a new document otherwise does on its
// reply's path (two to four round trips more, and the module's
// compilation). A caller that has just navigated starts it in the
// background (actions.Options.Prepare); a resolution that needs the world
// meanwhile waits for it instead of making its own. One runs at a time
// (another call returns at once). Only the main frame's document is
// prepared, under the same reach check as any resolution: a document r
// may not reach is refused as it would be.
func (r *Resolver) Prepare(ctx context.Context) error {
	p, err := parse(prepareTarget)
	if err != nil {
		return err
	}
	r.c.mu.Lock()
	if r.c.prep != nil {
		r.c.mu.Unlock()
		return nil
	}
	done := make(chan struct{})
	r.c.prep = done
	r.c.mu.Unlock()
	defer func() {
		r.c.mu.Lock()
		r.c.prep = nil
		r.c.mu.Unlock()
		close(done)
	}()
	ctx = context.WithValue(ctx, preparingKey{}, true)
	main, err := r.preparedDoc(ctx)
	if err != nil {
		return fmt.Errorf("prepare the main frame's document: %w", err)
	}
	// The remembered world is the old document's: make the new one at
	// once, and send the module with the first evaluation.
	key := frameKey{main.sid, main.frameID}
	r.c.mu.Lock()
	last := r.c.worlds[key].unique
	delete(r.c.worlds, key)
	r.c.mu.Unlock()
	spec := jsSpec{Steps: newPlan(p).steps, Mode: modeCount, install: aria.InstallModule}
	if r.reach == nil {
		if r.prepareAtOnce(ctx, &main, spec, last) {
			return nil
		}
		ctx = context.WithValue(ctx, waitedKey{}, true) // it waited for Chrome's world
	}
	if _, err := r.eval(ctx, &main, spec); err != nil {
		return fmt.Errorf("prepare the main frame's document: %w", err)
	}
	return nil
}
