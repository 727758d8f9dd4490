package actions_test

import (
	"errors"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
)

const inspectPage = `<style>body{height:4000px}</style>
<label>Name <input id=name value=Ada></label>
<input type=password id=pw value=hunter2>
<label><input type=checkbox id=box checked> Terms</label>
<div role=switch id=sw aria-checked=false>Dark</div>
<select id=color><option value=r>Red<option value=g selected>Green</select>
<button id=off disabled>Off</button>
<p id=hid style="visibility:hidden">hidden</p>
<div id=plain>plain</div>
<input id=far style="margin-top:3000px">
<script>window.appName = "shop";</script>`

// Inspect reads an element's state and changes nothing: a label stands
// for its control, a password reads as dots, an element that is not a
// field has no value, and the page does not scroll.
func TestInspect(t *testing.T) {
	tb := open(t, map[string]string{"/": html(inspectPage)}, "/")
	str := func(s string) *string { return &s }
	yes, no := true, false
	tests := []struct {
		target string
		want   actions.State
	}{
		{"label=Name", actions.State{Element: `<input id="name">`, Visible: true, Enabled: true, Value: str("Ada")}},
		{"#pw", actions.State{Element: `<input id="pw" type="password">`, Visible: true, Enabled: true, Value: str("•••••••")}},
		{"text=Terms", actions.State{Element: `<input id="box" type="checkbox">`, Visible: true, Enabled: true, Checked: &yes, Value: str("on")}},
		{"#sw", actions.State{Element: `<div id="sw" role="switch">Dark</div>`, Visible: true, Enabled: true, Checked: &no}},
		{"#color", actions.State{Element: `<select id="color">Red Green</select>`, Visible: true, Enabled: true, Value: str("g")}},
		{"#off", actions.State{Element: `<button id="off">Off</button>`, Visible: true}},
		{"#hid", actions.State{Element: `<p id="hid">hidden</p>`, Enabled: true}},
		{"#plain", actions.State{Element: `<div id="plain">plain</div>`, Visible: true, Enabled: true}},
		{"#far", actions.State{Element: `<input id="far">`, Visible: true, Enabled: true, Value: str("")}},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			got, err := tb.r.Inspect(tb.ctx, tt.target, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got.Element != tt.want.Element || got.Visible != tt.want.Visible || got.Enabled != tt.want.Enabled ||
				fmtPtr(got.Checked) != fmtPtr(tt.want.Checked) || fmtPtr(got.Value) != fmtPtr(tt.want.Value) {
				t.Errorf("got %+v (checked %s, value %s), want %+v (checked %s, value %s)",
					*got, fmtPtr(got.Checked), fmtPtr(got.Value), tt.want, fmtPtr(tt.want.Checked), fmtPtr(tt.want.Value))
			}
		})
	}
	tb.want("scrollY", "0")
	if _, err := tb.r.Inspect(tb.ctx, "#nowhere", 200*time.Millisecond); err == nil {
		t.Error("inspect #nowhere: got no error")
	}
}

// EvaluateOn calls the function with the element, in the page's own
// world: the page's globals are there.
func TestEvaluateOn(t *testing.T) {
	tb := open(t, map[string]string{"/": html(inspectPage)}, "/")
	res, err := tb.r.EvaluateOn(tb.ctx, "label=Name", "(el) => window.appName + ':' + el.id + ':' + el.value", 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Value) != `"shop:name:Ada"` {
		t.Errorf("got %s, want \"shop:name:Ada\"", res.Value)
	}
	res, err = tb.r.EvaluateOn(tb.ctx, "#color", "async (el) => { await new Promise((r) => setTimeout(r, 10)); el.value = 'r'; return el.selectedOptions[0].text; }", 0)
	if err != nil || string(res.Value) != `"Red"` {
		t.Errorf("an async function: got %v, %v; want \"Red\"", res, err)
	}
	_, err = tb.r.EvaluateOn(tb.ctx, "#name", "(el) => { throw new TypeError('nope: ' + el.id) }", 0)
	var je *actions.JSError
	if !errors.As(err, &je) {
		t.Fatalf("a throwing function: got %v, want a JSError", err)
	}
	contains(t, "error", je.Text, "nope: name")
	if _, err := tb.r.EvaluateOn(tb.ctx, "#nowhere", "(el) => 1", 200*time.Millisecond); err == nil {
		t.Error("#nowhere: got no error")
	}
}

func fmtPtr[T any](p *T) string {
	if p == nil {
		return "nil"
	}
	return fmtAny(*p)
}

func fmtAny(v any) string {
	switch v := v.(type) {
	case string:
		return `"` + v + `"`
	case bool:
		if v {
			return "true"
		}
		return "false"
	}
	return "?"
}
