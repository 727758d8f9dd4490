package resolver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/engine/cdperr"
	"github.com/egohost/egohost/internal/engine/locator"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/refmap"
)

// fakeDoc plays engine.js for one document: its matches, their boxes
// (nil: no box) and its iframes.
type fakeDoc struct {
	ids    []cdp.BackendNodeID
	boxes  []*jsBox
	frames int
	err    string // a script error
	syntax bool
	// url and origin are what the document says of itself (location);
	// https://fake.test/ when empty.
	url, origin string
}

func (d fakeDoc) answer(spec jsSpec) (*runtime.RemoteObject, error) {
	if d.err != "" {
		res := jsResult{Error: d.err, Syntax: d.syntax}
		return encode(spec.Mode, res, nil)
	}
	n := len(d.ids)
	at := -1
	switch p := spec.Pick; {
	case p == nil:
	case p.Strict:
		if n == 1 {
			at = 0
		}
	case *p.Nth == -1:
		at = n - 1
	default:
		at = *p.Nth - spec.Offset
	}
	if at >= n {
		at = -1
	}
	res := jsResult{N: n, Frames: d.frames, At: at}
	switch spec.Mode {
	case modeCenter:
		if at >= 0 {
			res.Box = d.boxes[at]
		}
	case modeObject:
		if at >= 0 && (d.frames == 0 || spec.Pick.Nth != nil && *spec.Pick.Nth >= 0) {
			return &runtime.RemoteObject{Type: "object", Subtype: "node", ObjectID: runtime.RemoteObjectID(fmt.Sprintf("obj-%d", d.ids[at]))}, nil
		}
	case modeList:
		from := spec.From
		if from < 0 {
			from = max(0, n+from)
		}
		to := n
		if spec.Max != nil {
			to = min(n, from+*spec.Max)
		}
		res.From = from
		if spec.Limit == nil || to-from <= *spec.Limit {
			if d.boxes != nil {
				res.Boxes = d.boxes[from:to]
			}
		}
		return encode(spec.Mode, res, d.ids[from:to])
	}
	return encode(spec.Mode, res, nil)
}

func encode(m mode, res jsResult, ids []cdp.BackendNodeID) (*runtime.RemoteObject, error) {
	head, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	switch m {
	case modeObject:
		s, _ := json.Marshal(string(head))
		return &runtime.RemoteObject{Type: "string", Value: s}, nil
	case modeList:
		items := []any{map[string]any{"type": "string", "value": string(head)}}
		for _, id := range ids {
			items = append(items, map[string]any{"type": "node", "value": map[string]any{"backendNodeId": id}})
		}
		v, _ := json.Marshal(items)
		return &runtime.RemoteObject{Type: "object", DeepSerializedValue: &runtime.DeepSerializedValue{Type: "array", Value: v}}, nil
	}
	return &runtime.RemoteObject{Type: "object", Value: head}, nil
}

// ax is a fake accessibility node.
type ax struct {
	role, name string
	ignored    bool
	props      map[string]string
}

// fakeTab is a scripted tab: documents by execution context, accessibility
// nodes and box models by backendNodeId.
type fakeTab struct {
	*cdpfake.Session
	mu     sync.Mutex
	docs   map[runtime.ExecutionContextID]fakeDoc
	worlds map[cdp.FrameID]runtime.ExecutionContextID
	ax     map[cdp.BackendNodeID]ax
	boxes  map[cdp.BackendNodeID][]float64
	specs  []jsSpec
	loaded map[runtime.ExecutionContextID]bool // worlds with the engine
}

// newFakeTab returns a tab whose main frame ("MAIN", world context 1)
// shows main, plus child frames of the main session.
func newFakeTab(t *testing.T, main fakeDoc, kids ...fakeFrame) *fakeTab {
	f := &fakeTab{
		Session: cdpfake.New(),
		docs:    map[runtime.ExecutionContextID]fakeDoc{1: main},
		worlds:  map[cdp.FrameID]runtime.ExecutionContextID{"MAIN": 1},
		ax:      map[cdp.BackendNodeID]ax{},
		boxes:   map[cdp.BackendNodeID][]float64{},
		loaded:  map[runtime.ExecutionContextID]bool{},
	}
	tree := &page.FrameTree{Frame: &cdp.Frame{ID: "MAIN", URL: main.url, SecurityOrigin: main.origin}}
	for i, k := range kids {
		cid := runtime.ExecutionContextID(10 + i)
		f.docs[cid] = k.doc
		f.worlds[k.id] = cid
		u := k.doc.url
		if k.treeURL != "" {
			u = k.treeURL
		}
		tree.ChildFrames = append(tree.ChildFrames, &page.FrameTree{Frame: &cdp.Frame{ID: k.id, ParentID: "MAIN", URL: u}})
		f.boxes[k.owner] = k.ownerQuad
	}
	f.serve(t, f.Session, tree)
	return f
}

type fakeFrame struct {
	id        cdp.FrameID
	doc       fakeDoc
	owner     cdp.BackendNodeID
	ownerQuad []float64
	treeURL   string // what the frame tree says, when not doc.url (it navigated since)
}

// serve scripts a session: frame tree, worlds, the engine, the
// accessibility tree, box models and frame owners.
func (f *fakeTab) serve(t *testing.T, s *cdpfake.Session, tree *page.FrameTree) {
	s.Reply(page.CommandGetFrameTree, page.GetFrameTreeResult{FrameTree: tree})
	cdpfake.HandleParams(s, page.CommandCreateIsolatedWorld, func(_ context.Context, p page.CreateIsolatedWorldParams) (any, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		cid, ok := f.worlds[p.FrameID]
		if !ok {
			return nil, &cdpfake.Error{Method: page.CommandCreateIsolatedWorld, Message: "No frame for given id found"}
		}
		return page.CreateIsolatedWorldResult{ExecutionContextID: cid}, nil
	})
	s.Handle(runtime.CommandEvaluate, func(_ context.Context, raw json.RawMessage) (any, error) {
		var p runtime.EvaluateParams
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("evaluate params: %v", err)
		}
		if strings.HasPrefix(p.Expression, "((a) =>") { // the regular expression check
			var args []json.RawMessage
			json.Unmarshal([]byte(strings.TrimSuffix(p.Expression[strings.LastIndex(p.Expression, ")(")+2:], ")")), &args)
			var names []string
			json.Unmarshal(args[2], &names)
			var src string
			json.Unmarshal(args[0], &src)
			out := make([]bool, len(names))
			for i, n := range names {
				out[i] = strings.Contains(strings.ToLower(n), strings.ToLower(src))
			}
			v, _ := json.Marshal(out)
			return runtime.EvaluateResult{Result: &runtime.RemoteObject{Type: "object", Value: v}}, nil
		}
		// Each world gets its token when it is made; calls are guarded by it.
		if strings.HasPrefix(p.Expression, "globalThis."+worldTokenKey+" = ") {
			f.mu.Lock()
			d := f.docs[p.ContextID]
			f.mu.Unlock()
			if d.url == "" {
				d.url, d.origin = "https://fake.test/", "https://fake.test"
			}
			v, _ := json.Marshal([]any{
				map[string]string{"type": "string", "value": d.url},
				map[string]string{"type": "string", "value": d.origin},
				map[string]any{"type": "node", "value": map[string]any{"loaderId": fmt.Sprintf("fake-loader-%d", p.ContextID)}},
			})
			return runtime.EvaluateResult{Result: &runtime.RemoteObject{Type: "object", Subtype: "array", DeepSerializedValue: &runtime.DeepSerializedValue{Type: "array", Value: v}}}, nil
		}
		expr := p.Expression
		if g := "(globalThis." + worldTokenKey + " !== "; strings.HasPrefix(expr, g) {
			expr = strings.TrimSuffix(expr[strings.Index(expr, " : ")+3:], ")")
		}
		// The engine (and the page module) is loaded once per world: the
		// first call finds none.
		var specJSON string
		call := strings.Split(engine.Expr(aria.InstallNone, json.RawMessage("\x00")), "\x00")
		install := strings.Split(engine.Expr(aria.InstallModule, json.RawMessage("\x00")), "\x00")
		is := func(parts []string) bool {
			return strings.HasPrefix(expr, parts[0]) && strings.HasSuffix(expr, parts[1])
		}
		switch {
		case is(call):
			specJSON = expr[len(call[0]) : len(expr)-len(call[1])]
			f.mu.Lock()
			loaded := f.loaded[p.ContextID]
			f.mu.Unlock()
			if !loaded {
				v, _ := json.Marshal(aria.MissingModule)
				return runtime.EvaluateResult{Result: &runtime.RemoteObject{Type: "string", Value: v}}, nil
			}
		case is(install):
			specJSON = expr[len(install[0]) : len(expr)-len(install[1])]
			f.mu.Lock()
			if _, ok := f.docs[p.ContextID]; ok {
				f.loaded[p.ContextID] = true
			}
			f.mu.Unlock()
		default:
			t.Fatalf("evaluate: not the engine: %.60q", p.Expression)
		}
		var spec jsSpec
		if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
			t.Fatalf("evaluate spec: %v", err)
		}
		f.mu.Lock()
		d, ok := f.docs[p.ContextID]
		f.specs = append(f.specs, spec)
		f.mu.Unlock()
		if !ok {
			return nil, &cdpfake.Error{Method: runtime.CommandEvaluate, Message: "Cannot find context with specified id"}
		}
		obj, err := d.answer(spec)
		if err != nil {
			return nil, err
		}
		return runtime.EvaluateResult{Result: obj}, nil
	})
	cdpfake.HandleParams(s, accessibility.CommandGetPartialAXTree, func(_ context.Context, p accessibility.GetPartialAXTreeParams) (any, error) {
		f.mu.Lock()
		a, ok := f.ax[p.BackendNodeID]
		f.mu.Unlock()
		if !ok {
			return nil, &cdpfake.Error{Method: accessibility.CommandGetPartialAXTree, Message: "No node with given id found"}
		}
		n := &accessibility.Node{NodeID: "1", Ignored: a.ignored, BackendDOMNodeID: p.BackendNodeID,
			Role: &accessibility.Value{Type: "role", Value: jsonv2.Value(quoteJSON(a.role))}}
		if !a.ignored {
			n.Name = &accessibility.Value{Type: "computedString", Value: jsonv2.Value(quoteJSON(a.name))}
		}
		for k, v := range a.props {
			n.Properties = append(n.Properties, &accessibility.Property{Name: accessibility.PropertyName(k), Value: &accessibility.Value{Type: "token", Value: jsonv2.Value(quoteJSON(v))}})
		}
		return accessibility.GetPartialAXTreeResult{Nodes: []*accessibility.Node{n}}, nil
	})
	cdpfake.HandleParams(s, dom.CommandGetBoxModel, func(_ context.Context, p dom.GetBoxModelParams) (any, error) {
		q, ok := f.box(p.BackendNodeID)
		if !ok {
			return nil, &cdpfake.Error{Method: dom.CommandGetBoxModel, Message: "Could not compute box model."}
		}
		return dom.GetBoxModelResult{Model: &dom.BoxModel{Content: q, Border: q, Width: int64(q[2] - q[0]), Height: int64(q[5] - q[1])}}, nil
	})
	cdpfake.HandleParams(s, dom.CommandGetContentQuads, func(_ context.Context, p dom.GetContentQuadsParams) (any, error) {
		q, ok := f.box(p.BackendNodeID)
		if !ok {
			return nil, &cdpfake.Error{Method: dom.CommandGetContentQuads, Message: "Could not compute content quads."}
		}
		return dom.GetContentQuadsResult{Quads: []dom.Quad{q}}, nil
	})
	cdpfake.HandleParams(s, dom.CommandGetFrameOwner, func(_ context.Context, p dom.GetFrameOwnerParams) (any, error) {
		for i := range tree.ChildFrames {
			if c := tree.ChildFrames[i]; c.Frame.ID == p.FrameID {
				return dom.GetFrameOwnerResult{BackendNodeID: cdp.BackendNodeID(100 + i)}, nil
			}
		}
		if p.FrameID == "OOP" { // the out-of-process frame's iframe
			return dom.GetFrameOwnerResult{BackendNodeID: 200}, nil
		}
		return nil, &cdpfake.Error{Method: dom.CommandGetFrameOwner, Message: "Frame with the given id was not found."}
	})
}

// box is the border quad scripted for a node.
func (f *fakeTab) box(id cdp.BackendNodeID) (dom.Quad, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	q, ok := f.boxes[id]
	return q, ok
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func quad(x, y, w, h float64) []float64 { return []float64{x, y, x + w, y, x + w, y + h, x, y + h} }

func ids(n int) []cdp.BackendNodeID {
	out := make([]cdp.BackendNodeID, n)
	for i := range out {
		out[i] = cdp.BackendNodeID(i + 1)
	}
	return out
}

func boxes(n int) []*jsBox {
	out := make([]*jsBox, n)
	for i := range out {
		out[i] = &jsBox{X: float64(10 * (i + 1)), Y: 5, W: 8, H: 8}
	}
	return out
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// wantErr checks an error's kind, cause and message.
func wantErr(t *testing.T, err error, kind Kind, cause error, msg string) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v (%T), want a *resolver.Error", err, err)
	}
	if e.Kind != kind {
		t.Errorf("kind: got %s, want %s (%v)", e.Kind, kind, err)
	}
	if cause != nil && !errors.Is(err, cause) {
		t.Errorf("got %v, want errors.Is %v", err, cause)
	}
	if !strings.Contains(err.Error(), msg) {
		t.Errorf("message: got %q, want it to contain %q", err.Error(), msg)
	}
	return e
}

func TestLocatorErrors(t *testing.T) {
	noBox := fakeDoc{ids: ids(1), boxes: []*jsBox{nil}}
	tests := []struct {
		name   string
		doc    fakeDoc
		target string
		kind   Kind
		cause  error
		msg    string
		count  int
	}{
		{"no match", fakeDoc{}, "#missing", Transient, ErrNotFound, "css=#missing matched 0 elements", 0},
		{"words as css", fakeDoc{}, "Create this page", Transient, ErrNotFound,
			`css=Create this page matched 0 elements; a locator without an engine is CSS: for the text, try text="Create this page"`, 0},
		{"one capitalised word as css", fakeDoc{}, "Save", Transient, ErrNotFound, `for the text, try text="Save"`, 0},
		{"label without a match", fakeDoc{}, "label=Search", Transient, ErrNotFound,
			`label="Search"i matched 0 elements; label= reads a label's text only, not an image's alt or a title in it: a control a snapshot names "Search" is found by role=ROLE[name="Search"]`, 0},
		{"strict", fakeDoc{ids: ids(3), boxes: boxes(3)}, "button", Permanent, ErrAmbiguous,
			"strict mode: css=button matched 3 elements; add nth=… or make it more specific", 3},
		{"nth out of range", fakeDoc{ids: ids(2), boxes: boxes(2)}, "li >> nth=5", Transient, ErrNotFound, "nth=5 is out of range", 2},
		{"stacked nth", fakeDoc{ids: ids(2), boxes: boxes(2)}, "li >> nth=1 >> nth=1", Transient, ErrNotFound, "pick nothing", 0},
		{"no box", noBox, "#hidden", Transient, ErrNoBox, "has no box", 1},
		{"invalid css", fakeDoc{err: "'[' is not a valid selector.", syntax: true}, "[", Permanent, nil, "is not a valid selector", 0},
		{"script error", fakeDoc{err: "boom"}, "#x", Permanent, nil, "boom", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeTab(t, tt.doc)
			_, err := New(f, nil).Center(ctxT(t), tt.target)
			e := wantErr(t, err, tt.kind, tt.cause, tt.msg)
			if e.Count != tt.count {
				t.Errorf("count: got %d, want %d", e.Count, tt.count)
			}
			if e.Target != tt.target {
				t.Errorf("target: got %q, want %q", e.Target, tt.target)
			}
		})
	}
}

func TestOnlyAPlainLabelGetsTheLabelHint(t *testing.T) {
	for _, target := range []string{"label=/Sea/", "label=Search >> nth=0", "text=Search", "#search"} {
		f := newFakeTab(t, fakeDoc{})
		_, err := New(f, nil).Center(ctxT(t), target)
		if err == nil || strings.Contains(err.Error(), "label= reads") {
			t.Errorf("%s: got %v, want not_found without the label hint", target, err)
		}
	}
}

func TestBareWordsGetAHint(t *testing.T) {
	tests := []struct {
		target string
		want   string // "" when no hint
	}{
		{"Create this page", "Create this page"},
		{"  Save  ", "Save"},
		{"Step 2", "Step 2"},
		{"Créer la page", "Créer la page"},
		{"button", ""},
		{"ul li", ""},
		{"create this page", ""},
		{"css=Create this page", ""},
		{"#Save", ""},
		{"div.Save", ""},
		{"text=Save", ""},
		{"Save >> nth=0", ""},
		{strings.Repeat("Word ", 20), ""}, // 100 characters: no hint
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			p, err := parse(tt.target)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := bareWords(p)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, ok, tt.want)
			}
		})
	}
}

func TestInvalidSelectorIsASyntaxError(t *testing.T) {
	f := newFakeTab(t, fakeDoc{err: "bad", syntax: true})
	_, err := New(f, nil).Center(ctxT(t), "a[")
	var se *locator.SyntaxError
	if !errors.As(err, &se) || se.Offset != -1 || se.Input != "a[" {
		t.Fatalf("got %v, want a *locator.SyntaxError without offset", err)
	}
}

func TestParseErrorIsPermanentAndCallsNothing(t *testing.T) {
	f := newFakeTab(t, fakeDoc{})
	_, err := New(f, nil).Center(ctxT(t), `role=button[name="x"`)
	wantErr(t, err, Permanent, nil, "unclosed [ at offset 11")
	var se *locator.SyntaxError
	if !errors.As(err, &se) || se.Offset != 11 {
		t.Errorf("got %v, want a *locator.SyntaxError at offset 11", err)
	}
	if n := len(f.Calls()); n != 0 {
		t.Errorf("calls: got %d, want none", n)
	}
}

func TestEvaluateFailureIsTransient(t *testing.T) {
	f := newFakeTab(t, fakeDoc{})
	f.Fail(runtime.CommandEvaluate, "Target closed")
	_, err := New(f, nil).Center(ctxT(t), "#x")
	wantErr(t, err, Transient, nil, "Target closed")
}

func TestStaleWorldIsRemade(t *testing.T) {
	f := newFakeTab(t, fakeDoc{ids: ids(1), boxes: boxes(1)})
	r := New(f, nil)
	ctx := ctxT(t)
	if _, err := r.Center(ctx, "#x"); err != nil {
		t.Fatal(err)
	}
	// The frame navigates: its old world's context is gone, a new one exists.
	f.mu.Lock()
	f.docs[7] = f.docs[1]
	delete(f.docs, 1)
	f.worlds["MAIN"] = 7
	f.mu.Unlock()
	pt, err := r.Center(ctx, "#x")
	if err != nil {
		t.Fatal(err)
	}
	if pt.X != 10 || pt.Y != 5 {
		t.Errorf("point: got %+v, want (10, 5)", pt)
	}
	if n := f.Count(page.CommandCreateIsolatedWorld); n != 2 {
		t.Errorf("isolated worlds made: got %d, want 2 (one per document)", n)
	}
	if _, err := r.Center(ctx, "#x"); err != nil {
		t.Fatal(err)
	}
	var installs int
	for _, c := range f.Calls() {
		if c.Method == runtime.CommandEvaluate && strings.Contains(string(c.Params), "= ("+quoteJSON(engine.Source())[1:20]) {
			installs++
		}
	}
	if installs != 2 {
		t.Errorf("engine loaded %d times, want 2 (once per document)", installs)
	}
}

func TestPicks(t *testing.T) {
	tests := []struct {
		target string
		want   float64 // X of the picked box
	}{
		{"li >> nth=0", 10},
		{"li >> nth=2", 30},
		{"li >> last", 40},
		{"li >> nth=-1", 40},
		{"li >> nth=1 >> nth=0", 20},
	}
	for _, tt := range tests {
		f := newFakeTab(t, fakeDoc{ids: ids(4), boxes: boxes(4)})
		pt, err := New(f, nil).Center(ctxT(t), tt.target)
		if err != nil {
			t.Errorf("Center(%q): %v", tt.target, err)
			continue
		}
		if pt.X != tt.want {
			t.Errorf("Center(%q): got x %v, want %v", tt.target, pt.X, tt.want)
		}
	}
}

func TestFramesAreOneSequence(t *testing.T) {
	// The main frame has 1 match; an in-process frame whose iframe's
	// content box starts at (100, 200) has 2.
	child := fakeFrame{id: "F1", doc: fakeDoc{ids: []cdp.BackendNodeID{11, 12}, boxes: boxes(2)}, owner: 100, ownerQuad: quad(100, 200, 300, 150)}
	main := fakeDoc{ids: []cdp.BackendNodeID{1}, boxes: boxes(1), frames: 1}
	ctx := ctxT(t)

	f := newFakeTab(t, main, child)
	_, err := New(f, nil).Center(ctx, "button")
	wantErr(t, err, Permanent, ErrAmbiguous, "matched 3 elements")

	f = newFakeTab(t, main, child)
	pt, err := New(f, nil).Center(ctx, "button >> last")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Point{X: 100 + 20, Y: 200 + 5}); pt != want {
		t.Errorf("last: got %+v, want %+v", pt, want)
	}
	f = newFakeTab(t, main, child)
	pt, err = New(f, nil).Center(ctx, "button >> nth=1")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Point{X: 100 + 10, Y: 200 + 5}); pt != want {
		t.Errorf("nth=1: got %+v, want %+v", pt, want)
	}
	f = newFakeTab(t, main, child)
	r := New(f, nil)
	for range 2 { // the first call learns the main frame's ID
		pt, err = r.Center(ctx, "button >> nth=0")
		if err != nil {
			t.Fatal(err)
		}
		if want := (Point{X: 10, Y: 5}); pt != want {
			t.Errorf("nth=0: got %+v, want %+v", pt, want)
		}
	}
	if n := f.Count(page.CommandGetFrameTree); n != 1 {
		t.Errorf("nth=0 in the main frame looked at the frame tree %d times, want once (for the main frame's ID)", n)
	}
	f = newFakeTab(t, main, child)
	n, err := New(f, nil).Count(ctx, "button")
	if err != nil || n != 3 {
		t.Errorf("Count: got %d, %v; want 3", n, err)
	}
	f = newFakeTab(t, main, child)
	f.ax[1] = ax{role: "button", name: "A"}
	f.ax[11] = ax{role: "button", name: "B"}
	f.ax[12] = ax{role: "button", name: "C"}
	all, err := New(f, nil).All(ctx, "button")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range all {
		got = append(got, fmt.Sprintf("%d %s %s %s %v", m.BackendNodeID, m.Role, m.Name, m.FrameID, m.Box))
	}
	want := []string{"1 button A  (10.0, 5.0) 8.0×8.0", "11 button B F1 (110.0, 205.0) 8.0×8.0", "12 button C F1 (120.0, 205.0) 8.0×8.0"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("All:\ngot  %q\nwant %q", got, want)
	}
}

func TestOutOfProcessFrameOffset(t *testing.T) {
	main := fakeDoc{frames: 1}
	f := newFakeTab(t, main)
	f.boxes[200] = quad(40, 60, 200, 100) // the iframe of the out-of-process frame "OOP"
	kid := f.AddChild(cdptab.Child{SessionID: "S1", TargetID: "OOP", Type: "iframe"})
	kidTab := &fakeTab{Session: kid, docs: map[runtime.ExecutionContextID]fakeDoc{3: {ids: []cdp.BackendNodeID{9}, boxes: boxes(1)}},
		worlds: map[cdp.FrameID]runtime.ExecutionContextID{"OOP": 3}, ax: map[cdp.BackendNodeID]ax{}, boxes: map[cdp.BackendNodeID][]float64{9: quad(1, 2, 10, 10)},
		loaded: map[runtime.ExecutionContextID]bool{}}
	kidTab.serve(t, kid, &page.FrameTree{Frame: &cdp.Frame{ID: "OOP"}})
	ctx := ctxT(t)
	pt, err := New(f, nil).Center(ctx, "#x")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Point{X: 40 + 10, Y: 60 + 5, SessionID: "S1"}); pt != want {
		t.Errorf("got %+v, want %+v", pt, want)
	}
	obj, err := New(f, nil).Object(ctx, "#x")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Object{ObjectID: "obj-9", SessionID: "S1"}); obj != want {
		t.Errorf("object: got %+v, want %+v", obj, want)
	}
}

func TestRoleIsCheckedAgainstTheAccessibilityTree(t *testing.T) {
	// The page offers five candidates; Chrome says which are buttons named
	// "Save…".
	doc := fakeDoc{ids: ids(5), boxes: boxes(5)}
	setup := func(t *testing.T) *fakeTab {
		f := newFakeTab(t, doc)
		f.ax[1] = ax{role: "button", name: "Save draft"}
		f.ax[2] = ax{role: "button", name: "Save", ignored: true} // hidden
		f.ax[3] = ax{role: "link", name: "Save"}                  // not a button
		f.ax[4] = ax{role: "button", name: "Cancel"}
		f.ax[5] = ax{role: "button", name: "save  ALL", props: map[string]string{"disabled": "true"}}
		return f
	}
	ctx := ctxT(t)
	tests := []struct {
		target string
		count  int
		x      float64 // of the one match, when count is 1
	}{
		{`role=button[name="save"]`, 2, 0},
		{`role=button[name="Save draft"s]`, 1, 10},
		{`role=button[name="Save"s]`, 0, 0},
		{`role=button[name="save all"]`, 1, 50},
		{`role=button[name="save"][disabled]`, 1, 50},
		{`role=button[name="save"][disabled=false]`, 1, 10},
		{`role=button[name=/ALL/]`, 1, 50},
		{`role=button`, 3, 0},
		{`role=button[include-hidden][name="x"]`, 1, 20}, // an ignored node: the page's test stands
		{`role=link`, 1, 30},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			f := setup(t)
			n, err := New(f, nil).Count(ctx, tt.target)
			if err != nil || n != tt.count {
				t.Errorf("Count: got %d, %v; want %d", n, err, tt.count)
			}
			pt, err := New(setup(t), nil).Center(ctx, tt.target)
			switch tt.count {
			case 0:
				wantErr(t, err, Transient, ErrNotFound, "matched 0 elements")
			case 1:
				if err != nil || pt.X != tt.x {
					t.Errorf("Center: got %+v, %v; want x %v", pt, err, tt.x)
				}
			default:
				wantErr(t, err, Permanent, ErrAmbiguous, fmt.Sprintf("matched %d elements", tt.count))
			}
		})
	}
}

func TestRolePicksCheckOnlyWhatTheyNeed(t *testing.T) {
	doc := fakeDoc{ids: ids(100), boxes: boxes(100)}
	f := newFakeTab(t, doc)
	for i := 1; i <= 100; i++ {
		f.ax[cdp.BackendNodeID(i)] = ax{role: "button", name: fmt.Sprint(i)}
	}
	f.boxes[100] = quad(990, 0, 20, 10) // more candidates than the page measures
	ctx := ctxT(t)
	pt, err := New(f, nil).Center(ctx, "role=button >> last")
	if err != nil || pt.X != 1000 {
		t.Fatalf("last: got %+v, %v", pt, err)
	}
	if n := f.Count(accessibility.CommandGetPartialAXTree); n > 2*parallelCalls {
		t.Errorf("last checked %d candidates, want at most one batch (%d)", n, 2*parallelCalls)
	}
}

func TestStrictRoleWithManyCandidatesStopsAtTwo(t *testing.T) {
	n := verifyAll + 50
	f := newFakeTab(t, fakeDoc{ids: ids(n), boxes: nil})
	for i := 1; i <= n; i++ {
		f.ax[cdp.BackendNodeID(i)] = ax{role: "button"}
	}
	_, err := New(f, nil).Center(ctxT(t), "role=button")
	e := wantErr(t, err, Permanent, ErrAmbiguous, "matched at least ")
	if e.Count < 2 || !strings.Contains(err.Error(), fmt.Sprintf("at least %d elements", e.Count)) {
		t.Errorf("count: got %d in %q, want at least 2, named", e.Count, err)
	}
	if c := f.Count(accessibility.CommandGetPartialAXTree); c >= n {
		t.Errorf("checked %d of %d candidates, want fewer", c, n)
	}
}

func TestRolePicksFetchAWindowFirst(t *testing.T) {
	n := 3 * verifyAll
	setup := func(t *testing.T, buttons ...int) *fakeTab {
		f := newFakeTab(t, fakeDoc{ids: ids(n), boxes: boxes(n)})
		for i := 1; i <= n; i++ {
			f.ax[cdp.BackendNodeID(i)] = ax{role: "link"}
		}
		for _, b := range buttons {
			f.ax[cdp.BackendNodeID(b)] = ax{role: "button"}
			f.boxes[cdp.BackendNodeID(b)] = quad(float64(b), 0, 2, 2)
		}
		return f
	}
	lists := func(f *fakeTab) (windows []string) {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, s := range f.specs {
			if s.Mode == modeList {
				m := "all"
				if s.Max != nil {
					m = fmt.Sprint(*s.Max)
				}
				windows = append(windows, fmt.Sprintf("%d+%s", s.From, m))
			}
		}
		return windows
	}
	ctx := ctxT(t)
	tests := []struct {
		target  string
		buttons []int
		x       float64 // 0: an error
		windows string
	}{
		{"role=button >> nth=0", []int{3, 700}, 4, fmt.Sprintf("[0+%d]", verifyAll)},
		{"role=button >> last", []int{3, 700}, 701, fmt.Sprintf("[-%d+%d]", verifyAll, verifyAll)},
		{"role=button >> last", []int{3}, 4, fmt.Sprintf("[-%d+%d 0+all]", verifyAll, verifyAll)},
		{"role=button", []int{700}, 701, fmt.Sprintf("[0+%d 0+all]", verifyAll)},
		{"role=button", []int{3, 5}, 0, fmt.Sprintf("[0+%d]", verifyAll)},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.target, tt.buttons), func(t *testing.T) {
			f := setup(t, tt.buttons...)
			pt, err := New(f, nil).Center(ctx, tt.target)
			if tt.x == 0 {
				wantErr(t, err, Permanent, ErrAmbiguous, "matched at least 2 elements")
			} else if err != nil || pt.X != tt.x {
				t.Errorf("got %+v, %v; want x %v", pt, err, tt.x)
			}
			if got := fmt.Sprint(lists(f)); got != tt.windows {
				t.Errorf("windows fetched: got %s, want %s", got, tt.windows)
			}
		})
	}
}

func TestRoleMeasuresWithBoxModelWhenThePageDidNot(t *testing.T) {
	n := measureLimit + 1
	f := newFakeTab(t, fakeDoc{ids: ids(n), boxes: boxes(n)})
	for i := 1; i <= n; i++ {
		f.ax[cdp.BackendNodeID(i)] = ax{role: "button", name: fmt.Sprint("b", i)}
	}
	f.boxes[7] = quad(10, 20, 30, 40)
	pt, err := New(f, nil).Center(ctxT(t), `role=button[name="b7"s]`)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Point{X: 25, Y: 40}); pt != want {
		t.Errorf("got %+v, want %+v", pt, want)
	}
}

// fakeRefs is a scripted ref map: one entry, its twins (by default the
// entry alone, removed) and the nodes that have refs.
type fakeRefs struct {
	e      refmap.Entry
	err    error
	twins  []refmap.Entry
	owners map[cdp.BackendNodeID]string
}

func (f fakeRefs) Lookup(context.Context, string) (refmap.Entry, error) { return f.e, f.err }

func (f fakeRefs) Twins(context.Context, refmap.Entry) ([]refmap.Entry, error) {
	if f.twins == nil {
		e := f.e
		e.BackendNodeID = 0
		return []refmap.Entry{e}, nil
	}
	return f.twins, nil
}

func (f fakeRefs) Owner(_ context.Context, _ refmap.Entry, id cdp.BackendNodeID) (bool, string, error) {
	ref, ok := f.owners[id]
	return ok, ref, nil
}

func TestRefs(t *testing.T) {
	entry := refmap.Entry{Ref: "5", BackendNodeID: 42, Role: "button", Name: "Save"}
	ctx := ctxT(t)

	t.Run("box", func(t *testing.T) {
		f := newFakeTab(t, fakeDoc{})
		f.boxes[42] = quad(10, 10, 20, 20)
		pt, err := New(f, fakeRefs{e: entry}).Center(ctx, "@5")
		if err != nil || pt != (Point{X: 20, Y: 20}) {
			t.Fatalf("got %+v, %v; want (20, 20)", pt, err)
		}
	})
	t.Run("out-of-process frame", func(t *testing.T) {
		f := newFakeTab(t, fakeDoc{})
		f.boxes[200] = quad(40, 60, 200, 100)
		kid := f.AddChild(cdptab.Child{SessionID: "S1", TargetID: "OOP", Type: "iframe"})
		kid.Reply(dom.CommandGetBoxModel, dom.GetBoxModelResult{Model: &dom.BoxModel{Border: quad(1, 1, 2, 2)}})
		e := entry
		e.SessionID, e.FrameID = "S1", "OOP"
		pt, err := New(f, fakeRefs{e: e}).Center(ctx, "@5")
		if want := (Point{X: 42, Y: 62, SessionID: "S1"}); err != nil || pt != want {
			t.Fatalf("got %+v, %v; want %+v", pt, err, want)
		}
	})
	t.Run("no refs", func(t *testing.T) {
		_, err := New(newFakeTab(t, fakeDoc{}), nil).Center(ctx, "@5")
		wantErr(t, err, Permanent, ErrNoRefs, "refs are not available")
	})
	t.Run("stale fails closed", func(t *testing.T) {
		f := newFakeTab(t, fakeDoc{ids: ids(1), boxes: boxes(1)})
		f.ax[1] = ax{role: "button", name: "Save"}
		err := fmt.Errorf("%w @5: the page navigated; take a new snapshot", snapshot.ErrStaleRef)
		_, err = New(f, fakeRefs{e: entry, err: err}).Center(ctx, "@5")
		wantErr(t, err, Permanent, ErrStaleRef, "the page navigated")
		if !errors.Is(err, snapshot.ErrStaleRef) {
			t.Errorf("got %v, want errors.Is snapshot.ErrStaleRef", err)
		}
		if n := len(f.Calls()); n != 0 {
			t.Errorf("a stale ref made %d calls, want none (no fallback)", n)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		err := fmt.Errorf("%w @9", snapshot.ErrUnknownRef)
		_, err = New(newFakeTab(t, fakeDoc{}), fakeRefs{err: err}).Center(ctx, "@9")
		wantErr(t, err, Permanent, snapshot.ErrUnknownRef, "@9")
	})
	t.Run("lookup fails", func(t *testing.T) {
		_, err := New(newFakeTab(t, fakeDoc{}), fakeRefs{err: errors.New("lazy snapshot: boom")}).Center(ctx, "@5")
		wantErr(t, err, Transient, nil, "boom")
	})
	t.Run("no box and still there: no fallback", func(t *testing.T) {
		f := newFakeTab(t, fakeDoc{ids: ids(1), boxes: boxes(1)})
		f.ax[1] = ax{role: "button", name: "Save"}
		f.Reply(dom.CommandResolveNode, dom.ResolveNodeResult{Object: &runtime.RemoteObject{ObjectID: "o"}})
		f.Reply(runtime.CommandCallFunctionOn, runtime.CallFunctionOnResult{Result: &runtime.RemoteObject{Type: "boolean", Value: jsonv2.Value("true")}})
		f.Reply(runtime.CommandReleaseObject, nil)
		_, err := New(f, fakeRefs{e: entry}).Center(ctx, "@5")
		wantErr(t, err, Transient, ErrNoBox, "ref @5 (button \"Save\") has no box")
		if n := f.Count(runtime.CommandEvaluate); n != 0 {
			t.Errorf("fell back (%d evaluations), want no fallback", n)
		}
	})
	fallbackWith := func(t *testing.T, matches int, refs fakeRefs) (*fakeTab, Point, error) {
		f := newFakeTab(t, fakeDoc{ids: ids(matches), boxes: boxes(matches)})
		for i := 1; i <= matches; i++ {
			f.ax[cdp.BackendNodeID(i)] = ax{role: "button", name: "Save"}
		}
		refs.err = fmt.Errorf("ref @5: %w", snapshot.ErrGone)
		pt, err := New(f, refs).Center(ctx, "@5")
		return f, pt, err
	}
	fallback := func(t *testing.T, matches int, gone string) (*fakeTab, Point, error) {
		f := newFakeTab(t, fakeDoc{ids: ids(matches), boxes: boxes(matches)})
		for i := 1; i <= matches; i++ {
			f.ax[cdp.BackendNodeID(i)] = ax{role: "button", name: "Save"}
		}
		var refs fakeRefs
		switch gone {
		case "removed": // the snapshot saw it disconnected
			refs = fakeRefs{e: entry, err: fmt.Errorf("ref @5: %w", snapshot.ErrGone)}
		case "collected": // the node does not exist any more
			refs = fakeRefs{e: entry}
			f.Fail(dom.CommandResolveNode, "No node with given id found")
		case "detached": // it exists but is out of the document
			refs = fakeRefs{e: entry}
			f.Reply(dom.CommandResolveNode, dom.ResolveNodeResult{Object: &runtime.RemoteObject{ObjectID: "o"}})
			f.Reply(runtime.CommandCallFunctionOn, runtime.CallFunctionOnResult{Result: &runtime.RemoteObject{Type: "boolean", Value: jsonv2.Value("false")}})
			f.Reply(runtime.CommandReleaseObject, nil)
		}
		pt, err := New(f, refs).Center(ctx, "@5")
		return f, pt, err
	}
	for _, gone := range []string{"removed", "collected", "detached"} {
		t.Run("fallback "+gone+" unique", func(t *testing.T) {
			f, pt, err := fallback(t, 1, gone)
			if err != nil || pt != (Point{X: 10, Y: 5}) {
				t.Fatalf("got %+v, %v; want the clone at (10, 5)", pt, err)
			}
			f.mu.Lock()
			spec := f.specs[len(f.specs)-1]
			f.mu.Unlock()
			if r := spec.Steps[0].Role; r == nil || r.Role != "button" || r.Name == nil || r.Name.V != "Save" || !r.Name.Exact {
				t.Errorf("fallback query: got %+v, want role button, exact name Save", spec.Steps[0])
			}
		})
	}
	t.Run("fallback: more look-alikes than the snapshot had", func(t *testing.T) {
		_, _, err := fallback(t, 2, "removed")
		wantErr(t, err, Permanent, ErrStaleRef, "stale ref @5: the element was removed, and 2 elements now have its role button and name \"Save\" where the snapshot had 1; not guessing")
	})
	t.Run("fallback: many look-alikes are not all checked", func(t *testing.T) {
		f, _, err := fallbackWith(t, 100, fakeRefs{e: entry})
		wantErr(t, err, Permanent, ErrStaleRef, fmt.Sprintf("at least %d elements now have its role button and name \"Save\" where the snapshot had 1", 2*parallelCalls))
		if n := f.Count(accessibility.CommandGetPartialAXTree); n > 2*parallelCalls {
			t.Errorf("checked %d candidates with the accessibility tree, want at most %d", n, 2*parallelCalls)
		}
	})
	twin := func(ref string, nth int, id cdp.BackendNodeID) refmap.Entry {
		return refmap.Entry{Ref: ref, Role: "button", Name: "Save", Nth: nth, BackendNodeID: id}
	}
	t.Run("fallback: a removed twin", func(t *testing.T) {
		// @4 is node 1, still there; @5 was the second: one look-alike left.
		_, _, err := fallbackWith(t, 1, fakeRefs{e: entry, twins: []refmap.Entry{twin("4", 0, 1), twin("5", 1, 0)}, owners: map[cdp.BackendNodeID]string{1: "4"}})
		wantErr(t, err, Permanent, ErrStaleRef, "1 element now has its role button and name \"Save\" where the snapshot had 2")
	})
	t.Run("fallback: in its place among twins", func(t *testing.T) {
		// @4 (node 1) and @6 (node 3) are where they were; node 2 took @5's place.
		_, pt, err := fallbackWith(t, 3, fakeRefs{e: entry, twins: []refmap.Entry{twin("4", 0, 1), twin("5", 1, 0), twin("6", 2, 3)}, owners: map[cdp.BackendNodeID]string{1: "4", 3: "6"}})
		if want := (Point{X: 20, Y: 5}); err != nil || pt != want {
			t.Fatalf("got %+v, %v; want node 2 at %+v", pt, err, want)
		}
	})
	t.Run("fallback: the twins moved", func(t *testing.T) {
		// @4 is node 2 now, in @5's place.
		_, _, err := fallbackWith(t, 2, fakeRefs{e: entry, twins: []refmap.Entry{twin("5", 0, 0), twin("4", 1, 1)}, owners: map[cdp.BackendNodeID]string{1: "4"}})
		wantErr(t, err, Permanent, ErrStaleRef, "@4, another element with its role button and name \"Save\", is not where the snapshot saw it")
	})
	t.Run("fallback: a twin rendered again too", func(t *testing.T) {
		_, _, err := fallbackWith(t, 2, fakeRefs{e: entry, twins: []refmap.Entry{twin("5", 0, 0), twin("4", 1, 0)}})
		wantErr(t, err, Permanent, ErrStaleRef, "@4, another element")
	})
	t.Run("fallback: the one in its place has a ref", func(t *testing.T) {
		_, _, err := fallbackWith(t, 1, fakeRefs{e: entry, owners: map[cdp.BackendNodeID]string{1: "9"}})
		wantErr(t, err, Permanent, ErrStaleRef, "the element in its place is @9")
	})
	t.Run("fallback: the one in its place had a ref", func(t *testing.T) {
		_, _, err := fallbackWith(t, 1, fakeRefs{e: entry, owners: map[cdp.BackendNodeID]string{1: ""}})
		wantErr(t, err, Permanent, ErrStaleRef, "had a ref of its own in an earlier snapshot")
	})
	t.Run("fallback none", func(t *testing.T) {
		_, _, err := fallback(t, 0, "collected")
		wantErr(t, err, Transient, ErrNotFound, "no element has its role button")
	})
	t.Run("object", func(t *testing.T) {
		f := newFakeTab(t, fakeDoc{})
		f.Reply(dom.CommandResolveNode, dom.ResolveNodeResult{Object: &runtime.RemoteObject{ObjectID: "obj-42"}})
		f.Reply(runtime.CommandCallFunctionOn, runtime.CallFunctionOnResult{Result: &runtime.RemoteObject{Type: "boolean", Value: jsonv2.Value("true")}})
		obj, err := New(f, fakeRefs{e: entry}).Object(ctx, "@5")
		if err != nil || obj.ObjectID != "obj-42" {
			t.Fatalf("got %+v, %v", obj, err)
		}
		var p dom.ResolveNodeParams
		for _, c := range f.Calls() {
			if c.Method == dom.CommandResolveNode {
				json.Unmarshal(c.Params, &p)
			}
		}
		if p.ExecutionContextID != 1 {
			t.Errorf("resolveNode in context %d, want egohost's world (1)", p.ExecutionContextID)
		}
	})
}

func TestWait(t *testing.T) {
	notYet := &Error{Kind: Transient, Op: "resolve", Target: "#x", Err: causef(ErrNotFound, "css=#x matched 0 elements")}
	t.Run("retries transient errors", func(t *testing.T) {
		calls := 0
		v, err := Wait(ctxT(t), func(context.Context) (int, error) {
			calls++
			if calls < 3 {
				return 0, notYet
			}
			return 7, nil
		})
		if err != nil || v != 7 || calls != 3 {
			t.Fatalf("got %d, %v after %d calls; want 7 after 3", v, err, calls)
		}
	})
	t.Run("stops at a permanent error", func(t *testing.T) {
		calls := 0
		perm := &Error{Kind: Permanent, Op: "resolve", Err: ErrAmbiguous}
		_, err := Wait(ctxT(t), func(context.Context) (int, error) {
			calls++
			return 0, perm
		})
		if err != perm || calls != 1 {
			t.Fatalf("got %v after %d calls; want the permanent error after 1", err, calls)
		}
	})
	t.Run("timeout carries the last cause", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		defer cancel()
		_, err := Wait(ctx, func(context.Context) (int, error) { return 0, notYet })
		e := wantErr(t, err, Permanent, ErrNotFound, "matched 0 elements")
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want errors.Is context.DeadlineExceeded", err)
		}
		if e.Op != "wait" || e.Target != "#x" {
			t.Errorf("got op %q target %q, want wait #x", e.Op, e.Target)
		}
	})
}

func TestChromeSays(t *testing.T) {
	gone := &cdpfake.Error{Method: "DOM.resolveNode", Message: "No node with given id found"}
	if !cdperr.NodeGone(gone) || cdperr.ContextGone(gone) || cdperr.NodeGone(nil) {
		t.Error("cdperr: wrong classification of Chrome's messages")
	}
	if !cdperr.ContextGone(fmt.Errorf("evaluate: %w", &cdpfake.Error{Message: "Cannot find context with specified id"})) {
		t.Error("cdperr: context gone not recognised through wrapping")
	}
}

// A Resolver Within a reach never searches a frame the reach refuses,
// whether the frame tree says so or the document itself does (the frame
// navigated after the tree was read), and a refused main document or a
// ref into a refused frame is a WithheldError.
func TestWithinLeavesOutRefusedFrames(t *testing.T) {
	ctx := ctxT(t)
	fine := fakeDoc{ids: []cdp.BackendNodeID{1}, boxes: boxes(1), frames: 2, url: "https://fine.test/", origin: "https://fine.test"}
	bank := fakeFrame{id: "F1", doc: fakeDoc{ids: []cdp.BackendNodeID{11, 12}, boxes: boxes(2), url: "https://bank.test/", origin: "https://bank.test"}, owner: 100, ownerQuad: quad(100, 200, 300, 150)}
	moved := fakeFrame{id: "F2", doc: fakeDoc{ids: []cdp.BackendNodeID{21}, boxes: boxes(1), url: "https://bank.test/x", origin: "https://bank.test"}, owner: 101, ownerQuad: quad(0, 400, 300, 150), treeURL: "https://fine.test/frame"}
	reach := func(url, origin string) (bool, string) {
		if strings.Contains(url, "bank.test") || strings.Contains(origin, "bank.test") {
			return false, "deny bank.test"
		}
		return true, ""
	}
	f := newFakeTab(t, fine, bank, moved)
	r := New(f, nil).Within(reach)
	if n, err := r.Count(ctx, "button"); err != nil || n != 1 {
		t.Errorf("Count: got %d, %v; want 1 (the main frame's only)", n, err)
	}
	if pt, err := r.Center(ctx, "button"); err != nil || pt != (Point{X: 10, Y: 5}) {
		t.Errorf("Center: got %+v, %v; want the main frame's one button, not ambiguous", pt, err)
	}
	_, err := r.Center(ctx, "button >> nth=1")
	wantErr(t, err, Transient, ErrNotFound, "")
	f.ax[1] = ax{role: "button", name: "A"}
	all, err := r.All(ctx, "button")
	if err != nil || len(all) != 1 || all[0].BackendNodeID != 1 {
		t.Errorf("All: got %+v, %v; want the main frame's button only", all, err)
	}
	// Unrestricted, the same tab has four.
	if n, err := New(f, nil).Count(ctx, "button"); err != nil || n != 4 {
		t.Errorf("Count without a reach: got %d, %v; want 4", n, err)
	}

	denied := fine
	denied.url, denied.origin = "https://bank.test/", "https://bank.test"
	f = newFakeTab(t, denied)
	_, err = New(f, nil).Within(reach).Center(ctx, "button")
	var we *cdptab.WithheldError
	if !errors.As(err, &we) || we.Frame || IsTransient(err) {
		t.Errorf("main document refused: got %v, want a permanent *cdptab.WithheldError of the main frame", err)
	}
}

// Prepare reads the frame tree first, as every resolution does: it makes
// no world in a main document the reach refuses (a redirect, a page that
// moved on to a denied origin), and one in a document it may reach.
func TestPrepareMakesNoWorldWhereItMayNotReach(t *testing.T) {
	ctx := ctxT(t)
	reach := func(url, origin string) (bool, string) {
		if strings.Contains(url, "bank.test") || strings.Contains(origin, "bank.test") {
			return false, "deny bank.test"
		}
		return true, ""
	}
	denied := fakeDoc{ids: []cdp.BackendNodeID{1}, boxes: boxes(1), url: "https://bank.test/", origin: "https://bank.test"}
	f := newFakeTab(t, denied)
	err := New(f, nil).Within(reach).Prepare(ctx)
	var we *cdptab.WithheldError
	if !errors.As(err, &we) {
		t.Errorf("Prepare on a refused document: got %v, want a *cdptab.WithheldError", err)
	}
	if n := f.Count(page.CommandCreateIsolatedWorld); n != 0 {
		t.Errorf("Prepare made %d worlds in a document it may not reach", n)
	}
	fine := fakeDoc{ids: []cdp.BackendNodeID{1}, boxes: boxes(1), url: "https://fine.test/", origin: "https://fine.test"}
	f = newFakeTab(t, fine)
	if err := New(f, nil).Within(reach).Prepare(ctx); err != nil {
		t.Fatalf("Prepare on a document it may reach: %v", err)
	}
	if n := f.Count(page.CommandCreateIsolatedWorld); n != 1 {
		t.Errorf("Prepare made %d worlds, want 1", n)
	}
}

// Without a reach, Prepare reads no frame tree once the tab's main frame is
// known (the renderer answers it only between a loading page's tasks);
// with one it reads it every time, to judge the document first.
func TestPrepareWithoutAReachReadsNoFrameTree(t *testing.T) {
	ctx := ctxT(t)
	f := newFakeTab(t, fakeDoc{ids: ids(1), boxes: boxes(1)})
	r := New(f, nil)
	for i := range 3 {
		if err := r.Prepare(ctx); err != nil {
			t.Fatal(err)
		}
		if want, n := min(i+1, 1), f.Count(page.CommandGetFrameTree); n != want {
			t.Errorf("after %d Prepares: %d frame trees read, want %d", i+1, n, want)
		}
	}
	if n := f.Count(page.CommandCreateIsolatedWorld); n != 3 {
		t.Errorf("worlds made: got %d, want one per Prepare (each is a new document's)", n)
	}
	everything := func(url, origin string) (bool, string) { return true, "" }
	f = newFakeTab(t, fakeDoc{ids: ids(1), boxes: boxes(1)})
	r = New(f, nil).Within(everything)
	for range 2 {
		if err := r.Prepare(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.Count(page.CommandGetFrameTree); n != 2 {
		t.Errorf("with a reach: %d frame trees read for 2 Prepares, want 2", n)
	}
}

// A world a preparation begins is made and gets its token even when the
// preparation is stopped while Chrome makes it (a snapshot stops it): the
// next call finds it and makes no other. A preparation stopped before
// makes none, and any other call's world ends with the call.
func TestAPreparationsWorldOutlivesItsStop(t *testing.T) {
	f := newFakeTab(t, fakeDoc{ids: ids(1), boxes: boxes(1)})
	r := New(f, nil)
	gone, cancel := context.WithCancel(ctxT(t))
	cancel()
	if err := r.Prepare(gone); !errors.Is(err, context.Canceled) {
		t.Fatalf("a preparation stopped before: got %v, want context.Canceled", err)
	}
	if n := f.Count(page.CommandCreateIsolatedWorld); n != 0 {
		t.Errorf("a preparation stopped before made %d worlds, want 0", n)
	}
	stopWhileMaking := func() context.Context {
		ctx, cancel := context.WithCancel(ctxT(t))
		cdpfake.HandleParams(f.Session, page.CommandCreateIsolatedWorld, func(wctx context.Context, p page.CreateIsolatedWorldParams) (any, error) {
			cancel() // stopped while Chrome makes the world
			if wctx.Err() != nil {
				return nil, wctx.Err()
			}
			return page.CreateIsolatedWorldResult{ExecutionContextID: 1}, nil
		})
		return ctx
	}
	// Another call's world ends with it.
	if _, err := r.Center(stopWhileMaking(), "#x"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a call that gave up: got %v, want context.Canceled", err)
	}
	if err := r.Prepare(stopWhileMaking()); !errors.Is(err, context.Canceled) {
		t.Fatalf("the stopped preparation: got %v, want context.Canceled", err)
	}
	before := f.Count(page.CommandCreateIsolatedWorld)
	if _, err := r.Center(ctxT(t), "#x"); err != nil {
		t.Fatal(err)
	}
	if n := f.Count(page.CommandCreateIsolatedWorld) - before; n != 0 {
		t.Errorf("after the stopped preparation, the next call made %d worlds, want 0 (the preparation's)", n)
	}
}
