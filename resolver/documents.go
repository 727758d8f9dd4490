package resolver

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/link/cdptab"
)

// worldName is egohost's isolated world in every frame (the snapshot
// package uses the same one); the page's scripts cannot reach it.
const worldName = "egohost"

// doc is one frame's document: the session that reaches it and its frame.
type doc struct {
	sid     target.SessionID // "" = the tab's main session
	s       cdp.Session
	frameID cdp.FrameID // "" = the session's root frame, not looked up yet
	root    bool        // the session's root frame
	parent  target.SessionID
}

// matchFrame is the FrameID a Match reports: "" for the tab's main frame.
func (d doc) matchFrame() cdp.FrameID {
	if d.sid == "" && d.root {
		return ""
	}
	return d.frameID
}

func (r *Resolver) session(sid target.SessionID) cdp.Session {
	if sid == "" {
		return r.tab
	}
	return r.tab.Child(sid)
}

// mainDoc is the tab's main frame.
func (r *Resolver) mainDoc() doc { return doc{s: r.tab, root: true} }

// documents lists every frame of the tab: the main session's frame tree
// (pre-order, the main frame first), then each out-of-process iframe's
// session with its own in-process frames. A frame whose document the
// Resolver's reach refuses is left out, and so is every frame inside it;
// a refused main frame is a *cdptab.WithheldError.
func (r *Resolver) documents(ctx context.Context) ([]doc, error) {
	docs, _, err := r.frames(ctx)
	return docs, err
}

// Withheld returns the origins of the tab's frames that the Resolver's
// reach refuses, as the frame tree says now (a screenshot would show
// them); none for a Resolver without a reach.
func (r *Resolver) Withheld(ctx context.Context) ([]string, error) {
	if r.reach == nil {
		return nil, nil
	}
	_, out, err := r.frames(ctx)
	return out, err
}

// frames is documents, and the origins of the frames it left out.
func (r *Resolver) frames(ctx context.Context) ([]doc, []string, error) {
	var docs []doc
	var out []string
	withheld := make(map[cdp.FrameID]bool)
	var mainErr error
	// Out-of-process frames: parents before children, then by target ID
	// (Chrome does not say where they sit among their siblings). Every
	// session's tree is asked for at once (one round trip, not one a
	// frame), and walked in that order: a frame inside a withheld one is
	// withheld too.
	var kids []pageChild
	for _, c := range r.tab.Children() {
		if c.Type == "iframe" {
			kids = append(kids, c)
		}
	}
	slices.SortFunc(kids, func(a, b pageChild) int {
		if c := cmp.Compare(depth(kids, a), depth(kids, b)); c != 0 {
			return c
		}
		return cmp.Compare(a.TargetID, b.TargetID)
	})
	ss := []cdp.Session{r.tab}
	for _, c := range kids {
		ss = append(ss, r.tab.Child(c.SessionID))
	}
	trees, errs := cdptab.FrameTrees(ctx, ss)
	add := func(sid target.SessionID, s cdp.Session, parent target.SessionID, tree *page.FrameTree, err error) error {
		if err != nil {
			return fmt.Errorf("frame tree: %w", err)
		}
		r.c.mu.Lock()
		r.c.roots[sid] = tree.Frame.ID
		r.c.mu.Unlock()
		var walk func(t *page.FrameTree, root, inside bool)
		walk = func(t *page.FrameTree, root, inside bool) {
			if t == nil || t.Frame == nil {
				return
			}
			f := t.Frame
			main := sid == "" && root
			if err := r.reach.Check(f.URL, f.SecurityOrigin, !main); inside || withheld[f.ParentID] || err != nil {
				withheld[f.ID], inside = true, true
				out = append(out, cdptab.OriginOf(f.URL, f.SecurityOrigin))
				if main {
					mainErr = err
				}
			} else {
				docs = append(docs, doc{sid: sid, s: s, frameID: f.ID, root: root, parent: parent})
			}
			for _, c := range t.ChildFrames {
				walk(c, false, inside)
			}
		}
		walk(tree, true, false)
		return nil
	}
	if err := add("", r.tab, "", trees[0], errs[0]); err != nil {
		return nil, nil, err
	}
	if mainErr != nil {
		return nil, nil, mainErr
	}
	for i, c := range kids {
		if err := add(c.SessionID, ss[i+1], c.Parent, trees[i+1], errs[i+1]); err != nil {
			// A frame that detaches while we look is not an error.
			continue
		}
	}
	return docs, out, nil
}

type pageChild = cdptab.Child

// depth counts c's out-of-process ancestors.
func depth(kids []pageChild, c pageChild) int {
	d := 0
	for p := c.Parent; p != "" && d < len(kids); d++ {
		i := slices.IndexFunc(kids, func(k pageChild) bool { return k.SessionID == p })
		if i < 0 {
			break
		}
		p = kids[i].Parent
	}
	return d
}

// rootFrame returns (and remembers) a session's root frame.
func (r *Resolver) rootFrame(ctx context.Context, sid target.SessionID, s cdp.Session) (cdp.FrameID, error) {
	r.c.mu.Lock()
	id, ok := r.c.roots[sid]
	r.c.mu.Unlock()
	if ok {
		return id, nil
	}
	ft, err := cdp.Call(ctx, s, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return "", fmt.Errorf("frame tree: %w", err)
	}
	if ft.FrameTree == nil || ft.FrameTree.Frame == nil {
		return "", fmt.Errorf("frame tree: empty")
	}
	r.c.mu.Lock()
	r.c.roots[sid] = ft.FrameTree.Frame.ID
	r.c.mu.Unlock()
	return ft.FrameTree.Frame.ID, nil
}

// worldRef is a remembered isolated world: its context ID, and the token
// egohost stored in it. Context IDs are numbers that a new renderer process
// hands out again from 1, so after a cross-site navigation a remembered ID
// may name another context (another frame's, or the page's own world): the
// token tells egohost's world from any other.
type worldRef struct {
	cid   runtime.ExecutionContextID
	token string
	// url and origin are what the world's document said of itself when
	// the world was made (location.href, location.origin): a world lives
	// as long as its document, so they are the document the world reaches.
	url, origin string
	// loader is that document's loader ID ("" when Chrome did not say).
	loader cdp.LoaderID
	// unique is the context's system-unique ID, when Chrome said it
	// (a world it made in a new document: newDocWorldRef).
	unique string
	// sent holds the keys of the functions a call sent to the world
	// (guarded by the cache's mutex): the next call of one sends only its
	// arguments, and the first sends it at once, not after a miss. The
	// engine's key is there once an evaluation that sends the engine and
	// the page module went to the world.
	sent map[string]bool
}

// worldSetupTimeout bounds the making of a world and its token by a
// preparation, which go on when it is stopped meanwhile.
const worldSetupTimeout = 2 * time.Second

// worldTokenKey is the global that holds a world's token.
const worldTokenKey = "__egohostWorld1"

// world returns the execution context of egohost's isolated world in d's
// frame, creating it when needed. fresh forgets the remembered one (after
// Chrome said it is gone, or its token did not match).
func (r *Resolver) world(ctx context.Context, d *doc, fresh bool) (runtime.ExecutionContextID, error) {
	w, err := r.reachableWorld(ctx, d, fresh)
	return w.cid, err
}

// reachableWorld is world's worldRef: what a call that runs there may
// have sent it before.
func (r *Resolver) reachableWorld(ctx context.Context, d *doc, fresh bool) (worldRef, error) {
	w, err := r.worldRef(ctx, d, fresh)
	if err != nil {
		return worldRef{}, err
	}
	if err := r.reachable(d, w); err != nil {
		return worldRef{}, err
	}
	return w, nil
}

// reachable asks the Resolver's reach about the document a world of d
// reaches.
func (r *Resolver) reachable(d *doc, w worldRef) error {
	return r.reach.Check(w.url, w.origin, !(d.sid == "" && d.root))
}

func (r *Resolver) worldRef(ctx context.Context, d *doc, fresh bool) (worldRef, error) {
	if d.frameID == "" {
		id, err := r.rootFrame(ctx, d.sid, d.s)
		if err != nil {
			return worldRef{}, err
		}
		d.frameID = id
	}
	key := frameKey{d.sid, d.frameID}
	r.c.mu.Lock()
	if fresh {
		delete(r.c.worlds, key)
		if d.root {
			delete(r.c.roots, d.sid)
		}
	}
	w, ok := r.c.worlds[key]
	r.c.mu.Unlock()
	if ok {
		return w, nil
	}
	// A Prepare may be making this world right now (it makes the main
	// document's only): take its world.
	if d.sid == "" && d.root {
		r.c.waitPrepare(ctx)
	}
	r.c.mu.Lock()
	w, ok = r.c.worlds[key]
	r.c.mu.Unlock()
	if ok {
		return w, nil
	}
	if err := ctx.Err(); err != nil {
		return worldRef{}, fmt.Errorf("isolated world in frame %s: %w", d.frameID, err)
	}
	// Once a preparation has begun a world, the world is made and its
	// token set even when the preparation is stopped meanwhile (a snapshot
	// stops it), so that the next caller finds it rather than make it
	// again. Any other caller's world ends with it, at once.
	sctx := ctx
	if ctx.Value(preparingKey{}) != nil {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), worldSetupTimeout)
		defer cancel()
	}
	w, _, ok = r.newDocWorldRef(ctx, sctx, d, "", "")
	if !ok {
		no := false
		made, err := cdp.Call(sctx, d.s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
			FrameID: d.frameID, WorldName: worldName, GrantUniveralAccess: &no,
		})
		if err != nil {
			return worldRef{}, fmt.Errorf("isolated world in frame %s: %w", d.frameID, err)
		}
		if w, err = r.setToken(sctx, d, runtime.EvaluateParams{ContextID: made.ExecutionContextID}, ""); err != nil {
			return worldRef{}, err
		}
		w.cid = made.ExecutionContextID
	}
	r.c.mu.Lock()
	r.c.worlds[key] = w
	r.c.mu.Unlock()
	return w, nil
}

// setToken stores a new token in the world at (the context of) at, and
// reads where its document is: the world's worldRef, but for its cid.
// also, when not "", is an expression evaluated there in the same go,
// after the token (an exception in it fails the whole).
func (r *Resolver) setToken(ctx context.Context, d *doc, at runtime.EvaluateParams, also string) (worldRef, error) {
	var tok [12]byte
	_, _ = rand.Read(tok[:])
	w := worldRef{token: hex.EncodeToString(tok[:]), sent: map[string]bool{}}
	yes := true
	if also != "" {
		also = ", " + also
	}
	at.Expression = "globalThis." + worldTokenKey + " = " + strconv.Quote(w.token) + ", [location.href, location.origin, document" + also + "]"
	at.Silent = &yes
	at.SerializationOptions = cdptab.DeepNodes()
	res, err := cdp.Call(ctx, d.s, runtime.Evaluate, at)
	if err != nil {
		return worldRef{}, fmt.Errorf("isolated world in frame %s: %w", d.frameID, err)
	}
	if res.ExceptionDetails != nil {
		return worldRef{}, fmt.Errorf("isolated world in frame %s: %s", d.frameID, res.ExceptionDetails.Text)
	}
	if w.url, w.origin, w.loader, err = decodeWhere(res.Result); err != nil {
		return worldRef{}, fmt.Errorf("isolated world in frame %s: %w", d.frameID, err)
	}
	return w, nil
}

// guarded wraps expr to run only in the world that holds token: elsewhere
// it evaluates to wrongWorld.
func guarded(token, expr string) string {
	return "(globalThis." + worldTokenKey + " !== " + strconv.Quote(token) + " ? " + strconv.Quote(wrongWorld) + " : " + expr + ")"
}

// MainWorld returns egohost's world in the tab's main frame as r last
// made it, after a Prepare that is making it now (within ctx); ok is false
// when r has made none there. It makes nothing and asks nothing of the
// page: the world may be an earlier document's (its Loader says which).
// A snapshot walks there while it reads the frame tree, one round trip
// less; the Guard keeps that walk out of any other context.
func (r *Resolver) MainWorld(ctx context.Context) (aria.World, bool) {
	r.c.waitPrepare(ctx)
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	id, ok := r.c.roots[""]
	if !ok {
		return aria.World{}, false
	}
	w, ok := r.c.worlds[frameKey{"", id}]
	if !ok || w.loader == "" || w.token == "" {
		return aria.World{}, false
	}
	token := w.token
	return aria.World{
		Frame: id, Context: w.cid, Loader: w.loader, URL: w.url, Origin: w.origin, Module: w.sent[engine.Key()], Kept: maps.Clone(w.sent),
		Guard: func(expr string) string { return guarded(token, expr) },
		Wrong: wrongWorld,
	}, true
}

// installOf says what a call of f in w sends: the function, unless a call
// sent it to w before.
func (r *Resolver) installOf(w worldRef, f aria.Func) aria.Install {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	if w.sent[f.Key()] {
		return aria.InstallNone
	}
	return aria.InstallFunc
}

// engineInstall says what an evaluation of the engine in w sends: nothing
// once one ran there; else the module and the engine at once (the world
// has no engine: only the resolver sends it), not after a miss. A module
// another caller installed meanwhile (a snapshot's walk) stays as it is.
func (r *Resolver) engineInstall(w worldRef) aria.Install {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	if w.sent[engine.Key()] {
		return aria.InstallNone
	}
	return aria.InstallModule
}

// sentTo records that a call sent f to w (or found it there).
func (r *Resolver) sentTo(w worldRef, f aria.Func) {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	if w.sent != nil {
		w.sent[f.Key()] = true
	}
}

// decodeWhere reads [location.href, location.origin, document, …], deep
// serialized: the document's URL, origin and loader ID.
func decodeWhere(o *runtime.RemoteObject) (url, origin string, loader cdp.LoaderID, err error) {
	if o == nil {
		return "", "", "", errors.New("no location")
	}
	items, err := deepItems(o.DeepSerializedValue)
	if err != nil || len(items) < 3 ||
		json.Unmarshal(items[0].Value, &url) != nil || json.Unmarshal(items[1].Value, &origin) != nil {
		return "", "", "", errors.New("no location")
	}
	var doc struct {
		LoaderID cdp.LoaderID `json:"loaderId"`
	}
	if items[2].Type == "node" {
		_ = json.Unmarshal(items[2].Value, &doc)
	}
	return url, origin, doc.LoaderID, nil
}

// offsets computes, once per resolution, where frames sit in the tab's
// top-level viewport.
type offsets struct {
	r        *Resolver
	sessions map[target.SessionID][2]float64
}

func (r *Resolver) newOffsets() *offsets {
	return &offsets{r: r, sessions: map[target.SessionID][2]float64{"": {0, 0}}}
}

// ownerOrigin is the top-left of the content box of the iframe element
// that shows frame f, in the coordinates of session s's root viewport.
func ownerOrigin(ctx context.Context, s cdp.Session, f cdp.FrameID) ([2]float64, error) {
	owner, err := cdp.Call(ctx, s, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: f})
	if err != nil {
		return [2]float64{}, fmt.Errorf("frame owner of %s: %w", f, err)
	}
	bm, err := cdp.Call(ctx, s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: owner.BackendNodeID})
	if err != nil {
		return [2]float64{}, fmt.Errorf("box of the iframe of %s: %w", f, err)
	}
	if bm.Model == nil || len(bm.Model.Content) < 8 {
		return [2]float64{}, fmt.Errorf("box of the iframe of %s: %w", f, ErrNoBox)
	}
	q := bm.Model.Content
	return [2]float64{min(q[0], q[2], q[4], q[6]), min(q[1], q[3], q[5], q[7])}, nil
}

// session returns the offset of a session's root viewport.
func (o *offsets) session(ctx context.Context, sid target.SessionID) ([2]float64, error) {
	if off, ok := o.sessions[sid]; ok {
		return off, nil
	}
	var c *pageChild
	for _, k := range o.r.tab.Children() {
		if k.SessionID == sid {
			c = &k
			break
		}
	}
	if c == nil {
		return [2]float64{}, fmt.Errorf("session %s: frame gone", sid)
	}
	parent, err := o.session(ctx, c.Parent)
	if err != nil {
		return [2]float64{}, err
	}
	in, err := ownerOrigin(ctx, o.r.session(c.Parent), cdp.FrameID(c.TargetID))
	if err != nil {
		return [2]float64{}, err
	}
	off := [2]float64{parent[0] + in[0], parent[1] + in[1]}
	o.sessions[sid] = off
	return off, nil
}

// doc returns the offset of d's viewport: its session's, plus its iframe's
// place when d is not the session's root frame (Chrome measures boxes of
// same-process frames from the session's root viewport).
func (o *offsets) doc(ctx context.Context, d doc) ([2]float64, error) {
	off, err := o.session(ctx, d.sid)
	if err != nil || d.root {
		return off, err
	}
	in, err := ownerOrigin(ctx, d.s, d.frameID)
	if err != nil {
		return [2]float64{}, err
	}
	return [2]float64{off[0] + in[0], off[1] + in[1]}, nil
}
