package actions

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSplitCombo(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"a", []string{"a"}},
		{"Control+a", []string{"Control", "a"}},
		{"Shift++", []string{"Shift", "+"}},
		{"+", []string{"+"}},
		{"Control+Shift+ArrowLeft", []string{"Control", "Shift", "ArrowLeft"}},
		{"a+", []string{"a", ""}},
	} {
		if got := splitCombo(c.in); !cmp.Equal(got, c.want) {
			t.Errorf("splitCombo(%q): got %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseCombo(t *testing.T) {
	kb := usKeyboard()
	type ev struct {
		Key, Code, Text string
		KeyCode, Mod    int64
	}
	for _, c := range []struct {
		combo, goos string
		want        []ev
		err         string
	}{
		{combo: "a", want: []ev{{"a", "KeyA", "a", 65, 0}}},
		{combo: "A", want: []ev{{"A", "KeyA", "A", 65, 0}}},
		{combo: "KeyA", want: []ev{{"a", "KeyA", "a", 65, 0}}},
		{combo: "Shift+a", want: []ev{{"Shift", "ShiftLeft", "", 16, 8}, {"A", "KeyA", "A", 65, 0}}},
		{combo: "Control+a", want: []ev{{"Control", "ControlLeft", "", 17, 2}, {"a", "KeyA", "", 65, 0}}},
		{combo: "ControlOrMeta+a", goos: "linux", want: []ev{{"Control", "ControlLeft", "", 17, 2}, {"a", "KeyA", "", 65, 0}}},
		{combo: "ControlOrMeta+a", goos: "darwin", want: []ev{{"Meta", "MetaLeft", "", 91, 4}, {"a", "KeyA", "", 65, 0}}},
		{combo: "Shift+Tab", want: []ev{{"Shift", "ShiftLeft", "", 16, 8}, {"Tab", "Tab", "", 9, 0}}},
		{combo: "Shift++", want: []ev{{"Shift", "ShiftLeft", "", 16, 8}, {"+", "Equal", "+", 187, 0}}},
		{combo: "Shift+1", want: []ev{{"Shift", "ShiftLeft", "", 16, 8}, {"!", "Digit1", "!", 49, 0}}},
		{combo: "Enter", want: []ev{{"Enter", "Enter", "\r", 13, 0}}},
		{combo: " ", want: []ev{{" ", "Space", " ", 32, 0}}},
		{combo: "F5", want: []ev{{"F5", "F5", "", 116, 0}}},
		{combo: "Escape", want: []ev{{"Escape", "Escape", "", 27, 0}}},
		{combo: "Control+Nope", err: `unknown key "Nope"`},
		{combo: "a+b", err: `"a" is not a modifier`},
		{combo: "", err: "empty key"},
		{combo: "Control+", err: "empty key"},
	} {
		goos := c.goos
		if goos == "" {
			goos = "linux"
		}
		strokes, err := kb.parseCombo(c.combo, goos)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseCombo(%q): got %v, want an error with %q", c.combo, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseCombo(%q): %v", c.combo, err)
			continue
		}
		var got []ev
		for _, s := range strokes {
			got = append(got, ev{s.key, s.def.code, s.text, s.def.keyCode, s.modifier})
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("parseCombo(%q) (-want +got):\n%s", c.combo, d)
		}
	}
}

func TestMacCommands(t *testing.T) {
	if got := macCommands(modMeta, "KeyA"); !cmp.Equal(got, []string{"selectAll"}) {
		t.Errorf("Meta+a: got %v, want selectAll", got)
	}
	if got := macCommands(modControl, "KeyA"); got != nil {
		t.Errorf("Control+a on macOS: got %v, want none", got)
	}
	if got := macCommands(0, "Backspace"); !cmp.Equal(got, []string{"deleteBackward"}) {
		t.Errorf("Backspace: got %v, want deleteBackward", got)
	}
}

func FuzzParseCombo(f *testing.F) {
	for _, s := range []string{"a", "Control+a", "Shift++", "+", "ControlOrMeta+Shift+ArrowLeft", "é", "Control+", "++", "Shift+Shift"} {
		f.Add(s)
	}
	kb := usKeyboard()
	f.Fuzz(func(t *testing.T, s string) {
		strokes, err := kb.parseCombo(s, "linux")
		if err == nil && len(strokes) == 0 {
			t.Fatalf("parseCombo(%q): no strokes and no error", s)
		}
	})
}

func TestURLMatcher(t *testing.T) {
	for _, c := range []struct {
		pattern, url string
		want         bool
	}{
		{"https://a.test/x", "https://a.test/x", true},
		{"https://a.test/x", "https://a.test/x/", false},
		{"**/done", "https://a.test/form/done", true},
		{"**/done", "https://a.test/done?x=1", false},
		{"https://a.test/*/done", "https://a.test/form/done", true},
		{"https://a.test/*/done", "https://a.test/a/b/done", false},
		{"https://a.test/**", "https://a.test/a/b/done", true},
		{"**/x?q=1", "https://a.test/x?q=1", true},
		{"**/x?q=1", "https://a.test/xq=1", false},
		{"/done$/", "https://a.test/form/done", true},
		{"/DONE/i", "https://a.test/form/done", true},
		{"/DONE/", "https://a.test/form/done", false},
		{"/path/to", "/path/to", true}, // not a regular expression: "to" are not flags
	} {
		m, err := URLMatcher(c.pattern)
		if err != nil {
			t.Errorf("URLMatcher(%q): %v", c.pattern, err)
			continue
		}
		if got := m(c.url); got != c.want {
			t.Errorf("URLMatcher(%q)(%q): got %v, want %v", c.pattern, c.url, got, c.want)
		}
	}
	if _, err := URLMatcher("/(/"); err == nil {
		t.Error("URLMatcher(/(/): no error for a bad regular expression")
	}
}

func FuzzURLMatcher(f *testing.F) {
	for _, s := range []string{"**/done", "/a(b)?/i", "https://x/*", "/", "//", "*", "/[/"} {
		f.Add(s, "https://x/a/done")
	}
	f.Fuzz(func(t *testing.T, pattern, url string) {
		m, err := URLMatcher(pattern)
		if err == nil {
			m(url)
		}
	})
}

func TestChromeErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		gone bool
	}{
		{errors.New("Runtime.callFunctionOn: Cannot find context with specified id (-32000)"), true},
		{errors.New("Runtime.callFunctionOn: Execution context was destroyed. (-32000)"), true},
		{errors.New("Runtime.callFunctionOn: Could not find object with given id (-32000)"), true},
		{errors.New("Runtime.evaluate: Inspected target navigated or closed"), true},
		{errors.New("Input.dispatchMouseEvent: some other failure"), false},
		{fmt.Errorf("wrapped: %w", errors.New("Execution context was destroyed")), true},
		{nil, false},
	} {
		if got := chromeContextGone(c.err); got != c.gone {
			t.Errorf("chromeContextGone(%v): got %v, want %v", c.err, got, c.gone)
		}
	}
	if !chromeNoDialog(errors.New("Page.handleJavaScriptDialog: No dialog is showing (-32602)")) {
		t.Error("chromeNoDialog: Chrome's text not recognised")
	}
	if chromeNoDialog(errors.New("something else")) || chromeNoDialog(nil) {
		t.Error("chromeNoDialog: false positive")
	}
}

func TestErrorMessages(t *testing.T) {
	na := &NotActionableError{Reason: Covered, Cover: `<div id="cookie-banner">`, Element: `<button id="buy">`}
	te := &TimeoutError{Op: "click", Target: "#buy", Timeout: 5 * time.Second, Attempts: 12, Last: na}
	want := `click #buy: timed out after 5s (12 attempts): element is covered by <div id="cookie-banner"> (<button id="buy">)`
	if te.Error() != want {
		t.Errorf("got %q, want %q", te.Error(), want)
	}
	var got *NotActionableError
	if !errors.As(te, &got) || !got.Transient() {
		t.Error("a timeout does not unwrap to its transient cause")
	}
	if !errors.Is(te, contextDeadline()) {
		t.Error("a timeout is not context.DeadlineExceeded")
	}
	if !errors.Is(unsupported("x"), ErrUnsupported) {
		t.Error("unsupported does not wrap ErrUnsupported")
	}
}

func contextDeadline() error { return context.DeadlineExceeded }
