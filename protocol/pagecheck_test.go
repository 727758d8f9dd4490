package protocol

import (
	"fmt"
	"testing"
)

// The page methods' params checks: what they refuse, in the words
// PROTOCOL.md and the CLI's rewording (internal/front/cli/errors.go)
// rely on, and what they let through.
func TestParamsCheck(t *testing.T) {
	fields := func(n int) []FormField {
		out := make([]FormField, n)
		for i := range out {
			out[i] = FormField{Element: fmt.Sprintf("@%d", i+1), Action: MethodCheck}
		}
		return out
	}
	tests := []struct {
		name  string
		check error
		want  string // "" when the params are good
	}{
		{"hover", ElementParams{Element: "@1"}.Check(MethodHover), ""},
		{"hover no target", ElementParams{}.Check(MethodHover), "hover: target is empty (a @ref or a locator)"},
		{"focus no target", ElementParams{}.Check(MethodFocus), "focus: target is empty (a @ref or a locator)"},
		{"click", ClickParams{Element: "role=button"}.Check(MethodClick), ""},
		{"click no target", ClickParams{Count: 2}.Check(MethodClick), "click: target is empty (a @ref or a locator)"},
		{"fill", FillParams{Element: "@1"}.Check(MethodFill), ""},
		{"fill no target", FillParams{Text: "x"}.Check(MethodFill), "fill: target is empty (a @ref or a locator)"},
		{"type into the focused element", TypeParams{Text: "x"}.Check(MethodType), ""},
		{"type negative delay", TypeParams{Text: "x", DelayMs: -1}.Check(MethodType), "type: delayMs must not be negative"},
		{"press into the focused element", PressParams{Key: "Enter"}.Check(MethodPress), ""},
		{"press no key", PressParams{Element: "@1"}.Check(MethodPress), "press: key is empty"},
		{"select none deselects", SelectParams{Element: "@1"}.Check(MethodSelect), ""},
		{"select no target", SelectParams{Indexes: []int{-1}}.Check(MethodSelect), "select: target is empty (a @ref or a locator)"},
		{"select negative index", SelectParams{Element: "@1", Indexes: []int{0, -2}}.Check(MethodSelect), "select: index -2 is negative"},
		{"drag", DragParams{Element: "@1", To: "@2"}.Check(MethodDrag), ""},
		{"drag no to", DragParams{Element: "@1"}.Check(MethodDrag), "drag: needs a target and a to (each a @ref or a locator)"},
		{"drag no target", DragParams{To: "@2"}.Check(MethodDrag), "drag: needs a target and a to (each a @ref or a locator)"},
		{"upload clears", UploadParams{Element: "@1"}.Check(MethodUpload), ""},
		{"upload no target", UploadParams{Files: []string{"/a"}}.Check(MethodUpload), "upload: target is empty (a @ref or a locator)"},
		{"scroll into view", ScrollParams{Element: "@1"}.Check(MethodScroll), ""},
		{"scroll the viewport", ScrollParams{DY: -100}.Check(MethodScroll), ""},
		{"scroll nothing", ScrollParams{}.Check(MethodScroll), "scroll: give a target to scroll into view, or a delta (dx, dy)"},
		{"form.fill", FormFillParams{Fields: []FormField{
			{Element: "@1", Action: MethodFill, Text: "x"}, {Element: "@2", Action: MethodFill},
			{Element: "@3", Action: MethodSelect, Values: []string{"a"}}, {Element: "@4", Action: MethodCheck}, {Element: "@5", Action: MethodUncheck},
		}}.Check(MethodFormFill), ""},
		{"form.fill at most", FormFillParams{Fields: fields(MaxFormFields)}.Check(MethodFormFill), ""},
		{"form.fill too many", FormFillParams{Fields: fields(MaxFormFields + 1)}.Check(MethodFormFill), "form.fill: 101 fields; at most 100 in one call"},
		{"form.fill no fields", FormFillParams{}.Check(MethodFormFill), "form.fill: no fields"},
		{"form.fill no target", FormFillParams{Fields: []FormField{{Element: "@1", Action: MethodCheck}, {Action: MethodFill}}}.Check(MethodFormFill), "form.fill: field 2: target is empty (a @ref or a locator)"},
		{"form.fill fill values", FormFillParams{Fields: []FormField{{Element: "@1", Action: MethodFill, Values: []string{"a"}}}}.Check(MethodFormFill), "form.fill: field 1 (@1): fill takes text, not values"},
		{"form.fill select no values", FormFillParams{Fields: []FormField{{Element: "@1", Action: MethodSelect}}}.Check(MethodFormFill), "form.fill: field 1 (@1): select needs values"},
		{"form.fill select text", FormFillParams{Fields: []FormField{{Element: "@1", Action: MethodSelect, Values: []string{"a"}, Text: "b"}}}.Check(MethodFormFill), "form.fill: field 1 (@1): select takes values, not text"},
		{"form.fill uncheck text", FormFillParams{Fields: []FormField{{Element: "@1", Action: MethodUncheck, Text: "b"}}}.Check(MethodFormFill), "form.fill: field 1 (@1): uncheck takes no text or values"},
		{"form.fill unknown action", FormFillParams{Fields: []FormField{{Element: "@1", Action: "click"}}}.Check(MethodFormFill), `form.fill: field 1 (@1): action "click" is not fill, check, uncheck or select`},
		{"goto", GotoParams{URL: "example.com", Snapshot: &PageSnapshot{}}.Check(MethodGoto), ""},
		{"goto no url", GotoParams{}.Check(MethodGoto), "goto: url is empty"},
		{"goto negative maxChars first", GotoParams{Snapshot: &PageSnapshot{MaxChars: -1}}.Check(MethodGoto), "goto: snapshot.maxChars must not be negative"},
		{"eval", EvalParams{Expression: "1"}.Check(MethodEval), ""},
		{"eval no expression", EvalParams{Element: "@1"}.Check(MethodEval), "eval: expression is empty"},
		{"inspect", InspectParams{Element: "@1"}.Check(MethodInspect), ""},
		{"inspect no target", InspectParams{}.Check(MethodInspect), "inspect: target is empty"},
		{"locators", LocatorsParams{Element: "@1"}.Check(MethodLocators), ""},
		{"locators no target", LocatorsParams{}.Check(MethodLocators), "locators: target is empty"},
		{"resolve", ResolveParams{Element: "@1", Mode: "nonsense"}.Check(MethodResolve), ""},
		{"resolve no target", ResolveParams{}.Check(MethodResolve), "resolve: target is empty"},
		{"snapshot", SnapshotParams{MaxChars: 1, Start: 2, TimeoutMs: -1}.Check(MethodSnapshot), ""},
		{"snapshot negative maxChars", SnapshotParams{MaxChars: -1}.Check(MethodSnapshot), "snapshot: maxChars and start must not be negative"},
		{"snapshot negative start", SnapshotParams{Start: -1}.Check(MethodSnapshot), "snapshot: maxChars and start must not be negative"},
		{"resize", ResizeParams{Width: 1, Height: MaxViewport}.Check(MethodResize), ""},
		{"resize back to the window's", ResizeParams{}.Check(MethodResize), ""},
		{"resize too wide", ResizeParams{Width: MaxViewport + 1, Height: 600}.Check(MethodResize), "resize: width and height must be 1 to 8192 CSS pixels each (or both 0: the window's own size), not 8193 × 600"},
		{"resize one zero", ResizeParams{Width: 800}.Check(MethodResize), "resize: width and height must be 1 to 8192 CSS pixels each (or both 0: the window's own size), not 800 × 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == "" {
				if tt.check != nil {
					t.Fatalf("got %v, want nil", tt.check)
				}
				return
			}
			pe := AsError(tt.check)
			if tt.check == nil || pe.Code != CodeInvalidParams || pe.Message != tt.want {
				t.Errorf("got %v, want invalid_params %q", tt.check, tt.want)
			}
		})
	}
}
