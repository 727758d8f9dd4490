package resolver

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/egohost/egohost/internal/cdperr"
	"github.com/egohost/egohost/locator"
)

//go:embed engine.js
var engineJS string

// engineKey is where engine.js is kept in egohost's world of a frame, so
// it crosses chrome.debugger and is compiled once per document, not on
// every call. The key names the script's version: a new build never calls
// an old engine left in a page.
var engineKey = func() string {
	sum := sha256.Sum256([]byte(engineJS))
	return "__egohostResolver_" + hex.EncodeToString(sum[:6])
}()

// noEngine is what the call expression returns when the world has no
// engine yet.
const noEngine = "egohost: no resolver engine"

// mode is what the page script returns.
type mode string

const (
	modeCount  mode = "count"
	modeCenter mode = "center"
	modeObject mode = "object"
	modeList   mode = "list"
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

// The JSON the page script takes (see engine.js).
type (
	jsText struct {
		V     string  `json:"v"`
		Exact bool    `json:"exact,omitempty"`
		Re    *string `json:"re,omitempty"`
		Flags string  `json:"flags,omitempty"`
	}
	jsRole struct {
		Role   string  `json:"role"`
		Name   *jsText `json:"name,omitempty"`
		Hidden bool    `json:"hidden,omitempty"`
	}
	jsStep struct {
		Op      string   `json:"op"`
		Kind    string   `json:"kind,omitempty"`
		Sel     string   `json:"sel,omitempty"`
		Text    *jsText  `json:"text,omitempty"`
		Role    *jsRole  `json:"role,omitempty"`
		N       int      `json:"n"`
		Steps   []jsStep `json:"steps,omitempty"`
		Visible bool     `json:"visible"`
	}
	jsPick struct {
		Nth    *int `json:"nth,omitempty"`
		Strict bool `json:"strict,omitempty"`
	}
	jsSpec struct {
		Steps  []jsStep `json:"steps"`
		Mode   mode     `json:"mode"`
		Pick   *jsPick  `json:"pick,omitempty"`
		Offset int      `json:"offset,omitempty"`
		Limit  *int     `json:"limit,omitempty"`
		From   int      `json:"from,omitempty"`
		Max    *int     `json:"max,omitempty"`
	}
	jsBox struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
		W float64 `json:"w"`
		H float64 `json:"h"`
	}
	// jsResult is the script's answer in one document.
	jsResult struct {
		N      int      `json:"n"`
		Frames int      `json:"frames"`
		At     int      `json:"at"`
		From   int      `json:"from"`
		Box    *jsBox   `json:"box"`
		Boxes  []*jsBox `json:"boxes"`
		Error  string   `json:"error"`
		Syntax bool     `json:"syntax"`

		object runtime.RemoteObjectID // modeObject: the element
		ids    []cdp.BackendNodeID    // modeList: the elements
	}
)

func toJSText(t locator.Text) *jsText {
	j := &jsText{V: t.Value, Exact: t.Exact}
	if t.Regex {
		src := t.Value
		j = &jsText{Re: &src, Flags: t.Flags}
	}
	return j
}

// canonRole folds Chrome's and ARIA's synonyms: image → img,
// presentation → none.
func canonRole(r string) string {
	r = strings.ToLower(r)
	switch r {
	case "image":
		return "img"
	case "presentation":
		return "none"
	}
	return r
}

func toJSSteps(steps []locator.Step) []jsStep {
	out := make([]jsStep, 0, len(steps))
	for _, s := range steps {
		j := jsStep{}
		switch s.Op {
		case locator.OpQuery:
			j.Op, j.Kind = "query", s.Kind.String()
			switch s.Kind {
			case locator.KindCSS, locator.KindXPath:
				j.Sel = s.Selector
			case locator.KindRole:
				j.Role = &jsRole{Role: canonRole(s.Role.Role), Hidden: s.Role.IncludeHidden}
				if s.Role.Name != nil {
					j.Role.Name = toJSText(*s.Role.Name)
				}
			default:
				j.Text = toJSText(s.Text)
			}
		case locator.OpNth:
			j.Op, j.N = "nth", s.Nth
		case locator.OpHasText, locator.OpHasNotText:
			j.Op = "hasText"
			if s.Op == locator.OpHasNotText {
				j.Op = "hasNotText"
			}
			j.Text = toJSText(s.Text)
		case locator.OpHas, locator.OpHasNot:
			j.Op = "has"
			if s.Op == locator.OpHasNot {
				j.Op = "hasNot"
			}
			if s.Sub != nil {
				j.Steps = toJSSteps(s.Sub.Steps)
			}
		case locator.OpVisible:
			j.Op, j.Visible = "visible", s.Visible
		}
		out = append(out, j)
	}
	return out
}

// plan is a parsed locator ready to run: its steps without the trailing
// nth / last, which pick one element from all the frames' matches.
type plan struct {
	p      parsed
	steps  []jsStep
	nth    int  // the pick: -1 last
	picked bool // false: strict (exactly one)
	never  bool // stacked trailing picks that can match nothing (nth=1 >> nth=1)
	// verify is the role of the last query step when only filters follow
	// it: its candidates are checked against Chrome's accessibility tree.
	verify *locator.Role
}

func newPlan(p parsed) plan {
	steps := p.loc.Steps
	end := len(steps)
	for end > 0 && steps[end-1].Op == locator.OpNth {
		end--
	}
	pl := plan{p: p, steps: toJSSteps(steps[:end])}
	if end < len(steps) {
		pl.nth, pl.picked = steps[end].Nth, true
		for _, s := range steps[end+1:] {
			if s.Nth != 0 && s.Nth != -1 {
				pl.never = true
			}
		}
	}
	for i := end - 1; i >= 0; i-- {
		s := steps[i]
		if s.Op == locator.OpNth {
			break // a pick between the role and the end picks among unchecked candidates
		}
		if s.Op == locator.OpQuery {
			if s.Kind == locator.KindRole {
				r := s.Role
				pl.verify = &r
			}
			break
		}
	}
	return pl
}

func (pl plan) jsPick() *jsPick {
	if !pl.picked {
		return &jsPick{Strict: true}
	}
	n := pl.nth
	return &jsPick{Nth: &n}
}

// choose applies the plan's pick to total matches: the index, or an error.
func (pl plan) choose(total int) (int, error) {
	switch {
	case pl.never:
		return 0, pl.notFound(0, "the stacked nth= steps pick nothing")
	case !pl.picked && total == 0:
		return 0, pl.notFound(0, "")
	case !pl.picked && total > 1:
		return 0, pl.ambiguous(total, false)
	case !pl.picked:
		return 0, nil
	case pl.nth == -1 && total > 0:
		return total - 1, nil
	case pl.nth >= 0 && pl.nth < total:
		return pl.nth, nil
	}
	if total == 0 {
		return 0, pl.notFound(0, "")
	}
	return 0, pl.notFound(total, fmt.Sprintf("nth=%d is out of range", pl.nth))
}

func (pl plan) notFound(n int, why string) error {
	msg := fmt.Sprintf("%s matched %d elements", pl.p.loc, n)
	if why != "" {
		msg += ": " + why
	}
	return &Error{Kind: Transient, Op: "resolve", Target: pl.p.input, Count: n, Err: causef(ErrNotFound, "%s", msg)}
}

func (pl plan) ambiguous(n int, atLeast bool) error {
	count := fmt.Sprint(n)
	if atLeast {
		count = "at least " + count
	}
	return &Error{Kind: Permanent, Op: "resolve", Target: pl.p.input, Count: n,
		Err: causef(ErrAmbiguous, "strict mode: %s matched %s elements; add nth=… or make it more specific", pl.p.loc, count)}
}

// wrongWorld is what the page script answers in a context that is not
// egohost's world.
const wrongWorld = "egohost:wrong-world"

func isString(o *runtime.RemoteObject, want string) bool {
	return o != nil && o.Type == "string" && string(o.Value) == strconv.Quote(want)
}

// eval runs the page script in one document.
func (r *Resolver) eval(ctx context.Context, d *doc, spec jsSpec) (jsResult, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return jsResult{}, fmt.Errorf("encode spec: %w", err)
	}
	yes := true
	var res runtime.EvaluateResult
	remade, fresh, install := false, false, false
	for attempt := 0; ; attempt++ {
		w, err := r.worldRef(ctx, d, fresh)
		if err != nil {
			return jsResult{}, err
		}
		fresh = false
		// Only in egohost's own world (its token): a remembered context ID
		// may name another context after a cross-site navigation.
		guard := "globalThis." + worldTokenKey + " !== " + strconv.Quote(w.token) + " ? " + strconv.Quote(wrongWorld) + " : "
		expr := "(" + guard + "(globalThis." + engineKey + " ? globalThis." + engineKey + "(" + string(b) + ") : " + strconv.Quote(noEngine) + "))"
		if install {
			expr = "(" + guard + "(globalThis." + engineKey + " = (" + engineJS + "))(" + string(b) + "))"
		}
		params := runtime.EvaluateParams{Expression: expr, ContextID: w.cid, Silent: &yes}
		switch spec.Mode {
		case modeCount, modeCenter:
			params.ReturnByValue = &yes
		case modeList:
			params.SerializationOptions = deep()
		}
		res, err = cdp.Call(ctx, d.s, runtime.Evaluate, params)
		if err != nil && !remade && cdperr.ContextGone(err) {
			remade, fresh = true, true // the frame navigated since we made the world
			continue
		}
		if err != nil {
			return jsResult{}, fmt.Errorf("evaluate: %w", err)
		}
		if !remade && isString(res.Result, wrongWorld) {
			remade, fresh = true, true // the ID now names another context
			continue
		}
		if !install && attempt < 3 && isNoEngine(res.Result) {
			install = true // a new document: load the engine
			continue
		}
		break
	}
	if res.ExceptionDetails != nil {
		return jsResult{}, fmt.Errorf("evaluate: %s", cdperr.ExceptionText(res.ExceptionDetails))
	}
	if res.Result == nil {
		return jsResult{}, fmt.Errorf("evaluate: no result")
	}
	var out jsResult
	switch spec.Mode {
	case modeCount, modeCenter:
		err = jsonv2.Unmarshal(res.Result.Value, &out)
	case modeObject:
		if res.Result.Subtype == "node" && res.Result.ObjectID != "" {
			out.object = res.Result.ObjectID
			return out, nil
		}
		var s string
		if err = jsonv2.Unmarshal(res.Result.Value, &s); err == nil {
			err = json.Unmarshal([]byte(s), &out)
		}
	case modeList:
		out, err = decodeList(res.Result.DeepSerializedValue)
	}
	if err != nil {
		return jsResult{}, fmt.Errorf("evaluate: decode %s result: %w", spec.Mode, err)
	}
	return out, nil
}

// isNoEngine reports whether a call found no engine in the world.
func isNoEngine(o *runtime.RemoteObject) bool {
	if o == nil || o.Type != "string" {
		return false
	}
	var s string
	if o.DeepSerializedValue != nil {
		_ = json.Unmarshal(o.DeepSerializedValue.Value, &s)
	} else {
		_ = json.Unmarshal(o.Value, &s)
	}
	return s == noEngine
}

// deep asks for deep serialization: DOM nodes in the result come back with
// their backendNodeId.
func deep() *runtime.SerializationOptions {
	one := int64(1)
	return &runtime.SerializationOptions{
		Serialization:        runtime.SerializationOptionsSerializationDeep,
		MaxDepth:             &one,
		AdditionalParameters: jsonv2.Value(`{"maxNodeDepth":0,"includeShadowTree":"none"}`),
	}
}

// decodeList reads [JSON string, node, node, …].
func decodeList(v *runtime.DeepSerializedValue) (jsResult, error) {
	if v == nil {
		return jsResult{}, errors.New("no deep value")
	}
	var items []struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(v.Value, &items); err != nil {
		return jsResult{}, err
	}
	if len(items) == 0 || items[0].Type != "string" {
		return jsResult{}, errors.New("no header")
	}
	var head string
	if err := json.Unmarshal(items[0].Value, &head); err != nil {
		return jsResult{}, err
	}
	var out jsResult
	if err := json.Unmarshal([]byte(head), &out); err != nil {
		return jsResult{}, err
	}
	if out.Error != "" {
		return out, nil // the script's own error (a syntax error…): what follows is not the matches
	}
	for _, it := range items[1:] {
		var n struct {
			BackendNodeID cdp.BackendNodeID `json:"backendNodeId"`
		}
		if it.Type != "node" || json.Unmarshal(it.Value, &n) != nil || n.BackendNodeID == 0 {
			return jsResult{}, fmt.Errorf("element %d: not a node", len(out.ids))
		}
		out.ids = append(out.ids, n.BackendNodeID)
	}
	if len(out.ids) > out.N {
		return jsResult{}, fmt.Errorf("%d nodes for %d matches", len(out.ids), out.N)
	}
	return out, nil
}

// scriptError turns the script's own error report into a permanent error.
func (pl plan) scriptError(res jsResult) error {
	if res.Error == "" {
		return nil
	}
	if res.Syntax {
		return &Error{Kind: Permanent, Op: "resolve", Target: pl.p.input,
			Err: &locator.SyntaxError{Input: pl.p.input, Offset: -1, Msg: res.Error}}
	}
	return &Error{Kind: Permanent, Op: "resolve", Target: pl.p.input, Err: errors.New(res.Error)}
}

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
}

// one resolves a locator to exactly one element (or the picked one).
func (r *Resolver) one(ctx context.Context, p parsed, m mode) (element, error) {
	pl := newPlan(p)
	if pl.verify != nil {
		return r.oneVerified(ctx, pl, m)
	}
	main := r.mainDoc()
	res, err := r.eval(ctx, &main, jsSpec{Steps: pl.steps, Mode: m, Pick: pl.jsPick()})
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
			return element{}, err
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
		return element{}, err
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
	again, err := r.eval(ctx, &docs[k], jsSpec{Steps: pl.steps, Mode: m, Pick: &jsPick{Nth: &n}})
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

// finish turns the script's pick in d into a point or an object.
func (r *Resolver) finish(ctx context.Context, pl plan, d doc, res jsResult, m mode) (element, error) {
	switch m {
	case modeObject:
		if res.object == "" {
			return element{}, pl.notFound(res.N, "the page changed while resolving")
		}
		return element{object: Object{ObjectID: res.object, SessionID: d.sid}}, nil
	default:
		if res.Box == nil {
			return element{}, &Error{Kind: Transient, Op: "resolve", Target: pl.p.input, Count: 1,
				Err: causef(ErrNoBox, "%s: the element has no box (not rendered, hidden or zero-sized)", pl.p.loc)}
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
}

// window is the part of a document's matches list mode returns: from
// (negative: from the end) and at most max (0: all).
type window struct{ from, max int }

// list runs the script in list mode in every frame and returns the matches
// in document order, and whether they are all of them: with a window, a
// page without frames returns that part of its matches only.
func (r *Resolver) list(ctx context.Context, pl plan, limit int, win window) ([]doc, []found, bool, error) {
	main := r.mainDoc()
	spec := jsSpec{Steps: pl.steps, Mode: modeList, Limit: &limit}
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
		return found{}, pl.ambiguous(len(hits), !complete || len(fs) > verifyAll)
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
		cid, err := r.world(ctx, &d, false)
		if err != nil {
			return element{}, classify("object", p.input, err)
		}
		res, err := cdp.Call(ctx, d.s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: f.id, ExecutionContextID: cid})
		if err != nil && cdperr.ContextGone(err) {
			if cid, err = r.world(ctx, &d, true); err == nil {
				res, err = cdp.Call(ctx, d.s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: f.id, ExecutionContextID: cid})
			}
		}
		if err != nil {
			return element{}, classify("object", p.input, err)
		}
		if res.Object == nil || res.Object.ObjectID == "" {
			return element{}, classify("object", p.input, errors.New("no object id"))
		}
		return element{object: Object{ObjectID: res.Object.ObjectID, SessionID: d.sid}}, nil
	default:
		if f.measured {
			if f.box == nil {
				return element{}, &Error{Kind: Transient, Op: "box", Target: p.input, Count: 1,
					Err: causef(ErrNoBox, "%s: the element has no box (not rendered, hidden or zero-sized)", p)}
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
		return Box{}, &Error{Kind: Transient, Op: "box", Target: p.input, Count: 1,
			Err: causef(ErrNoBox, "%s: the element has no box (not rendered, hidden or zero-sized)", p)}
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
