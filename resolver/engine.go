package resolver

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/engine/cdperr"
	"github.com/egohost/egohost/internal/engine/locator"
	"github.com/egohost/egohost/internal/link/cdptab"
)

//go:embed engine.js
var engineJS string

// engine is engine.js, kept in egohost's world of a frame, so it crosses
// chrome.debugger and is compiled once per document, not on every call.
var engine = aria.Keep(aria.Compact(engineJS))

// mode is what the page script returns.
type mode string

const (
	modeCount  mode = "count"
	modeCenter mode = "center"
	modeObject mode = "object"
	modeList   mode = "list"
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
		// Names: list mode also returns each match's name as the page
		// computes it (names), for a checked role step with a name: "row"
		// names rows from their content when they have no other (Chrome
		// names only a grid's rows; Playwright every row), "name" is the
		// page module's name. The check takes it where Chrome's differs
		// by rule (pageName).
		Names string `json:"names,omitempty"`
		// Roles: list mode also returns each match's role as the page
		// module computes it (roles), for a checked role step whose role
		// Chrome drops outside its required context (contextRoles).
		Roles bool `json:"roles,omitempty"`

		// call, in object mode, runs a function on the element found in
		// the same evaluation (ObjectCall).
		call *jsCall
		// install is what the first evaluation sends (Prepare: the
		// module and the engine at once, the document being new).
		install aria.Install
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
		Names  []string `json:"names"`
		Roles  []string `json:"roles"`
		Error  string   `json:"error"`
		Syntax bool     `json:"syntax"`

		object runtime.RemoteObjectID // modeObject: the element
		boxed  bool                   // object is [call's envelope, element]
		called cdptab.Called          // the call's outcome, when boxed
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

// wrongWorld is what the page script answers in a context that is not
// egohost's world.
const wrongWorld = "egohost:wrong-world"

func isString(o *runtime.RemoteObject, want string) bool {
	s, ok := aria.StringOf(o)
	return ok && s == want
}

// eval runs the page script in one document.
func (r *Resolver) eval(ctx context.Context, d *doc, spec jsSpec) (jsResult, error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return jsResult{}, fmt.Errorf("encode spec: %w", err)
	}
	yes := true
	var res runtime.EvaluateResult
	remade, fresh := false, false
	in, inCall := spec.install, aria.InstallNone
	var w worldRef
	for attempt := 0; ; attempt++ {
		w, err = r.worldRef(ctx, d, fresh)
		if err != nil {
			return jsResult{}, err
		}
		in = max(in, r.engineInstall(w)) // a world made anew has nothing
		if spec.call != nil && attempt == 0 {
			inCall = r.installOf(w, spec.call.f)
		}
		if err := r.reachable(d, w); err != nil {
			return jsResult{}, err
		}
		fresh = false
		// Only in egohost's own world (its token): a remembered context ID
		// may name another context after a cross-site navigation.
		expr := guarded(w.token, engine.Expr(in, b))
		params := runtime.EvaluateParams{Expression: expr, ContextID: w.cid, Silent: &yes}
		switch {
		case spec.Mode == modeObject && spec.call != nil:
			// One result for two things: [the call's envelope, the
			// element], with the array's object ID (the boxed element).
			params.Expression = spec.call.around(expr, inCall)
			params.AwaitPromise = &yes
			params.SerializationOptions = cdptab.DeepNodes()
		case spec.Mode == modeCount, spec.Mode == modeCenter:
			params.ReturnByValue = &yes
		case spec.Mode == modeList:
			params.SerializationOptions = cdptab.DeepNodes()
		}
		if in > aria.InstallNone && ctx.Err() == nil {
			// On its way: a world runs its evaluations in the order they
			// came, so one sent after this finds the module and the engine
			// there (a snapshot's walk, when a snapshot stops the
			// preparation that sends this). Not when ctx has ended: the
			// call would not go out (a preparation stopped before it).
			r.sentTo(w, engine)
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
		if next, again := engine.Again(in, res.Result); again && attempt < 3 {
			in = next // a new document: load the page module and the engine
			continue
		}
		if spec.call != nil && attempt < 3 {
			if next, again := spec.call.f.Again(inCall, res.Result); again {
				inCall = next // a new document, or a new function: load it
				continue
			}
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
		if res.Result.Subtype == "array" && res.Result.ObjectID != "" {
			out.called, err = decodeBoxed(res.Result.DeepSerializedValue)
			if err != nil {
				return jsResult{}, fmt.Errorf("evaluate: decode %s result: %w", spec.Mode, err)
			}
			out.object, out.boxed = res.Result.ObjectID, true
			if spec.call != nil {
				r.sentTo(w, spec.call.f)
			}
			return out, nil
		}
		s, ok := aria.StringOf(res.Result)
		if !ok {
			err = errors.New("neither an element nor a string")
		} else {
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

// deepItem is one value of a deep-serialized array: its type ("string",
// "node", …) and its value as JSON.
type deepItem struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

// deepItems reads the values of a deep-serialized array.
func deepItems(v *runtime.DeepSerializedValue) ([]deepItem, error) {
	if v == nil {
		return nil, errors.New("no deep value")
	}
	var items []deepItem
	if err := json.Unmarshal(v.Value, &items); err != nil {
		return nil, err
	}
	return items, nil
}

// decodeList reads [JSON string, node, node, …].
func decodeList(v *runtime.DeepSerializedValue) (jsResult, error) {
	items, err := deepItems(v)
	if err != nil {
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
