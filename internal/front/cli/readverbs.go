package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/egohost/egohost/protocol"
)

// readVerbs are `get …` and `is …`: one value of the page or of one
// element, as agent-browser's verbs of those names, each one call of a
// method the service has (eval with a target, inspect, resolve). --json
// prints the value in a small object; without it, the bare value.
func readVerbs() map[string]verb {
	v := map[string]verb{
		"get text":  evalGet("text TARGET", "the element's text as it is rendered (innerText)", "text", "(el) => el.innerText ?? el.textContent", true),
		"get html":  evalGet("html TARGET", "the element's inner HTML", "html", "(el) => el.innerHTML", true),
		"get url":   evalGet("url", "the page's URL", "url", "location.href", false),
		"get title": evalGet("title", "the page's title", "title", "document.title", false),
		"get value": {
			use: "value TARGET", short: "the value of an input, textarea, select or contenteditable (a password's as dots)",
			example: "  egohost get value label=Email",
			args:    nArgs(1, 1), method: protocol.MethodInspect, flags: noFlags(inspectParams),
			finish: finishAs(func(_ any, r protocol.InspectResult) (any, error) {
				if r.Value == nil {
					return nil, fmt.Errorf("get value: %s holds no value (inputs, textareas, selects and contenteditable elements do)", r.Element)
				}
				return struct {
					Tab     int    `json:"tab"`
					Element string `json:"element"`
					Value   string `json:"value"`
				}{r.Tab, r.Element, *r.Value}, nil
			}),
			human: printField("value"),
		},
		"get attr": {
			use: "attr TARGET NAME", short: "an attribute of the element (nothing when it has none; --json: null)",
			example: "  egohost get attr 'role=link[name=\"Docs\"]' href",
			args:    nArgs(2, 2), method: protocol.MethodEval,
			flags: noFlags(func(c common, args []string) (any, error) {
				name, _ := json.Marshal(args[1]) // a JSON string is a JavaScript string literal
				return attrParams{protocol.EvalParams{Target: c.Target, Element: args[0], Expression: "(el) => el.getAttribute(" + string(name) + ")", TimeoutMs: c.timeoutMs()}, args[1]}, nil
			}),
			finish: func(_ *env, params any, raw json.RawMessage) (json.RawMessage, error) {
				r, err := evalValue(raw)
				if err != nil {
					return nil, err
				}
				return json.Marshal(struct {
					Tab   int             `json:"tab"`
					Name  string          `json:"name"`
					Value json.RawMessage `json:"value"`
				}{r.Tab, params.(attrParams).name, r.Value})
			},
			human: printField("value"),
		},
		"get count": {
			use: "count TARGET", short: "how many elements TARGET matches now (0 too: it does not wait)",
			example: "  egohost get count 'role=listitem'",
			args:    nArgs(1, 1), method: protocol.MethodResolve,
			flags: noFlags(func(c common, args []string) (any, error) {
				return protocol.ResolveParams{Target: c.Target, Element: args[0], Mode: protocol.ResolveMatches}, nil
			}),
			finish: finishAs(func(_ any, r protocol.ResolveResult) (any, error) {
				return struct {
					Count int `json:"count"`
				}{r.Count}, nil
			}),
			human: printField("count"),
		},
		"get box": {
			use: "box TARGET", short: "the element's box in CSS pixels: x y (its centre, as resolve gives it) width height",
			example: "  egohost get box @12",
			args:    nArgs(1, 1), method: protocol.MethodResolve,
			flags: noFlags(func(c common, args []string) (any, error) {
				return protocol.ResolveParams{Target: c.Target, Element: args[0], Mode: protocol.ResolveMatches, Wait: true, TimeoutMs: c.timeoutMs()}, nil
			}),
			finish: finishAs(func(params any, r protocol.ResolveResult) (any, error) {
				target := params.(protocol.ResolveParams).Element
				switch {
				case r.Count > 1:
					return nil, protocol.Errorf(protocol.CodeAmbiguous, "get box: %s matches %d elements: name one (>> nth=0, or a @ref from a snapshot)", target, r.Count).With("count", r.Count)
				case len(r.Matches) == 0:
					return nil, protocol.Errorf(protocol.CodeNotFound, "get box: nothing matches %s", target)
				case r.Matches[0].Box == nil:
					return nil, fmt.Errorf("get box: %s is not rendered (it has no box)", target)
				}
				return r.Matches[0].Box, nil
			}),
			human: printAs(func(w io.Writer, b protocol.Box) error {
				_, err := fmt.Fprintf(w, "%g %g %g %g\n", b.X, b.Y, b.Width, b.Height)
				return err
			}),
		},
	}
	for _, state := range []string{"visible", "enabled", "checked"} {
		short := map[string]string{
			"visible": "is the element visible (true or false; one that is not there is not visible, at once)",
			"enabled": "is the element enabled (true or false)",
			"checked": "is the checkbox, radio button or switch checked (true or false)",
		}[state]
		v["is "+state] = verb{
			use: state + " TARGET", short: short, example: "  egohost is " + state + " @12",
			args: nArgs(1, 1), method: protocol.MethodInspect, flags: noFlags(inspectParams),
			// An element that is not there is not visible: asked at once, as
			// Playwright's isVisible does, instead of waiting for it.
			first: isVisibleFirst(state),
			finish: finishAs(func(_ any, r protocol.InspectResult) (any, error) {
				var is bool
				switch state {
				case "visible":
					is = r.Visible
				case "enabled":
					is = r.Enabled
				case "checked":
					if r.Checked == nil {
						return nil, fmt.Errorf("is checked: %s is not a checkbox, radio button or switch", r.Element)
					}
					is = *r.Checked
				}
				return map[string]any{"tab": r.Tab, "element": r.Element, state: is}, nil
			}),
			human: printField(state),
		}
	}
	return v
}

// finishAs is a verb's finish step that reads the answer as an R and
// answers what f makes of it (as JSON).
func finishAs[R any](f func(params any, r R) (any, error)) func(*env, any, json.RawMessage) (json.RawMessage, error) {
	return func(_ *env, params any, raw json.RawMessage) (json.RawMessage, error) {
		var r R
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, err
		}
		out, err := f(params, r)
		if err != nil {
			return nil, err
		}
		return json.Marshal(out)
	}
}

// inspectParams are the params of inspect for a verb's one TARGET.
func inspectParams(c common, args []string) (any, error) {
	return protocol.InspectParams{Target: c.Target, Element: args[0], TimeoutMs: c.timeoutMs()}, nil
}

// isVisibleFirst is `is visible`'s first call: resolve, without waiting;
// when nothing matches, its answer is false and inspect is not called.
func isVisibleFirst(state string) func(params any) (string, any, func(json.RawMessage) (json.RawMessage, bool)) {
	if state != "visible" {
		return nil
	}
	return func(params any) (string, any, func(json.RawMessage) (json.RawMessage, bool)) {
		p := params.(protocol.InspectParams)
		rp := protocol.ResolveParams{Target: p.Target, Element: p.Element, Mode: protocol.ResolveMatches}
		return protocol.MethodResolve, rp, func(raw json.RawMessage) (json.RawMessage, bool) {
			var r protocol.ResolveResult
			if json.Unmarshal(raw, &r) != nil || r.Count > 0 {
				return nil, false
			}
			out, _ := json.Marshal(map[string]any{"element": p.Element, "visible": false})
			return out, true
		}
	}
}

// evalGet is a `get` verb that evaluates expr in the page: a function of
// the element when the verb takes a TARGET.
func evalGet(use, short, field, expr string, element bool) verb {
	n := 0
	if element {
		n = 1
	}
	example := "  egohost get " + field
	if element {
		example += " @12"
	}
	return verb{
		use: use, short: short, example: example,
		args: nArgs(n, n), method: protocol.MethodEval,
		flags: noFlags(func(c common, args []string) (any, error) {
			p := protocol.EvalParams{Target: c.Target, Expression: expr, TimeoutMs: c.timeoutMs()}
			if element {
				p.Element = args[0]
			}
			return p, nil
		}),
		finish: func(_ *env, _ any, raw json.RawMessage) (json.RawMessage, error) {
			r, err := evalValue(raw)
			if err != nil {
				return nil, err
			}
			return json.Marshal(map[string]any{"tab": r.Tab, field: r.Value})
		},
		human: printField(field),
	}
}

// evalResult is eval's answer with its value kept as JSON.
type evalResult struct {
	Tab    int              `json:"tab"`
	Value  json.RawMessage  `json:"value"`
	Dialog *protocol.Dialog `json:"dialog"`
}

// evalValue reads eval's answer; a dialog that opened instead is an error
// (answer it with `egohost dialog`).
func evalValue(raw json.RawMessage) (evalResult, error) {
	var r evalResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, err
	}
	if r.Dialog != nil {
		return r, errors.New("a JavaScript dialog opened instead (" + r.Dialog.Type + ": " + clip(r.Dialog.Message, 80) + "); answer it with `egohost dialog accept|dismiss`")
	}
	if len(r.Value) == 0 {
		r.Value = json.RawMessage("null")
	}
	return r, nil
}

// printField prints one field of a `get`/`is` answer bare: a string as it
// is, anything else as JSON; null as nothing.
func printField(field string) func(w io.Writer, raw json.RawMessage) error {
	return func(w io.Writer, raw json.RawMessage) error {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		val := m[field]
		if len(val) == 0 || string(val) == "null" {
			return nil
		}
		var s string
		if json.Unmarshal(val, &s) == nil {
			_, err := fmt.Fprintln(w, s)
			return err
		}
		_, err := fmt.Fprintf(w, "%s\n", val)
		return err
	}
}

// attrParams are get attr's eval params, sent as they are, with the
// attribute's name kept for the answer.
type attrParams struct {
	protocol.EvalParams
	name string
}
