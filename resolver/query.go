package resolver

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/egohost/egohost/internal/link/cdptab"
)

// parallel runs f(i) for i in [0, n), at most parallelCalls at once, and
// returns the errors joined.
func parallel(n int, f func(i int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, parallelCalls)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// element is what one() found.
type element struct {
	point  Point
	object Object
	called cdptab.Called // the call's outcome, when object is boxed
	// world is the world object lives in, when the resolution knows it
	// (nil: unknown, and a call on it sends its function).
	world *worldRef
}

// one resolves a locator to exactly one element (or the picked one).
func (r *Resolver) one(ctx context.Context, p parsed, m mode) (element, error) {
	return r.oneWith(ctx, p, m, nil)
}

// oneCall is one in object mode with a call on the element, in the same
// evaluation where the page's pick is final.
func (r *Resolver) oneCall(ctx context.Context, p parsed, c *jsCall) (element, error) {
	return r.oneWith(ctx, p, modeObject, c)
}

func (r *Resolver) oneWith(ctx context.Context, p parsed, m mode, c *jsCall) (element, error) {
	pl := newPlan(p)
	if pl.verify != nil {
		return r.oneVerified(ctx, pl, m)
	}
	main := r.mainDoc()
	res, err := r.eval(ctx, &main, jsSpec{Steps: pl.steps, Mode: m, Pick: pl.jsPick(), call: c})
	if err != nil {
		return element{}, classify("resolve", p.input, err)
	}
	if err := pl.scriptError(res); err != nil {
		return element{}, err
	}
	// The page's pick is final when no other frame can change it: no
	// frames, or nth=i within the main frame's matches (which come first).
	if m == modeObject && res.object != "" || res.Frames > 0 && pl.picked && pl.nth >= 0 && res.At >= 0 && !pl.never {
		return r.finish(ctx, pl, main, res, m)
	}
	if res.Frames == 0 {
		i, err := pl.choose(res.N)
		if err != nil {
			return element{}, r.withCandidates(ctx, pl, res.N, err)
		}
		if i != res.At {
			return element{}, classify("resolve", p.input, fmt.Errorf("page picked %d, want %d", res.At, i))
		}
		return r.finish(ctx, pl, main, res, m)
	}
	docs, err := r.documents(ctx)
	if err != nil {
		return element{}, classify("resolve", p.input, err)
	}
	docs[0] = main
	counts := make([]int, len(docs))
	counts[0] = res.N
	err = parallel(len(docs)-1, func(i int) error {
		c, err := r.eval(ctx, &docs[i+1], jsSpec{Steps: pl.steps, Mode: modeCount})
		if withheld(err) {
			return nil // a frame that went where the caller may not reach: none there
		}
		if err != nil {
			return err
		}
		if err := pl.scriptError(c); err != nil {
			return err
		}
		counts[i+1] = c.N
		return nil
	})
	if err != nil {
		return element{}, classify("resolve", p.input, err)
	}
	total := 0
	for _, c := range counts {
		total += c
	}
	g, err := pl.choose(total)
	if err != nil {
		return element{}, r.withCandidates(ctx, pl, total, err)
	}
	k, local := 0, g
	for local >= counts[k] {
		local -= counts[k]
		k++
	}
	if k == 0 && local == res.At && (m != modeObject || res.object != "") {
		return r.finish(ctx, pl, main, res, m)
	}
	n := local
	again, err := r.eval(ctx, &docs[k], jsSpec{Steps: pl.steps, Mode: m, Pick: &jsPick{Nth: &n}, call: c})
	if err != nil {
		return element{}, classify("resolve", p.input, err)
	}
	if err := pl.scriptError(again); err != nil {
		return element{}, err
	}
	if again.At != local {
		return element{}, pl.notFound(0, "the page changed while resolving")
	}
	return r.finish(ctx, pl, docs[k], again, m)
}

// candidatesUpTo bounds the matches withCandidates lists: a page with
// frames lists every match of each (list), and three names among
// hundreds tell nothing a count does not.
const candidatesUpTo = 100

// withCandidates is err, the pick's error on total matches, naming the
// first matches by their roles and names when it is ambiguous among at
// most candidatesUpTo (one more evaluation and a look at each in the
// accessibility tree, on the error's path only); err as it is when they
// cannot be had.
func (r *Resolver) withCandidates(ctx context.Context, pl plan, total int, err error) error {
	if !errors.Is(err, ErrAmbiguous) || total > candidatesUpTo {
		return err
	}
	docs, fs, _, lerr := r.list(ctx, pl, 0, window{max: maxCandidates})
	if lerr != nil || len(fs) == 0 {
		return err
	}
	idx := allIndexes(min(len(fs), maxCandidates))
	if r.check(ctx, pl, docs, fs, idx) != nil {
		return err
	}
	return pl.ambiguous(total, false, r.candidates(ctx, docs, fs, idx, total, false), "")
}

// finish turns the script's pick in d into a point or an object.
func (r *Resolver) finish(ctx context.Context, pl plan, d doc, res jsResult, m mode) (element, error) {
	switch m {
	case modeObject:
		if res.object == "" {
			return element{}, pl.notFound(res.N, "the page changed while resolving")
		}
		return element{object: Object{ObjectID: res.object, SessionID: d.sid, Boxed: res.boxed}, called: res.called}, nil
	default:
		if res.Box == nil {
			return element{}, locatorNoBox("resolve", pl.p)
		}
		off, err := r.newOffsets().doc(ctx, d)
		if err != nil {
			return element{}, classify("box", pl.p.input, err)
		}
		return element{point: Point{X: res.Box.X + off[0], Y: res.Box.Y + off[1], SessionID: d.sid}}, nil
	}
}

// found is one match from the list mode: where it is and what it is.
type found struct {
	d        int
	id       cdp.BackendNodeID
	box      *jsBox
	measured bool
	// Filled by the accessibility check.
	checked    bool
	ok         bool
	role, name string
	hidden     bool   // not rendered, hidden or inert (Chrome's accessibility tree ignores it so)
	pageName   string // the page module's name of the match (jsSpec.Names)
	pageRole   string // the page module's role of the match (jsSpec.Roles)
}

// window is the part of a document's matches list mode returns: from
// (negative: from the end) and at most max (0: all).
type window struct{ from, max int }

// list runs the script in list mode in every frame and returns the matches
// in document order, and whether they are all of them: with a window, a
// page without frames returns that part of its matches only.
func (r *Resolver) list(ctx context.Context, pl plan, limit int, win window) ([]doc, []found, bool, error) {
	main := r.mainDoc()
	spec := jsSpec{Steps: pl.steps, Mode: modeList, Limit: &limit, Names: pl.pageNames(), Roles: pl.pageRoles()}
	all := spec
	if win.max > 0 {
		spec.From, spec.Max = win.from, &win.max
	}
	res, err := r.eval(ctx, &main, spec)
	if err != nil {
		return nil, nil, false, classify("resolve", pl.p.input, err)
	}
	if err := pl.scriptError(res); err != nil {
		return nil, nil, false, err
	}
	docs := []doc{main}
	results := []jsResult{res}
	complete := len(res.ids) == res.N
	if res.Frames > 0 {
		// Several documents: one sequence, so every match of each.
		if docs, err = r.documents(ctx); err != nil {
			return nil, nil, false, classify("resolve", pl.p.input, err)
		}
		docs[0] = main
		results = make([]jsResult, len(docs))
		results[0] = res
		first := 1
		if !complete {
			first = 0
		}
		err = parallel(len(docs)-first, func(i int) error {
			res, err := r.eval(ctx, &docs[i+first], all)
			if withheld(err) && i+first > 0 {
				return nil // a frame that went where the caller may not reach: none there
			}
			if err == nil {
				err = pl.scriptError(res)
			}
			results[i+first] = res
			return err
		})
		if err != nil {
			return nil, nil, false, classify("resolve", pl.p.input, err)
		}
		complete = true
	}
	var out []found
	for k, res := range results {
		for i, id := range res.ids {
			f := found{d: k, id: id}
			if res.Boxes != nil && i < len(res.Boxes) {
				f.box, f.measured = res.Boxes[i], true
			}
			if i < len(res.Names) {
				f.pageName = res.Names[i]
			}
			if i < len(res.Roles) {
				f.pageRole = res.Roles[i]
			}
			out = append(out, f)
		}
	}
	return docs, out, complete, nil
}

// count counts a locator's matches in every frame.
func (r *Resolver) count(ctx context.Context, p parsed) (int, error) {
	pl := newPlan(p)
	var total int
	if pl.verify != nil {
		docs, fs, _, err := r.list(ctx, pl, 0, window{})
		if err != nil {
			return 0, err
		}
		if err := r.check(ctx, pl, docs, fs, allIndexes(len(fs))); err != nil {
			return 0, classify("resolve", p.input, err)
		}
		for _, f := range fs {
			if f.ok {
				total++
			}
		}
	} else {
		main := r.mainDoc()
		res, err := r.eval(ctx, &main, jsSpec{Steps: pl.steps, Mode: modeCount})
		if err != nil {
			return 0, classify("resolve", p.input, err)
		}
		if err := pl.scriptError(res); err != nil {
			return 0, err
		}
		total = res.N
		if res.Frames > 0 {
			docs, err := r.documents(ctx)
			if err != nil {
				return 0, classify("resolve", p.input, err)
			}
			counts := make([]int, len(docs))
			err = parallel(len(docs)-1, func(i int) error {
				c, err := r.eval(ctx, &docs[i+1], jsSpec{Steps: pl.steps, Mode: modeCount})
				if withheld(err) {
					return nil // a frame that went where the caller may not reach: none there
				}
				if err == nil {
					err = pl.scriptError(c)
				}
				counts[i+1] = c.N
				return err
			})
			if err != nil {
				return 0, classify("resolve", p.input, err)
			}
			for _, c := range counts {
				total += c
			}
		}
	}
	if !pl.picked {
		return total, nil
	}
	if _, err := pl.choose(total); err != nil {
		return 0, nil
	}
	return 1, nil
}

// all lists a locator's matches with Chrome's role and name.
func (r *Resolver) all(ctx context.Context, p parsed) ([]Match, error) {
	pl := newPlan(p)
	docs, fs, _, err := r.list(ctx, pl, 1<<30, window{})
	if err != nil {
		return nil, err
	}
	if err := r.check(ctx, pl, docs, fs, allIndexes(len(fs))); err != nil {
		return nil, classify("resolve", p.input, err)
	}
	var kept []found
	for _, f := range fs {
		if f.ok {
			kept = append(kept, f)
		}
	}
	if pl.picked {
		i, err := pl.choose(len(kept))
		if err != nil {
			return nil, nil
		}
		kept = kept[i : i+1]
	}
	offs := r.newOffsets()
	out := make([]Match, 0, len(kept))
	for _, f := range kept {
		d := docs[f.d]
		m := Match{BackendNodeID: f.id, Role: f.role, Name: f.name, FrameID: d.matchFrame(), SessionID: d.sid}
		if f.box != nil {
			off, err := offs.doc(ctx, d)
			if err != nil {
				return nil, classify("box", p.input, err)
			}
			m.Box = &Box{X: f.box.X + off[0], Y: f.box.Y + off[1], Width: f.box.W, Height: f.box.H}
		}
		out = append(out, m)
	}
	return out, nil
}

func allIndexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// withheld reports whether err is a document the Resolver's reach refused.
func withheld(err error) bool {
	var w *cdptab.WithheldError
	return errors.As(err, &w)
}
