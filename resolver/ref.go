package resolver

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/engine/cdperr"
	"github.com/egohost/egohost/internal/engine/locator"
	"github.com/egohost/egohost/refmap"
)

// lookup finds a ref's entry. gone reports that the element was removed
// from its (still current) document: the caller may fall back to role and
// name.
func (r *Resolver) lookup(ctx context.Context, p parsed) (e refmap.Entry, gone bool, err error) {
	if r.refs == nil {
		return e, false, &Error{Kind: Permanent, Op: "lookup", Target: p.input, Err: ErrNoRefs}
	}
	e, err = r.refs.Lookup(ctx, p.input)
	switch {
	case err == nil:
	case errors.Is(err, refmap.ErrGone):
		gone = true
	case errors.Is(err, refmap.ErrStaleRef), errors.Is(err, refmap.ErrUnknownRef), errors.Is(err, refmap.ErrNotRef):
		return e, false, &Error{Kind: Permanent, Op: "lookup", Target: p.input, Err: err}
	default:
		return e, false, classify("lookup", p.input, err)
	}
	if r.reach != nil {
		// The ref's frame must be one the caller may reach (a snapshot of
		// another caller's may have handed out refs inside it).
		d, err := r.entryDoc(ctx, e)
		if err == nil {
			_, err = r.world(ctx, &d, false)
		}
		if err != nil {
			return e, false, classify("lookup", p.input, err)
		}
	}
	return e, gone, nil
}

// entryDoc is the document of a ref's node.
func (r *Resolver) entryDoc(ctx context.Context, e refmap.Entry) (doc, error) {
	d := doc{sid: e.SessionID, s: r.session(e.SessionID), frameID: e.FrameID, root: e.FrameID == ""}
	if d.frameID != "" {
		root, err := r.rootFrame(ctx, d.sid, d.s)
		if err != nil {
			return d, err
		}
		d.root = root == d.frameID
	}
	return d, nil
}

// refCenter: the centre of the ref's node's border box (nodeBox); when
// the node is gone, the fallback's element.
func (r *Resolver) refCenter(ctx context.Context, p parsed) (Point, error) {
	e, gone, err := r.lookup(ctx, p)
	if err != nil {
		return Point{}, err
	}
	if !gone {
		s := r.session(e.SessionID)
		pt, err := r.boxCenter(ctx, p, e.SessionID, s, e.BackendNodeID)
		if err == nil {
			return pt, nil
		}
		if ctx.Err() != nil {
			return Point{}, err
		}
		alive, perr := r.connected(ctx, s, e.BackendNodeID)
		if perr != nil {
			return Point{}, classify("box", p.input, perr)
		}
		if alive {
			if errors.Is(err, ErrNoBox) {
				// There, but not rendered: wait for it, never guess another.
				return Point{}, noBox(p, e)
			}
			return Point{}, err
		}
	}
	el, err := r.fallback(ctx, p, e, modeCenter)
	return el.point, err
}

func noBox(p parsed, e refmap.Entry) error {
	return &Error{Kind: Transient, Op: "box", Target: p.input, Count: 1,
		Err: causef(ErrNoBox, "ref @%s (%s %q) has no box (not rendered, hidden or zero-sized)", e.Ref, e.Role, e.Name)}
}

// locatorNoBox is the error of the element a locator found when it has
// no box (a ref's: noBox); op is what asked for the box.
func locatorNoBox(op string, p parsed) error {
	return &Error{Kind: Transient, Op: op, Target: p.input, Count: 1,
		Err: causef(ErrNoBox, "%s: the element has no box (not rendered, hidden or zero-sized)", p)}
}

// refObject: the ref's element found by the snapshot script in one
// evaluation (localObject), else DOM.resolveNode of the ref's node in
// egohost's world; when the node is gone, the unique element with its
// role and name.
func (r *Resolver) refObject(ctx context.Context, p parsed) (Object, error) {
	if o, hit, err := r.localObject(ctx, p); err != nil || hit {
		return o, err
	}
	e, gone, err := r.lookup(ctx, p)
	if err != nil {
		return Object{}, err
	}
	if !gone {
		d, err := r.entryDoc(ctx, e)
		if err != nil {
			return Object{}, classify("object", p.input, err)
		}
		obj, alive, err := r.resolveConnected(ctx, &d, e.BackendNodeID)
		if err != nil {
			return Object{}, classify("object", p.input, err)
		}
		if alive {
			return Object{ObjectID: obj, SessionID: e.SessionID}, nil
		}
	}
	el, err := r.fallback(ctx, p, e, modeObject)
	return el.object, err
}

// refMatch describes a ref's element (its fallback when it is gone).
func (r *Resolver) refMatch(ctx context.Context, p parsed) (Match, error) {
	e, gone, err := r.lookup(ctx, p)
	if err != nil {
		return Match{}, err
	}
	d, err := r.entryDoc(ctx, e)
	if err != nil {
		return Match{}, classify("lookup", p.input, err)
	}
	id := e.BackendNodeID
	if !gone {
		alive, err := r.connected(ctx, d.s, id)
		if err != nil {
			return Match{}, classify("lookup", p.input, err)
		}
		gone = !alive
	}
	if gone {
		docs, f, err := r.fallbackNode(ctx, p, e)
		if err != nil {
			return Match{}, err
		}
		d, id = docs[f.d], f.id
	}
	n, err := axNode(ctx, d.s, id)
	if err != nil {
		return Match{}, classify("lookup", p.input, err)
	}
	m := Match{BackendNodeID: id, FrameID: d.matchFrame(), SessionID: d.sid}
	m.Role, m.Name = axRoleName(n)
	m.Name = locatorName(n, m.Role, m.Name, "")
	if b, err := r.nodeBox(ctx, p, d.sid, d.s, id); err == nil {
		m.Box = &b
	}
	return m, nil
}

// connected reports whether a node still exists and is in its document.
func (r *Resolver) connected(ctx context.Context, s cdp.Session, id cdp.BackendNodeID) (bool, error) {
	res, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id, ObjectGroup: "egohost-probe"})
	if err != nil {
		if cdperr.NodeGone(err) {
			return false, nil
		}
		return false, fmt.Errorf("resolve node: %w", err)
	}
	if res.Object == nil || res.Object.ObjectID == "" {
		return false, nil
	}
	defer func() {
		aria.Release(ctx, s, res.Object.ObjectID)
	}()
	return isConnected(ctx, s, res.Object.ObjectID)
}

func isConnected(ctx context.Context, s cdp.Session, obj runtime.RemoteObjectID) (bool, error) {
	yes := true
	c, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function() { return this.isConnected; }",
		ObjectID:            obj,
		ReturnByValue:       &yes,
		Silent:              &yes,
	})
	if err != nil {
		return false, fmt.Errorf("isConnected: %w", err)
	}
	return c.Result != nil && string(c.Result.Value) == "true", nil
}

// resolveConnected resolves a node to an object in egohost's world of d,
// and reports whether it is still in its document (the object is released
// when not).
func (r *Resolver) resolveConnected(ctx context.Context, d *doc, id cdp.BackendNodeID) (runtime.RemoteObjectID, bool, error) {
	obj, _, err := r.resolveIn(ctx, d, id)
	if err != nil || obj == "" {
		return "", false, err
	}
	alive, err := isConnected(ctx, d.s, obj)
	if err != nil || !alive {
		aria.Release(ctx, d.s, obj)
		return "", false, err
	}
	return obj, true, nil
}

// resolveIn resolves a node to an object in egohost's world of d ("" when
// Chrome no longer has the node), and says which world.
func (r *Resolver) resolveIn(ctx context.Context, d *doc, id cdp.BackendNodeID) (runtime.RemoteObjectID, worldRef, error) {
	var res dom.ResolveNodeResult
	var w worldRef
	for attempt := 0; ; attempt++ {
		var err error
		if w, err = r.reachableWorld(ctx, d, attempt > 0); err != nil {
			return "", w, err
		}
		res, err = cdp.Call(ctx, d.s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id, ExecutionContextID: w.cid})
		// A remembered world of an older document makes Chrome say the
		// node does not belong to it: try once more in a fresh world
		// before believing the node is gone.
		if err != nil && attempt == 0 && (cdperr.ContextGone(err) || cdperr.NodeGone(err)) {
			continue
		}
		if err != nil {
			if cdperr.NodeGone(err) {
				return "", w, nil
			}
			return "", w, fmt.Errorf("resolve node: %w", err)
		}
		break
	}
	if res.Object == nil {
		return "", w, nil
	}
	return res.Object.ObjectID, w, nil
}

// fallbackNode finds the element that took a removed ref's place: an
// element of the ref's document with the ref's role and exactly its name
// (fallbackAs). An unnamed one is looked for by its text first
// (Entry.Text), then, when no element has that text, by its role and no
// name, as before texts were kept: the page's text of it may not be the
// snapshot's (generated content the snapshot shows, an icon font's glyph
// it leaves out).
func (r *Resolver) fallbackNode(ctx context.Context, p parsed, e refmap.Entry) ([]doc, found, error) {
	docs, f, err := r.fallbackAs(ctx, p, e)
	if e.Text != "" && errors.Is(err, ErrNotFound) && IsTransient(err) {
		e.Text = ""
		return r.fallbackAs(ctx, p, e)
	}
	return docs, f, err
}

// fallbackAs is fallbackNode by e's role, name and text (none when "").
// It never guesses. With C the elements that have the role and name now
// (checked against Chrome's accessibility tree, in document order) and T
// the latest snapshot's refs with them in that document (the ref is T[k]),
// it takes C[k] only when C and T are as many, every other T[j] is still
// in the page as C[j], and no snapshot gave C[k] a ref: the ref's element
// rendered again in its place among its look-alikes. No C at all is a
// transient ErrNotFound (it may be rendered again); anything else is a
// permanent ErrStaleRef naming the ref.
func (r *Resolver) fallbackAs(ctx context.Context, p parsed, e refmap.Entry) ([]doc, found, error) {
	what := fmt.Sprintf("role %s and name %q", e.Role, e.Name)
	if e.Name == "" && e.Text != "" {
		what = fmt.Sprintf("role %s, no name and the text %q", e.Role, e.Text)
	}
	stale := func(format string, args ...any) error {
		return &Error{Kind: Permanent, Op: "fallback", Target: p.input,
			Err: causef(ErrStaleRef, "stale ref @%s: the element was removed, and %s; not guessing: take a new snapshot", e.Ref, fmt.Sprintf(format, args...))}
	}
	if e.Role == "" {
		return nil, found{}, &Error{Kind: Permanent, Op: "fallback", Target: p.input,
			Err: causef(ErrNotFound, "ref @%s: the element was removed and the ref has no role to look for; take a new snapshot", e.Ref)}
	}
	d, err := r.entryDoc(ctx, e)
	if err != nil {
		return nil, found{}, classify("fallback", p.input, err)
	}
	role := locator.Role{Role: canonRole(e.Role), Name: &locator.Text{Value: e.Name, Exact: true}}
	l := locator.Locator{Steps: []locator.Step{{Op: locator.OpQuery, Kind: locator.KindRole, Role: role}}}
	if e.Name == "" && e.Text != "" {
		// An unnamed element is known by its text (a host list's
		// `term @12: localclient@127.0.0.1`), as its twins are.
		l.Steps = append(l.Steps, locator.Step{Op: locator.OpHasText, Text: locator.Text{Value: e.Text, Exact: true}})
	}
	pl := newPlan(parsed{input: p.input, loc: l})
	limit := measureLimit
	res, err := r.eval(ctx, &d, jsSpec{Steps: pl.steps, Mode: modeList, Limit: &limit})
	if err != nil {
		return nil, found{}, classify("fallback", p.input, err)
	}
	if err := pl.scriptError(res); err != nil {
		return nil, found{}, err
	}
	docs := []doc{d}
	fs := make([]found, len(res.ids))
	for i, id := range res.ids {
		fs[i] = found{id: id}
		if res.Boxes != nil && i < len(res.Boxes) {
			fs[i].box, fs[i].measured = res.Boxes[i], true
		}
	}
	notFound := &Error{Kind: Transient, Op: "fallback", Target: p.input,
		Err: causef(ErrNotFound, "ref @%s: the element was removed, and no element has its %s (the page may have replaced it: take a new snapshot)", e.Ref, what)}
	if len(fs) == 0 {
		return nil, found{}, notFound
	}
	twins, err := r.refs.Twins(ctx, e)
	if err != nil {
		return nil, found{}, classify("fallback", p.input, err)
	}
	k := slices.IndexFunc(twins, func(t refmap.Entry) bool { return t.Ref == e.Ref })
	if k < 0 {
		return nil, found{}, stale("the latest snapshot no longer has it")
	}
	// Check the candidates in order, and stop once there are more than
	// the snapshot had: the count alone decides then.
	var now []found
	order, checked := allIndexes(len(fs)), 0
	for checked < len(fs) && len(now) <= len(twins) {
		batch := order[checked:min(len(fs), checked+parallelCalls*2)]
		checked += len(batch)
		if err := r.check(ctx, pl, docs, fs, batch); err != nil {
			return nil, found{}, classify("fallback", p.input, err)
		}
		for _, i := range batch {
			if fs[i].ok {
				now = append(now, fs[i])
			}
		}
	}
	switch {
	case len(now) == 0:
		return nil, found{}, notFound
	case len(now) > len(twins) && checked < len(fs):
		return nil, found{}, stale("at least %d elements now have its %s where the snapshot had %d", len(now), what, len(twins))
	case len(now) == 1 && len(twins) > 1:
		return nil, found{}, stale("1 element now has its %s where the snapshot had %d", what, len(twins))
	case len(now) != len(twins):
		return nil, found{}, stale("%d elements now have its %s where the snapshot had %d", len(now), what, len(twins))
	}
	for j, t := range twins {
		if j == k {
			continue
		}
		if t.BackendNodeID == 0 || now[j].id != t.BackendNodeID {
			return nil, found{}, stale("@%s, another element with its %s, is not where the snapshot saw it", t.Ref, what)
		}
	}
	f := now[k]
	owned, owner, err := r.refs.Owner(ctx, e, f.id)
	switch {
	case err != nil:
		return nil, found{}, classify("fallback", p.input, err)
	case owned && owner != "":
		return nil, found{}, stale("the element in its place is @%s", owner)
	case owned:
		return nil, found{}, stale("the element in its place had a ref of its own in an earlier snapshot")
	}
	// The fallback ran in whatever document the frame shows now: if it is
	// not the ref's document, the page navigated, and the element found is
	// not the one the ref named.
	if err := r.sameDocument(ctx, d, e); err != nil {
		return nil, found{}, err
	}
	return docs, f, nil
}

// sameDocument fails with a permanent ErrStaleRef when the ref's frame no
// longer shows the document the ref came from.
func (r *Resolver) sameDocument(ctx context.Context, d doc, e refmap.Entry) error {
	if e.LoaderID == "" {
		return nil
	}
	ft, err := cdp.Call(ctx, d.s, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return classify("fallback", "@"+e.Ref, err)
	}
	var loader cdp.LoaderID
	var walk func(t *page.FrameTree)
	walk = func(t *page.FrameTree) {
		if t == nil || t.Frame == nil || loader != "" {
			return
		}
		if t.Frame.ID == d.frameID || (d.frameID == "" && t.Frame.ParentID == "") {
			loader = t.Frame.LoaderID
			return
		}
		for _, c := range t.ChildFrames {
			walk(c)
		}
	}
	walk(ft.FrameTree)
	if loader != e.LoaderID {
		return &Error{Kind: Permanent, Op: "fallback", Target: "@" + e.Ref,
			Err: causef(ErrStaleRef, "stale ref @%s: the page navigated; take a new snapshot", e.Ref)}
	}
	return nil
}

// fallback resolves a gone ref through fallbackNode.
func (r *Resolver) fallback(ctx context.Context, p parsed, e refmap.Entry, m mode) (element, error) {
	docs, f, err := r.fallbackNode(ctx, p, e)
	if err != nil {
		return element{}, err
	}
	return r.finishNode(ctx, p, docs[f.d], f, m)
}

// Release lets the page forget an Object the resolver handed out (from
// Object, ObjectCall), also after ctx ended, within 2 s.
func (r *Resolver) Release(ctx context.Context, o Object) {
	if o.ObjectID != "" {
		aria.Release(ctx, r.session(o.SessionID), o.ObjectID)
	}
}
