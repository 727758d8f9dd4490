package actwire

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/protocol"
)

func TestActOptions(t *testing.T) {
	tests := []struct {
		name string
		in   protocol.ActionOptions
		want actions.ActOptions
	}{
		{"defaults", protocol.ActionOptions{}, actions.ActOptions{}},
		{"timeout and force", protocol.ActionOptions{TimeoutMs: 1500, Force: true}, actions.ActOptions{Timeout: 1500 * time.Millisecond, Force: true}},
		{"no settle", protocol.ActionOptions{NoSettle: true}, actions.ActOptions{Settle: &actions.Settle{Off: true}}},
		{"no settle wins over a cap", protocol.ActionOptions{NoSettle: true, SettleMs: 300}, actions.ActOptions{Settle: &actions.Settle{Off: true}}},
		{"settle cap", protocol.ActionOptions{SettleMs: 300}, actions.ActOptions{Settle: &actions.Settle{Cap: 300 * time.Millisecond}}},
		{"a negative cap is the default", protocol.ActionOptions{SettleMs: -1}, actions.ActOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ActOptions(tt.in)); diff != "" {
				t.Errorf("ActOptions(%+v) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestTookMs(t *testing.T) {
	for _, tt := range []struct {
		in   time.Duration
		want float64
	}{{0, 0}, {1500 * time.Microsecond, 1.5}, {2*time.Second + 999, 2000}} {
		if got := TookMs(tt.in); got != tt.want {
			t.Errorf("TookMs(%v): got %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestResults(t *testing.T) {
	value, checked := "typed", true
	dialog := &actions.Dialog{Type: "prompt", Message: "name?", DefaultPrompt: "bob", URL: "https://a.example/"}
	wireDialog := &protocol.Dialog{Type: "prompt", Message: "name?", DefaultPrompt: "bob", URL: "https://a.example/"}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"no dialog", Dialog(nil), (*protocol.Dialog)(nil)},
		{"dialog", Dialog(dialog), wireDialog},
		{"action", ActionResult(protocol.MethodClick, 7, &actions.Result{
			Took: 12500 * time.Microsecond, Element: "<button>", Point: &actions.Point{X: 1, Y: 2},
			Waited:  actions.Waited{Took: 3 * time.Millisecond, Attempts: 2, Reasons: []string{"element is not visible"}},
			Settled: actions.Settled{Took: 4 * time.Millisecond, For: []string{"navigation"}, Navigated: true, URL: "https://b.example/", Capped: true},
			Dialog:  dialog, Value: &value, FocusMovedTo: "<input>", ReleasedOn: "<div>", Selected: []string{"a"}, Checked: &checked, Scroll: &actions.Point{X: 0, Y: 300},
		}), protocol.ActionResult{
			Action: "click", Tab: 7, Element: "<button>", Point: &protocol.Point{X: 1, Y: 2}, TookMs: 12.5,
			Waited:  protocol.Waited{Ms: 3, Attempts: 2, Reasons: []string{"element is not visible"}},
			Settled: protocol.Settled{Ms: 4, For: []string{"navigation"}, Navigated: true, URL: "https://b.example/", Capped: true},
			Dialog:  wireDialog, Value: &value, FocusMovedTo: "<input>", ReleasedOn: "<div>", Selected: []string{"a"}, Checked: &checked, Scroll: &protocol.Point{X: 0, Y: 300},
		}},
		{"action without a point", ActionResult(protocol.MethodPress, 1, &actions.Result{Settled: actions.Settled{Skipped: "off"}}),
			protocol.ActionResult{Action: "press", Tab: 1, Settled: protocol.Settled{Skipped: "off"}}},
		{"navigation", NavResult(3, &actions.NavResult{URL: "https://a.example/", Title: "A", Reached: "load", SameDocument: true, Download: true, Took: time.Second, Dialog: dialog}),
			protocol.NavResult{Tab: 3, URL: "https://a.example/", Title: "A", Reached: "load", SameDocument: true, Download: true, TookMs: 1000, Dialog: wireDialog}},
		{"wait with a value", WaitResult(2, &actions.WaitResult{What: "url", Took: time.Millisecond, Attempts: 3, Value: json.RawMessage(`"https://a.example/"`), Element: "<a>"}),
			protocol.WaitResult{Tab: 2, What: "url", TookMs: 1, Attempts: 3, Value: json.RawMessage(`"https://a.example/"`), Element: "<a>"}},
		{"wait with null", WaitResult(2, &actions.WaitResult{What: "text", Value: json.RawMessage("null")}), protocol.WaitResult{Tab: 2, What: "text"}},
		{"wait with no value", WaitResult(2, &actions.WaitResult{What: "text"}), protocol.WaitResult{Tab: 2, What: "text"}},
		{"inspect", InspectResult(5, &actions.State{Element: "<input id=q>", Visible: true, Checked: &checked, Value: &value}),
			protocol.InspectResult{Tab: 5, Element: "<input id=q>", Visible: true, Checked: &checked, Value: &value}},
		{"eval", EvalResult(4, &actions.EvalResult{Value: json.RawMessage("null"), Type: "number", Description: "NaN", Took: 2 * time.Millisecond, Dialog: dialog}),
			protocol.EvalResult{Tab: 4, Value: json.RawMessage("null"), Type: "number", Description: "NaN", TookMs: 2, Dialog: wireDialog}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestWaitOptions(t *testing.T) {
	p := protocol.WaitParams{Element: "@1", State: "hidden", Text: "done", Gone: true, URL: "**/b", Load: "load", Function: "() => 1", TimeoutMs: 250}
	want := actions.WaitOptions{Target: "@1", State: "hidden", Text: "done", Gone: true, URL: "**/b", Load: "load", Function: "() => 1", Timeout: 250 * time.Millisecond}
	if diff := cmp.Diff(want, WaitOptions(p)); diff != "" {
		t.Errorf("WaitOptions (-want +got):\n%s", diff)
	}
}

// called is one engine call a fake Runner saw.
type called struct {
	Method string
	Target string // the element, or the text typed, the key pressed
	Arg    any    // the options, or the checked state, drag's to
	Opts   any
}

// fakeRunner records the calls made on it.
type fakeRunner struct{ calls []called }

func (f *fakeRunner) add(c called) (*actions.Result, error) {
	f.calls = append(f.calls, c)
	return &actions.Result{}, nil
}

func (f *fakeRunner) Click(_ context.Context, target string, o actions.ClickOptions) (*actions.Result, error) {
	return f.add(called{"Click", target, nil, o})
}

func (f *fakeRunner) Hover(_ context.Context, target string, o actions.ActOptions) (*actions.Result, error) {
	return f.add(called{"Hover", target, nil, o})
}

func (f *fakeRunner) SetChecked(_ context.Context, target string, want bool, o actions.ActOptions) (*actions.Result, error) {
	return f.add(called{"SetChecked", target, want, o})
}

func (f *fakeRunner) Focus(_ context.Context, target string, o actions.ActOptions) (*actions.Result, error) {
	return f.add(called{"Focus", target, nil, o})
}

func (f *fakeRunner) Fill(_ context.Context, target, text string, o actions.FillOptions) (*actions.Result, error) {
	return f.add(called{"Fill", target, text, o})
}

func (f *fakeRunner) Type(_ context.Context, text string, o actions.PressOptions) (*actions.Result, error) {
	return f.add(called{"Type", text, nil, o})
}

func (f *fakeRunner) Press(_ context.Context, combo string, o actions.PressOptions) (*actions.Result, error) {
	return f.add(called{"Press", combo, nil, o})
}

func (f *fakeRunner) Select(_ context.Context, target string, o actions.SelectOptions) (*actions.Result, error) {
	return f.add(called{"Select", target, nil, o})
}

func (f *fakeRunner) Drag(_ context.Context, from, to string, o actions.ActOptions) (*actions.Result, error) {
	return f.add(called{"Drag", from, to, o})
}

func (f *fakeRunner) Scroll(_ context.Context, o actions.ScrollOptions) (*actions.Result, error) {
	return f.add(called{"Scroll", "", nil, o})
}

var _ Runner = (*actions.Runner)(nil)

// Each method's params make its one engine call, with the action options
// passed through.
func TestRuns(t *testing.T) {
	o := actions.ActOptions{Timeout: time.Second, Force: true}
	tests := []struct {
		name string
		run  func(context.Context, Runner) (*actions.Result, error)
		want called
	}{
		{"click", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Click(ctx, r, protocol.ClickParams{Element: "@1", Button: "right", Count: 2, Modifiers: []string{"Shift"}}, o)
		}, called{"Click", "@1", nil, actions.ClickOptions{ActOptions: o, Button: "right", Count: 2, Modifiers: []string{"Shift"}}}},
		{"hover", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Hover(ctx, r, protocol.ElementParams{Element: "@1"}, o)
		}, called{"Hover", "@1", nil, o}},
		{"check", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Check(ctx, r, protocol.ElementParams{Element: "@1"}, o)
		}, called{"SetChecked", "@1", true, o}},
		{"uncheck", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Uncheck(ctx, r, protocol.ElementParams{Element: "@1"}, o)
		}, called{"SetChecked", "@1", false, o}},
		{"focus", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Focus(ctx, r, protocol.ElementParams{Element: "@1"}, o)
		}, called{"Focus", "@1", nil, o}},
		{"fill", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Fill(ctx, r, protocol.FillParams{Element: "@1", Text: "x", Append: true}, o)
		}, called{"Fill", "@1", "x", actions.FillOptions{ActOptions: o, Append: true}}},
		{"type", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Type(ctx, r, protocol.TypeParams{Element: "@1", Text: "hi", DelayMs: 20}, o)
		}, called{"Type", "hi", nil, actions.PressOptions{ActOptions: o, Target: "@1", Delay: 20 * time.Millisecond}}},
		{"press", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Press(ctx, r, protocol.PressParams{Key: "Enter"}, o)
		}, called{"Press", "Enter", nil, actions.PressOptions{ActOptions: o}}},
		{"select", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Select(ctx, r, protocol.SelectParams{Element: "@1", Values: []string{"a"}, Labels: []string{"B"}, Indexes: []int{2}}, o)
		}, called{"Select", "@1", nil, actions.SelectOptions{ActOptions: o, Values: []string{"a"}, Labels: []string{"B"}, Indexes: []int{2}}}},
		{"drag", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Drag(ctx, r, protocol.DragParams{Element: "@1", To: "@2"}, o)
		}, called{"Drag", "@1", "@2", o}},
		{"scroll", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Scroll(ctx, r, protocol.ScrollParams{Element: "@1", DX: 1, DY: -2}, o)
		}, called{"Scroll", "", nil, actions.ScrollOptions{ActOptions: o, Target: "@1", DX: 1, DY: -2}}},
		{"field fill", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Field(ctx, r, protocol.FormField{Element: "@1", Action: "fill", Text: "x"}, o)
		}, called{"Fill", "@1", "x", actions.FillOptions{ActOptions: o}}},
		{"field check", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Field(ctx, r, protocol.FormField{Element: "@1", Action: "check"}, o)
		}, called{"SetChecked", "@1", true, o}},
		{"field uncheck", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Field(ctx, r, protocol.FormField{Element: "@1", Action: "uncheck"}, o)
		}, called{"SetChecked", "@1", false, o}},
		{"field select", func(ctx context.Context, r Runner) (*actions.Result, error) {
			return Field(ctx, r, protocol.FormField{Element: "@1", Action: "select", Values: []string{"a", "b"}}, o)
		}, called{"Select", "@1", nil, actions.SelectOptions{ActOptions: o, Values: []string{"a", "b"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r fakeRunner
			if _, err := tt.run(context.Background(), &r); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]called{tt.want}, r.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestURL(t *testing.T) {
	got, err := URL(protocol.MethodGoto, "example.com")
	if err != nil || got != "https://example.com" {
		t.Errorf("URL(example.com): got %q, %v; want https://example.com", got, err)
	}
	_, err = URL(protocol.MethodGoto, "javascript:alert(1)")
	if pe := protocol.AsError(err); err == nil || pe.Code != protocol.CodeInvalidParams || pe.Message[:6] != "goto: " {
		t.Errorf("URL(javascript:…): got %v, want invalid_params starting goto:", err)
	}
}

func TestCheckUntil(t *testing.T) {
	for _, until := range []string{"", "load", "domcontentloaded", "networkidle", "commit"} {
		if err := CheckUntil("goto", until); err != nil {
			t.Errorf("CheckUntil(%q): got %v, want nil", until, err)
		}
	}
	err := CheckUntil("tabs.open", "idle")
	const want = `tabs.open: unknown load state "idle": want load, domcontentloaded, networkidle or commit`
	if pe := protocol.AsError(err); err == nil || pe.Code != protocol.CodeInvalidParams || pe.Message != want {
		t.Errorf("CheckUntil(idle): got %v, want invalid_params %q", err, want)
	}
}

// A field's error keeps its code and data, says which field it was and
// how many were set before it.
func TestFieldError(t *testing.T) {
	cause := protocol.Errorf(protocol.CodeNotFound, "@3: no element matches").With("kind", "transient")
	f := protocol.FormField{Element: "@3", Action: "fill"}
	tests := []struct {
		i    int
		want string
	}{
		{0, "form.fill: field 1 (fill @3): @3: no element matches; no field was set"},
		{1, "form.fill: field 2 (fill @3): @3: no element matches; field 1 is set"},
		{3, "form.fill: field 4 (fill @3): @3: no element matches; fields 1-3 are set"},
	}
	for _, tt := range tests {
		pe := protocol.AsError(FieldError(tt.i, f, cause))
		if pe.Message != tt.want {
			t.Errorf("field %d: got %q, want %q", tt.i, pe.Message, tt.want)
		}
		want := map[string]any{"name": "not_found", "kind": "transient", "field": tt.i + 1, "filled": tt.i}
		if pe.Code != protocol.CodeNotFound || !cmp.Equal(pe.Data, want) {
			t.Errorf("field %d: got %v %v, want not_found %v", tt.i, pe.Code, pe.Data, want)
		}
	}
}
