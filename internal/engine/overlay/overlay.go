// Package overlay draws egohost's highlight boxes in a tab and runs the
// element picker there, for the popup. Both live in an isolated world of
// the tab's main frame (overlay.js), so the page's scripts cannot change
// them; what they add to the page is one element in the top layer. It
// finds nothing itself: the boxes come from the resolver, and a picked
// element is named by the service (its locator verified by the resolver).
package overlay

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	cdpoverlay "github.com/chromedp/cdproto/overlay"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
)

//go:embed overlay.js
var script string

// overlay is overlay.js, kept in the overlay's world (with the boxes it
// drew) once a call has run there.
var overlay = aria.Keep(script)

// worldName names the isolated world the overlay lives in.
const worldName = "egohost-overlay"

// Box is one highlight box in the tab's top-level viewport (CSS pixels).
type Box struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	Label  string  `json:"label,omitempty"`
}

// Picked is the element a person clicked in the picker.
type Picked struct {
	BackendNodeID cdp.BackendNodeID
	CSS           string // a CSS path unique in the element's document (tree scope)
	Text          string // its text, white space normalised; "" when over 80 characters
}

// ErrCancelled is Pick's error when the person pressed Escape or another
// pick (or Cancel) ended this one.
var ErrCancelled = errors.New("pick cancelled")

// Show replaces the boxes drawn in the tab of s (its main session) with
// boxes. They go when the page scrolls or resizes, or on Clear.
func Show(ctx context.Context, s cdp.Session, boxes []Box) error {
	if boxes == nil {
		boxes = []Box{}
	}
	if _, err := eval(ctx, s, "show", boxes); err != nil {
		return fmt.Errorf("overlay show: %w", err)
	}
	return nil
}

// Clear removes the boxes (a pick in progress stays).
func Clear(ctx context.Context, s cdp.Session) error {
	if _, err := eval(ctx, s, "clear", nil); err != nil {
		return fmt.Errorf("overlay clear: %w", err)
	}
	return nil
}

// Pick lets the person pick an element with Chrome's own inspect mode
// (Overlay.setInspectMode: hovering highlights, and the page never sees
// the click) until they click one, press Escape (ErrCancelled) or ctx
// ends. A hint at the top of the page says what to do.
func Pick(ctx context.Context, s cdp.Session) (Picked, error) {
	picked, stopPicked := s.Subscribe(cdpoverlay.InspectNodeRequested.Method)
	defer stopPicked()
	cancelled, stopCancelled := s.Subscribe(cdpoverlay.InspectModeCanceled.Method)
	defer stopCancelled()
	if err := exec(ctx, s, dom.Enable, dom.EnableParams{}); err != nil {
		return Picked{}, fmt.Errorf("overlay pick: %w", err)
	}
	if err := exec(ctx, s, cdpoverlay.Enable, cdp.Empty{}); err != nil {
		return Picked{}, fmt.Errorf("overlay pick: %w", err)
	}
	defer func() {
		// Inspect mode off and the domains as they were (nothing else in
		// egohost enables them), whatever ended the pick.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		_ = exec(dctx, s, cdpoverlay.SetInspectMode, cdpoverlay.SetInspectModeParams{Mode: cdpoverlay.InspectModeNone})
		_ = exec(dctx, s, cdpoverlay.Disable, cdp.Empty{})
		_ = exec(dctx, s, dom.Disable, cdp.Empty{})
		_, _ = eval(dctx, s, "hint", "")
	}()
	fill := &cdp.RGBA{R: 31, G: 111, B: 235, A: 0.25}
	border := &cdp.RGBA{R: 31, G: 111, B: 235, A: 0.9}
	if err := exec(ctx, s, cdpoverlay.SetInspectMode, cdpoverlay.SetInspectModeParams{
		Mode:            cdpoverlay.InspectModeSearchForNode,
		HighlightConfig: &cdpoverlay.HighlightConfig{ShowInfo: true, ShowAccessibilityInfo: true, ContentColor: fill, BorderColor: border},
	}); err != nil {
		return Picked{}, fmt.Errorf("overlay pick: %w", err)
	}
	if _, err := eval(ctx, s, "hint", "egohost: click an element to pick it · Esc cancels"); err != nil {
		return Picked{}, fmt.Errorf("overlay pick: %w", err)
	}
	var id cdp.BackendNodeID
	select {
	case v, ok := <-picked:
		if !ok {
			return Picked{}, fmt.Errorf("overlay pick: the tab went away")
		}
		var ev cdpoverlay.EventInspectNodeRequested
		if err := decode(v, &ev); err != nil {
			return Picked{}, fmt.Errorf("overlay pick: %w", err)
		}
		id = ev.BackendNodeID
	case <-cancelled:
		return Picked{}, ErrCancelled
	case <-ctx.Done():
		return Picked{}, fmt.Errorf("overlay pick: %w", context.Cause(ctx))
	}
	p, err := Describe(ctx, s, id)
	if err != nil {
		return Picked{}, fmt.Errorf("overlay pick: %w", err)
	}
	return p, nil
}

// Describe names the element id (of the tab's main session) the way the
// picker does: a CSS path unique in its document and its short text.
func Describe(ctx context.Context, s cdp.Session, id cdp.BackendNodeID) (Picked, error) {
	cid, err := world(ctx, s)
	if err != nil {
		return Picked{}, err
	}
	obj, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id, ExecutionContextID: cid})
	if err != nil {
		return Picked{}, fmt.Errorf("describe node %d: %w", id, err)
	}
	if obj.Object == nil || obj.Object.ObjectID == "" {
		return Picked{}, fmt.Errorf("describe node %d: no object", id)
	}
	defer aria.Release(ctx, s, obj.Object.ObjectID)
	yes := true
	res, err := overlay.CallOn(ctx, s, runtime.CallFunctionOnParams{ObjectID: obj.Object.ObjectID, ReturnByValue: &yes}, overlay.Decl, "describe")
	if err != nil {
		return Picked{}, fmt.Errorf("describe node %d: %w", id, err)
	}
	if res.ExceptionDetails != nil {
		return Picked{}, fmt.Errorf("describe node %d: %s", id, exceptionText(res.ExceptionDetails))
	}
	p := Picked{BackendNodeID: id}
	if res.Result != nil {
		var d struct{ CSS, Text string }
		if err := json.Unmarshal(res.Result.Value, &d); err != nil {
			return Picked{}, fmt.Errorf("describe node %d: %w", id, err)
		}
		p.CSS, p.Text = d.CSS, d.Text
	}
	return p, nil
}

// world returns the overlay's isolated world in the main frame.
func world(ctx context.Context, s cdp.Session) (runtime.ExecutionContextID, error) {
	tree, err := cdp.Call(ctx, s, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return 0, fmt.Errorf("frame tree: %w", err)
	}
	if tree.FrameTree == nil || tree.FrameTree.Frame == nil {
		return 0, errors.New("frame tree: no main frame")
	}
	no := false
	w, err := cdp.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
		FrameID: tree.FrameTree.Frame.ID, WorldName: worldName, GrantUniveralAccess: &no,
	})
	if err != nil {
		return 0, fmt.Errorf("isolated world: %w", err)
	}
	return w.ExecutionContextID, nil
}

// exec runs a command whose result is empty.
func exec[P any](ctx context.Context, s cdp.Session, c cdp.Command[P, cdp.Empty], params P) error {
	_, err := cdp.Call(ctx, s, c, params)
	return err
}

func decode(v jsonv2.Value, out any) error {
	return jsonv2.Unmarshal(v, out)
}

// eval runs one op of overlay.js (with arg) on the main frame's document
// in the overlay's world, loading overlay.js first when the world is new.
func eval(ctx context.Context, s cdp.Session, op string, arg any) (*runtime.RemoteObject, error) {
	cid, err := world(ctx, s)
	if err != nil {
		return nil, err
	}
	yes := true
	res, err := overlay.Evaluate(ctx, s, runtime.EvaluateParams{ContextID: cid, Silent: &yes, ReturnByValue: &yes}, op, arg)
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("page script: %s", exceptionText(res.ExceptionDetails))
	}
	return res.Result, nil
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}
