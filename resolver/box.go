package resolver

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/target"
	"github.com/egohost/egohost/internal/engine/cdperr"
)

// nodeBox measures a node: the centre of its border box (DOM.getBoxModel),
// or, for an inline element that wraps onto several lines, of its first
// line (the first of DOM.getContentQuads's quads, one per line), moved
// into top-level viewport coordinates, and the size of its border box.
// The two calls go out together. An element with no box with an area is
// a transient ErrNoBox.
func (r *Resolver) nodeBox(ctx context.Context, p parsed, sid target.SessionID, s cdp.Session, id cdp.BackendNodeID) (Box, error) {
	var (
		wg         sync.WaitGroup
		bm         dom.GetBoxModelResult
		quads      dom.GetContentQuadsResult
		berr, qerr error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		quads, qerr = cdp.Call(ctx, s, dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: id})
	}()
	bm, berr = cdp.Call(ctx, s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: id})
	wg.Wait()
	if berr != nil && !cdperr.NoBox(berr) {
		return Box{}, classify("box", p.input, berr)
	}
	var border []float64
	if berr == nil && bm.Model != nil {
		border = bm.Model.Border
	}
	if qerr != nil {
		quads.Quads = nil // no layout box: the box model says the same
	}
	b, ok := borderBox(border, quads.Quads)
	if !ok {
		return Box{}, locatorNoBox("box", p)
	}
	off, err := r.newOffsets().session(ctx, sid)
	if err != nil {
		return Box{}, classify("box", p.input, err)
	}
	b.X, b.Y = b.X+off[0], b.Y+off[1]
	return b, nil
}

// boxCenter is the centre nodeBox measures.
func (r *Resolver) boxCenter(ctx context.Context, p parsed, sid target.SessionID, s cdp.Session, id cdp.BackendNodeID) (Point, error) {
	b, err := r.nodeBox(ctx, p, sid, s, id)
	if err != nil {
		return Point{}, err
	}
	return Point{X: b.X, Y: b.Y, SessionID: sid}, nil
}

// borderBox is an element's box from its border quad (DOM.getBoxModel)
// and its content quads (DOM.getContentQuads: the border box of a block,
// one quad per line box of an inline element): the centre of the border
// quad, or of the first line when there are several, and the size of the
// border quad; false when it has no area. engine.js's box() takes the same
// point from the page (getClientRects), and so do the actions.
func borderBox(border []float64, quads []dom.Quad) (Box, bool) {
	w, h, ok := quadSize(border)
	if !ok {
		return Box{}, false
	}
	b := Box{X: (border[0] + border[2] + border[4] + border[6]) / 4, Y: (border[1] + border[3] + border[5] + border[7]) / 4, Width: w, Height: h}
	lines := 0
	var first []float64
	for _, q := range quads {
		if _, _, ok := quadSize(q); ok {
			if lines == 0 {
				first = q
			}
			lines++
		}
	}
	if lines > 1 {
		b.X, b.Y = (first[0]+first[2]+first[4]+first[6])/4, (first[1]+first[3]+first[5]+first[7])/4
	}
	return b, true
}

// quadSize is the size of a quad's bounds; false when it is not a quad or
// has no area.
func quadSize(q []float64) (w, h float64, ok bool) {
	if len(q) != 8 {
		return 0, 0, false
	}
	w = max(q[0], q[2], q[4], q[6]) - min(q[0], q[2], q[4], q[6])
	h = max(q[1], q[3], q[5], q[7]) - min(q[1], q[3], q[5], q[7])
	return w, h, w > 0 && h > 0
}
