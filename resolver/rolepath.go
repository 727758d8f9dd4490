package resolver

import (
	"context"
	"errors"
	"fmt"
)

// Limits of the role path.
const (
	// verifyAll: a strict role locator with at most this many candidates
	// has every candidate checked, so an ambiguity error names the exact
	// count; with more, checking stops at the second match.
	verifyAll = 256
	// measureLimit: candidates are measured in the page only when there
	// are this few; otherwise the chosen one is measured with
	// DOM.getBoxModel.
	measureLimit = 64
	// parallelCalls bounds the CDP calls in flight for one resolution.
	parallelCalls = 8
)

// oneVerified resolves a role locator: candidates from the page, checked
// against the accessibility tree until the pick is decided. It first
// fetches a window of the candidates (the first ones, or the last ones for
// last), and all of them only when that window does not decide.
func (r *Resolver) oneVerified(ctx context.Context, pl plan, m mode) (element, error) {
	if pl.never {
		_, err := pl.choose(0)
		return element{}, err
	}
	win := window{max: verifyAll}
	switch {
	case pl.picked && pl.nth == -1:
		win.from = -verifyAll
	case pl.picked && pl.nth >= verifyAll:
		win.max = pl.nth + verifyAll
	}
	docs, fs, complete, err := r.list(ctx, pl, measureLimit, win)
	if err != nil {
		return element{}, err
	}
	chosen, err := r.pickVerified(ctx, pl, docs, fs, complete)
	if errors.Is(err, errNeedAll) {
		if docs, fs, _, err = r.list(ctx, pl, measureLimit, window{}); err != nil {
			return element{}, err
		}
		chosen, err = r.pickVerified(ctx, pl, docs, fs, true)
	}
	if err != nil {
		return element{}, err
	}
	return r.finishNode(ctx, pl.p, docs[chosen.d], chosen, m)
}

// errNeedAll: a window of the candidates did not decide the pick.
var errNeedAll = errors.New("need every candidate")

// pickVerified checks candidates in order (from the end for last) until
// the pick is decided. With only some of the candidates (complete false:
// the first ones, or the last ones for last), it returns errNeedAll when
// they do not decide.
func (r *Resolver) pickVerified(ctx context.Context, pl plan, docs []doc, fs []found, complete bool) (found, error) {
	order := allIndexes(len(fs))
	if pl.picked && pl.nth == -1 {
		for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
			order[i], order[j] = order[j], order[i]
		}
	}
	// A strict pick checks every candidate when there are few, so that its
	// error names the exact count; else it stops at the second match.
	checkAll := !pl.picked && complete && len(fs) <= verifyAll
	need := 1 // matches that decide the pick
	switch {
	case checkAll:
		need = len(fs) + 1
	case !pl.picked:
		need = 2
	case pl.nth > 0:
		need = pl.nth + 1
	}
	var hits []int
	for start := 0; start < len(order) && len(hits) < need; start += parallelCalls * 2 {
		batch := order[start:min(len(order), start+parallelCalls*2)]
		if checkAll {
			batch = order[start:]
		}
		if err := r.check(ctx, pl, docs, fs, batch); err != nil {
			return found{}, classify("resolve", pl.p.input, err)
		}
		for _, i := range batch {
			if fs[i].ok {
				hits = append(hits, i)
			}
		}
		if checkAll {
			break
		}
	}
	switch {
	case !pl.picked && len(hits) > 1:
		atLeast := !complete || len(fs) > verifyAll
		exact := ""
		if !atLeast {
			exact = pl.exactName(fs, hits) // every match checked: one named exactly so is the only one
		}
		return found{}, pl.ambiguous(len(hits), atLeast, r.candidates(ctx, docs, fs, hits, len(hits), atLeast), exact)
	case !complete:
		// Not decided by the first (or last) candidates alone.
		if pl.picked && (pl.nth == -1 && len(hits) > 0 || pl.nth >= 0 && len(hits) > pl.nth) {
			break
		}
		return found{}, errNeedAll
	}
	switch {
	case !pl.picked && len(hits) == 1:
		return fs[hits[0]], nil
	case pl.picked && pl.nth == -1 && len(hits) > 0:
		return fs[hits[0]], nil
	case pl.picked && pl.nth >= 0 && len(hits) > pl.nth:
		return fs[hits[pl.nth]], nil
	}
	if len(hits) == 0 {
		return found{}, pl.notFound(0, "")
	}
	return found{}, pl.notFound(len(hits), fmt.Sprintf("nth=%d is out of range", pl.nth))
}

// finishNode turns a checked candidate into a point or an object.
func (r *Resolver) finishNode(ctx context.Context, p parsed, d doc, f found, m mode) (element, error) {
	switch m {
	case modeObject:
		obj, w, err := r.resolveIn(ctx, &d, f.id)
		if err == nil && obj == "" {
			err = errors.New("the element is gone")
		}
		if err != nil {
			return element{}, classify("object", p.input, err)
		}
		return element{object: Object{ObjectID: obj, SessionID: d.sid}, world: &w}, nil
	default:
		if f.measured {
			if f.box == nil {
				return element{}, locatorNoBox("box", p)
			}
			off, err := r.newOffsets().doc(ctx, d)
			if err != nil {
				return element{}, classify("box", p.input, err)
			}
			return element{point: Point{X: f.box.X + off[0], Y: f.box.Y + off[1], SessionID: d.sid}}, nil
		}
		pt, err := r.boxCenter(ctx, p, d.sid, d.s, f.id)
		if err != nil {
			return element{}, err
		}
		return element{point: pt}, nil
	}
}
