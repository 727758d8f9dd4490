package actions

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/engine/cdperr"
	"github.com/egohost/egohost/internal/link/cdptab"
)

var (
	//go:embed check.js
	checkSrc string
	// checkJS is check.js with describe in its scope: it also runs in the
	// page's own world (describeFocused), where there is no module.
	checkJS = aria.WithDescribe(checkSrc)
	//go:embed observe.js
	observeJS string
	//go:embed mutation.js
	mutationJS string
	//go:embed hover.js
	hoverJS string
)

// actionableJS runs check.js and, when the checks pass, in the same call
// (one round trip per attempt): starts the settle's watch of the page
// (observe.js), runs o.then, the first step of the action named in steps
// (e.g. "fill": fill.js, with the second argument; its value is r.then),
// moves the mouse to the action point in the page when the document is
// hidden (hover.js: Chrome cannot complete a trusted mouse move there)
// and starts a click's guard (intercept.js), just before the action.
// Every step, and the whole, has the calling convention of package aria:
// (el, ns, ...args). Every action calls this one function, whatever its
// step: one source, kept once per world (the resolver's FindCall keeps
// it), so that a document's first action sends it and every later one,
// of any kind (a select after a fill), a few bytes.
func actionableJS(steps map[string]string) string {
	var t strings.Builder
	for _, name := range slices.Sorted(maps.Keys(steps)) { // one source: one key
		fmt.Fprintf(&t, "%q: (%s\n),\n", name, steps[name])
	}
	return "async (el, ns, o, a) => { const r = await (" + checkJS + "\n)(el, ns, o);\n" +
		"if (r.ok && o.observe) (" + observeJS + "\n)(el, ns, " + mutationJS + ", o.final);\n" +
		"if (r.ok && o.then) r.then = await ({\n" + t.String() + "})[o.then](el, ns, a);\n" +
		"if (r.ok && o.hover && r.hidden) r.hovered = (" + hoverJS + "\n)(el, ns, r.x, r.y);\n" +
		"if (r.ok && o.guard) (" + interceptJS + "\n)(el, ns, {retarget: o.retarget});\nreturn r; }"
}

// thenSteps are the first steps an action can run in its checks' call
// (checks.Then names one).
var thenSteps = map[string]string{"fill": fillJS, "focusValue": focusValueJS}

// actionable is the checks' function (actionableJS over thenSteps),
// compacted: it goes to every new document.
var actionable = sync.OnceValue(func() string { return aria.Compact(actionableJS(thenSteps)) })

// Checks is the function every action on an element calls first (the
// checks, and its first step), as the resolver keeps it in a world: what
// a preparation of a new document may send ahead
// (resolver.Resolver.KeepOnPrepare).
func Checks() aria.Func { return aria.Keep(actionable()) }

// Point is a place in the tab's top-level viewport, in CSS pixels.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// checks are the actionability checks an action needs.
type checks struct {
	Visible  bool   `json:"visible"`
	Stable   bool   `json:"stable"`
	Enabled  bool   `json:"enabled"`
	Editable bool   `json:"editable"`
	Hit      bool   `json:"hit"`
	Retarget string `json:"retarget,omitempty"`
	Scroll   int    `json:"scroll"`
	// Describe only describes the element: no check, no scroll.
	Describe bool `json:"describe,omitempty"`
	// Inspect only reads its states (Runner.Inspect): no check, no scroll.
	Inspect bool `json:"inspect,omitempty"`
	// Guard starts a click's guard when the checks pass (guardedClick).
	Guard bool `json:"guard,omitempty"`
	// Observe starts the settle's watch when the checks pass; Final are
	// the events the page sees last of the action (finalEvents).
	Observe bool     `json:"observe,omitempty"`
	Final   []string `json:"final,omitempty"`
	// Hover moves the mouse to the action point in the page when the
	// checks pass and the document is hidden (a pointer action: the
	// trusted move cannot complete there).
	Hover bool `json:"hover,omitempty"`
	// Then names the first step of the action (thenSteps), run in the
	// checks' call when they pass (a script called as (el, ns, thenArg));
	// its value goes to *thenOut.
	Then    string `json:"then,omitempty"`
	thenArg any
	thenOut *json.RawMessage
}

// forced keeps what force cannot skip: a box to point at, and the
// settle's watch.
func (c checks) forced() checks {
	return checks{Retarget: c.Retarget, Scroll: c.Scroll, Observe: c.Observe, Final: c.Final, Hover: c.Hover, Then: c.Then, thenArg: c.thenArg, thenOut: c.thenOut}
}

// checkResult is what check.js returns.
type checkResult struct {
	OK     bool      `json:"ok"`
	Reason string    `json:"reason"`
	Cover  string    `json:"cover"`
	Detail string    `json:"detail"`
	Desc   string    `json:"desc"`
	X      float64   `json:"x"`
	Y      float64   `json:"y"`
	Top    bool      `json:"top"`
	TX     float64   `json:"tx"`
	TY     float64   `json:"ty"`
	Box    []float64 `json:"box"`
	// Hidden says the document is hidden (a background tab).
	Hidden bool `json:"hidden"`
	// Hovered says hover.js moved the mouse there (checks.Hover).
	Hovered bool `json:"hovered"`
	// Then is the value of checks.then.
	Then json.RawMessage `json:"then"`
}

// Box is a rectangle in the tab's top-level viewport, in CSS pixels.
type Box struct {
	X, Y, Width, Height float64
}

// spot is where an element is: its action point and its border box.
type spot struct {
	at   Point
	box  Box
	desc string
	// hidden: the document is hidden (a background tab); hovered: the
	// checks moved the mouse to at in the page (checks.Hover).
	hidden, hovered bool
}

// callOn runs fn (a JavaScript function's source, with the calling
// convention of package aria: called as fn(el, ns, ...args)) on the
// element, awaits it, and decodes its value into out (which may be nil).
// The function is sent with the call. A script exception is an error; the
// element's document going away is a transient NotAttached.
func (r *Runner) callOn(ctx context.Context, el Element, fn string, out any, args ...any) error {
	f := aria.Send(fn)
	yes := true
	res, err := f.CallOn(ctx, r.session(el.SessionID), cdpruntime.CallFunctionOnParams{
		ObjectID:      el.ObjectID,
		ReturnByValue: &yes,
		AwaitPromise:  &yes,
		Silent:        &yes,
	}, func(in aria.Install) string {
		if el.Boxed {
			return cdptab.Boxed(f.Decl(in))
		}
		return f.Decl(in)
	}, args...)
	if err != nil {
		if chromeContextGone(err) {
			return &NotActionableError{Reason: NotAttached, Detail: "its document went away"}
		}
		return err
	}
	if res.ExceptionDetails != nil {
		return &JSError{Op: "injected script", Text: exceptionText(res.ExceptionDetails), Line: res.ExceptionDetails.LineNumber, Column: res.ExceptionDetails.ColumnNumber}
	}
	if out != nil && res.Result != nil && len(res.Result.Value) > 0 {
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			return fmt.Errorf("decode script result: %w", err)
		}
	}
	return nil
}

// unboxed returns the element itself for a boxed one (what the CDP
// methods that take an element's object need), and the function that
// releases it; an element that is not boxed comes back as it is.
func (r *Runner) unboxed(ctx context.Context, el Element) (Element, func(), error) {
	if !el.Boxed {
		return el, func() {}, nil
	}
	res, err := cdp.Call(ctx, r.session(el.SessionID), cdpruntime.CallFunctionOn, cdpruntime.CallFunctionOnParams{
		FunctionDeclaration: "function() { return this[1]; }",
		ObjectID:            el.ObjectID,
	})
	if err != nil {
		if chromeContextGone(err) {
			return Element{}, nil, &NotActionableError{Reason: NotAttached, Detail: "its document went away"}
		}
		return Element{}, nil, fmt.Errorf("element: %w", err)
	}
	if res.ExceptionDetails != nil || res.Result == nil || res.Result.ObjectID == "" {
		return Element{}, nil, &NotActionableError{Reason: NotAttached, Detail: "the element is gone"}
	}
	inner := Element{ObjectID: res.Result.ObjectID, SessionID: el.SessionID}
	return inner, func() { r.release(context.WithoutCancel(ctx), inner) }, nil
}

// release lets the page forget an element's remote object. It gives up
// when ctx ends (a dialog blocks the page) or after releaseTimeout.
func (r *Runner) release(ctx context.Context, el Element) {
	if el.ObjectID == "" || ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, releaseTimeout)
	defer cancel()
	_, _ = cdp.Call(ctx, r.session(el.SessionID), cdpruntime.ReleaseObject, cdpruntime.ReleaseObjectParams{ObjectID: el.ObjectID})
}

// actionable runs the checks on el (attempt n picks the scroll alignment)
// and returns the action point in the top-level viewport and the
// element's description.
func (r *Runner) actionable(ctx context.Context, el Element, c checks, force bool, n int) (Point, string, error) {
	s, err := r.measure(ctx, el, c, force, n)
	return s.at, s.desc, err
}

// measure is actionable with the element's box.
func (r *Runner) measure(ctx context.Context, el Element, c checks, force bool, n int) (spot, error) {
	c, fn := r.checkScript(c, force, n)
	var res checkResult
	if err := r.callOn(ctx, el, fn, &res, c, c.thenArg); err != nil {
		return spot{}, err
	}
	return r.spotOf(ctx, el, c, res)
}

// checkScript returns the checks of attempt n (which picks the scroll
// alignment) and the script that runs them.
func (r *Runner) checkScript(c checks, force bool, n int) (checks, string) {
	if n > 0 {
		c.Scroll = (n-1)%3 + 1
	}
	if force {
		c = c.forced()
	}
	return c, actionable()
}

// findChecked finds target and runs the checks on it. With a FindCaller,
// the resolution and the checks are one call to the page; otherwise a
// Find, then the checks' call. The element comes back whenever it was
// found (also when a check failed): the caller releases it.
func (r *Runner) findChecked(ctx context.Context, target string, c checks, force bool, n int) (Element, spot, error) {
	fc, ok := r.find.(FindCaller)
	if !ok {
		el, err := r.find.Find(ctx, target)
		if err != nil {
			return Element{}, spot{}, err
		}
		s, err := r.measure(ctx, el, c, force, n)
		return el, s, err
	}
	c, fn := r.checkScript(c, force, n)
	el, called, err := fc.FindCall(ctx, target, fn, c, c.thenArg)
	if err != nil {
		return Element{}, spot{}, err
	}
	if called.Exception != "" {
		return el, spot{}, &JSError{Op: "injected script", Text: called.Exception}
	}
	var res checkResult
	if err := json.Unmarshal(called.Value, &res); err != nil {
		return el, spot{}, fmt.Errorf("decode script result: %w", err)
	}
	s, err := r.spotOf(ctx, el, c, res)
	return el, s, err
}

// spotOf reads the checks' result on el.
func (r *Runner) spotOf(ctx context.Context, el Element, c checks, res checkResult) (spot, error) {
	if c.thenOut != nil && res.OK {
		*c.thenOut = res.Then
	}
	if !res.OK {
		if res.Reason == "unsupported" {
			return spot{desc: res.Desc}, unsupported("%s: %s", res.Desc, res.Detail)
		}
		return spot{desc: res.Desc}, &NotActionableError{Reason: Reason(res.Reason), Cover: res.Cover, Element: res.Desc, Detail: res.Detail}
	}
	if res.Top && el.SessionID == "" && len(res.Box) == 4 {
		return spot{at: Point{X: res.TX, Y: res.TY}, box: Box{res.Box[0], res.Box[1], res.Box[2], res.Box[3]}, desc: res.Desc, hidden: res.Hidden, hovered: res.Hovered}, nil
	}
	// The element's frame is not reachable from its script (an
	// out-of-process or cross-origin frame): ask Chrome for its box, then
	// add the offsets of the out-of-process frames above it.
	p, box, err := r.quadCenter(ctx, el)
	if err != nil {
		return spot{desc: res.Desc}, err
	}
	off, err := r.frameOffset(ctx, el.SessionID)
	if err != nil {
		return spot{desc: res.Desc}, err
	}
	box.X += off.X
	box.Y += off.Y
	return spot{at: Point{X: p.X + off.X, Y: p.Y + off.Y}, box: box, desc: res.Desc, hidden: res.Hidden, hovered: res.Hovered}, nil
}

// quadCenter returns the centre of an element's first content quad and the
// bounds of all its quads, in the viewport of its session's root frame.
func (r *Runner) quadCenter(ctx context.Context, el Element) (Point, Box, error) {
	el, done, err := r.unboxed(ctx, el)
	if err != nil {
		return Point{}, Box{}, err
	}
	defer done()
	q, err := cdp.Call(ctx, r.session(el.SessionID), dom.GetContentQuads, dom.GetContentQuadsParams{ObjectID: el.ObjectID})
	if err != nil {
		if chromeContextGone(err) {
			return Point{}, Box{}, &NotActionableError{Reason: NotAttached, Detail: "its document went away"}
		}
		return Point{}, Box{}, fmt.Errorf("element box: %w", err)
	}
	var at *Point
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, quad := range q.Quads {
		if len(quad) != 8 {
			continue
		}
		if at == nil {
			at = &Point{X: (quad[0] + quad[2] + quad[4] + quad[6]) / 4, Y: (quad[1] + quad[3] + quad[5] + quad[7]) / 4}
		}
		for i := 0; i < 8; i += 2 {
			minX, maxX = math.Min(minX, quad[i]), math.Max(maxX, quad[i])
			minY, maxY = math.Min(minY, quad[i+1]), math.Max(maxY, quad[i+1])
		}
	}
	if at == nil {
		return Point{}, Box{}, &NotActionableError{Reason: NotVisible, Detail: "it has no box"}
	}
	return *at, Box{X: minX, Y: minY, Width: maxX - minX, Height: maxY - minY}, nil
}

// frameOffset returns where the viewport of an out-of-process frame's
// session starts in the tab's top-level viewport: the content box of each
// <iframe> that owns it, summed up to the main session.
func (r *Runner) frameOffset(ctx context.Context, sid target.SessionID) (Point, error) {
	var off Point
	for depth := 0; sid != "" && depth < 32; depth++ {
		var child *struct {
			frame  cdp.FrameID
			parent target.SessionID
		}
		for _, c := range r.tab.Children() {
			if c.SessionID == sid {
				child = &struct {
					frame  cdp.FrameID
					parent target.SessionID
				}{cdp.FrameID(c.TargetID), c.Parent}
				break
			}
		}
		if child == nil {
			return off, &NotActionableError{Reason: NotAttached, Detail: "its frame is gone"}
		}
		parent := r.session(child.parent)
		owner, err := cdp.Call(ctx, parent, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: child.frame})
		if err != nil {
			return off, fmt.Errorf("frame owner: %w", err)
		}
		box, err := cdp.Call(ctx, parent, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: owner.BackendNodeID})
		if err != nil {
			return off, fmt.Errorf("frame box: %w", err)
		}
		if box.Model == nil || len(box.Model.Content) < 2 {
			return off, &NotActionableError{Reason: NotVisible, Detail: "its frame has no box"}
		}
		off.X += box.Model.Content[0]
		off.Y += box.Model.Content[1]
		sid = child.parent
	}
	return off, nil
}

// exceptionText is the most telling text of a script exception.
func exceptionText(d *cdpruntime.ExceptionDetails) string { return cdperr.ExceptionText(d) }

// chromeContextGone reports whether err is Chrome saying that the
// object's or context's document went away (navigation, frame removed).
func chromeContextGone(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return cdperr.ContextGone(err) || cdperr.ObjectGone(err)
}
