package resolver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/link/cdptab"
)

// A new document's world, made by Chrome.
//
// Page.createIsolatedWorld, sent when a document has just committed, waits
// in the renderer behind the loading page's work (its parsing and
// scripts), and so does every evaluation after it: a preparation that made
// the world, set its token, then sent the module queued three times behind
// the page. So, as Playwright's utility world does, the Resolver can have
// Chrome make egohost's world in every new document of the tab's main
// session (Page.addScriptToEvaluateOnNewDocument with the world's name and
// no source) and follow Runtime.executionContextCreated for it
// (FollowNewDocuments, UseNewDocuments); a preparation then sends the
// token, the module, the engine and the functions the first action or
// snapshot needs in one evaluation (prepareAtOnce). On a page busy while
// it loads, the first fill after a goto took 95–109 ms before, 51–60 ms
// after (e2e BenchmarkFirstFillAfterGoto; docs/benchmarks.md).
//
// A world found that way is used only through its system-unique ID
// (runtime uniqueContextId, which never names another context, where
// context IDs start again from 1 in each renderer process), and only when
// the world says it is in the document Chrome said it is for (its
// location.origin is the context's origin); never one of an extension's
// origin (its content scripts' world is named after the extension).
// Anything else — no such world known, an ID gone, a frame of a
// child session — makes the world as before.

// newDocWorld is what Chrome said of egohost's world in one frame.
type newDocWorld struct {
	id     runtime.ExecutionContextID
	unique string
	origin string
	seen   time.Time // when the event came
}

// newDocs follows egohost's worlds in the main session's frames.
type newDocs struct {
	mu      sync.Mutex
	byFrame map[cdp.FrameID]newDocWorld
	changed chan struct{} // closed (and replaced) when a world is added
	// missed says a preparation waited for a world that did not come
	// (Chrome made none: an agent with raw CDP removed the script, say);
	// the next ones do not wait, until a world comes again.
	missed bool
}

// maxNewDocFrames bounds the worlds remembered (one per frame).
const maxNewDocFrames = 4096

// newDocWorldWait bounds how long a preparation, started at a commit,
// waits for Chrome's word of the new document's world before it makes the
// world itself. The word comes a few ms after the commit (before the
// page's first script runs); a document Chrome made no world in (one that
// committed before FollowNewDocuments) costs the preparation this much,
// once: the next ones do not wait until a world comes again (missed).
const newDocWorldWait = 500 * time.Millisecond

// NewDocuments follows egohost's worlds that Chrome makes in the new
// documents of a tab's main session (FollowNewDocuments); a Resolver uses
// them once told to (UseNewDocuments).
type NewDocuments struct {
	nd   *newDocs
	stop func()
}

// FollowNewDocuments has Chrome make egohost's world in every new document
// of the tab's main session s and follows those worlds on s's events,
// until Stop; ctx bounds the call. The caller has enabled Page on s
// (Chrome runs no new document's script without it) and Runtime (or does
// so), which sends the contexts' events.
func FollowNewDocuments(ctx context.Context, s cdptab.Sessions) (*NewDocuments, error) {
	nd := &newDocs{byFrame: make(map[cdp.FrameID]newDocWorld), changed: make(chan struct{})}
	// The events first: none of a document made after the script is missed.
	ch, cancel := s.Stream(runtime.ExecutionContextCreated.Method, runtime.ExecutionContextDestroyed.Method,
		runtime.ExecutionContextsCleared.Method)
	if _, err := cdp.Call(ctx, s, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		WorldName: worldName,
	}); err != nil {
		cancel()
		return nil, fmt.Errorf("follow new documents' worlds: %w", err)
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case ev, ok := <-ch:
				if !ok {
					return
				}
				nd.add(ev)
			}
		}
	}()
	var once sync.Once
	return &NewDocuments{nd: nd, stop: func() {
		once.Do(func() {
			close(quit)
			<-done
			cancel()
		})
	}}, nil
}

// Stop ends the following and forgets the worlds: from then on the
// Resolvers that use n make their worlds.
func (n *NewDocuments) Stop() {
	n.stop()
	n.nd.mu.Lock()
	clear(n.nd.byFrame)
	n.nd.mu.Unlock()
}

// UseNewDocuments has r (and the Resolvers Within makes of it) use the
// worlds n follows; nil: none.
func (r *Resolver) UseNewDocuments(n *NewDocuments) {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	r.c.newDocs = nil
	if n != nil {
		r.c.newDocs = n.nd
	}
}

// add applies one Runtime event.
func (nd *newDocs) add(ev cdptab.Event) {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	switch ev.Method {
	case runtime.ExecutionContextCreated.Method:
		var e struct {
			Context struct {
				ID       runtime.ExecutionContextID `json:"id"`
				UniqueID string                     `json:"uniqueId"`
				Origin   string                     `json:"origin"`
				Name     string                     `json:"name"`
				AuxData  struct {
					FrameID cdp.FrameID `json:"frameId"`
					Type    string      `json:"type"`
				} `json:"auxData"`
			} `json:"context"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) != nil {
			return
		}
		c := e.Context
		// An extension's content scripts run in an isolated world named
		// after the extension, with the extension's origin: never taken,
		// whatever its name (nothing of egohost's is sent there).
		if c.Name != worldName || c.AuxData.Type != "isolated" || c.AuxData.FrameID == "" || c.UniqueID == "" ||
			strings.HasPrefix(c.Origin, "chrome-extension:") {
			return
		}
		if _, ok := nd.byFrame[c.AuxData.FrameID]; !ok && len(nd.byFrame) >= maxNewDocFrames {
			return
		}
		nd.byFrame[c.AuxData.FrameID] = newDocWorld{id: c.ID, unique: c.UniqueID, origin: c.Origin, seen: time.Now()}
		nd.missed = false
		close(nd.changed)
		nd.changed = make(chan struct{})
	case runtime.ExecutionContextDestroyed.Method:
		var e struct {
			ID       runtime.ExecutionContextID `json:"executionContextId"`
			UniqueID string                     `json:"executionContextUniqueId"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) != nil {
			return
		}
		for f, w := range nd.byFrame {
			if w.unique == e.UniqueID || e.UniqueID == "" && w.id == e.ID {
				delete(nd.byFrame, f)
			}
		}
	case runtime.ExecutionContextsCleared.Method:
		clear(nd.byFrame)
	}
}

// world returns frame's world, other than one whose unique ID is in
// tried, waiting until deadline for Chrome's word of it (within ctx).
func (nd *newDocs) world(ctx context.Context, frame cdp.FrameID, deadline time.Time, tried []string) (newDocWorld, bool) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	for {
		nd.mu.Lock()
		w, ok := nd.byFrame[frame]
		changed := nd.changed
		nd.mu.Unlock()
		if ok && !slices.Contains(tried, w.unique) {
			return w, true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return newDocWorld{}, false
		}
	}
}

// waitedKey marks a preparation's context once it has waited for Chrome's
// word of the world (newDocWorldWait, once per preparation).
type waitedKey struct{}

// newDocWorldRef is d's world as Chrome made it at its document's start,
// with egohost's token set in it: ok is false when none is known (or it is
// gone, or it is not what Chrome said), and the caller makes the world.
// A preparation waits for Chrome's word of it (newDocWorldWait): the
// world known may still be the last document's, whose end Chrome has not
// told yet, and then the next is waited for.
//
// also is evaluated there with the token (setToken), in a world that is
// surely not the last document's (last: the unique ID of the world the
// Resolver used there before, if it knows it): one Chrome told of after
// the call began, or another than last. Any other is tried with the token
// alone (withAlso is false): it may be the last document's, whose end is
// on its way, or the same document's (a navigation inside it).
func (r *Resolver) newDocWorldRef(ctx, sctx context.Context, d *doc, also, last string) (w worldRef, withAlso, ok bool) {
	if d.sid != "" {
		return worldRef{}, false, false
	}
	r.c.mu.Lock()
	nd := r.c.newDocs
	r.c.mu.Unlock()
	if nd == nil {
		return worldRef{}, false, false
	}
	start := time.Now()
	deadline := start
	nd.mu.Lock()
	wait := ctx.Value(preparingKey{}) != nil && ctx.Value(waitedKey{}) == nil && !nd.missed
	nd.mu.Unlock()
	if wait {
		deadline = deadline.Add(newDocWorldWait)
	}
	var tried []string
	for len(tried) < 4 {
		known, ok := nd.world(ctx, d.frameID, deadline, tried)
		if !ok {
			if wait && ctx.Err() == nil {
				nd.mu.Lock()
				nd.missed = true
				nd.mu.Unlock()
			}
			return worldRef{}, false, false
		}
		tried = append(tried, known.unique)
		with := also
		if !known.seen.After(start) && (last == "" || known.unique == last) {
			with = ""
		}
		w, err := r.setToken(sctx, d, runtime.EvaluateParams{UniqueContextID: known.unique}, with)
		if err != nil {
			continue // gone: its document's end is on its way
		}
		// An opaque origin is "://" in Chrome's event and "null" in the world.
		if w.origin != known.origin && !(known.origin == "://" && w.origin == "null") {
			return worldRef{}, false, false
		}
		w.cid, w.unique = known.id, known.unique
		return w, with != "", true
	}
	return worldRef{}, false, false
}

// prepareAtOnce is Prepare's work in one evaluation, for a Resolver
// without a reach: in the world Chrome made at the commit, the token, the
// module, the engine's count of spec and the functions to keep
// (KeepOnPrepare) go at once, where the renderer, busy with the loading
// page, would answer three or four evaluations one by one, each between
// its tasks. (With a reach, the document is judged first, before anything
// else runs there.) It reports whether it did; else the world, if one was
// found, is remembered with its token alone. last is the unique ID of the
// world the Resolver used in the frame before (newDocWorldRef).
func (r *Resolver) prepareAtOnce(ctx context.Context, main *doc, spec jsSpec, last string) bool {
	b, err := json.Marshal(spec)
	if err != nil {
		return false
	}
	// Once begun, the world is made whole (as worldRef's).
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), worldSetupTimeout)
	defer cancel()
	r.c.mu.Lock()
	keep := r.c.keep
	r.c.mu.Unlock()
	also := engine.Expr(aria.InstallModule, b) + keep.expr
	w, sent, ok := r.newDocWorldRef(ctx, sctx, main, also, last)
	if !ok {
		return false
	}
	if sent {
		w.sent[engine.Key()] = true
		for _, k := range keep.keys {
			w.sent[k] = true
		}
	}
	r.c.mu.Lock()
	r.c.worlds[frameKey{main.sid, main.frameID}] = w
	r.c.mu.Unlock()
	return sent
}
