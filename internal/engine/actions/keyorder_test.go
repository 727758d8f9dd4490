package actions_test

import (
	"errors"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
)

// keyLog is a page that logs every key event of its input, with the
// modifiers held, in the order the page sees them.
const keyLog = `<input id=k aria-label=Keys><script>
for (const t of ["keydown", "keypress", "keyup"]) k.addEventListener(t, (e) =>
  log(t + " " + e.key + (e.shiftKey ? " +shift" : "") + (e.ctrlKey ? " +ctrl" : "")));
</script>`

// The key events of a combo go to Chrome in one sequence (one round trip):
// the page must see them in a person's order, modifiers first down and
// last up, each key's keypress between its keydown and keyup.
func TestPressKeepsTheKeysInOrder(t *testing.T) {
	tb := open(t, map[string]string{"/": html(keyLog)}, "/")
	off := actions.ActOptions{Settle: &actions.Settle{Off: true}}
	for _, c := range []struct{ combo, want string }{
		{"Enter", `["keydown Enter","keypress Enter","keyup Enter"]`},
		{"Shift+1", `["keydown Shift +shift","keydown ! +shift","keypress ! +shift","keyup ! +shift","keyup Shift"]`},
		{"Control+Shift+ArrowLeft", `["keydown Control +ctrl","keydown Shift +shift +ctrl","keydown ArrowLeft +shift +ctrl","keyup ArrowLeft +shift +ctrl","keyup Shift +ctrl","keyup Control"]`},
	} {
		tb.eval(`window.events = []`)
		if _, err := tb.r.Press(tb.ctx, c.combo, actions.PressOptions{Target: "#k", ActOptions: off}); err != nil {
			t.Fatalf("press %s: %v", c.combo, err)
		}
		if got := tb.eval(`window.events`); got != c.want {
			t.Errorf("press %s: got %s, want %s", c.combo, got, c.want)
		}
	}
	// Without a target the keys go to the focused element, described in
	// the reply (one evaluation, then the keys).
	tb.eval(`window.events = []; k.focus()`)
	res, err := tb.r.Press(tb.ctx, "Enter", actions.PressOptions{ActOptions: off})
	if err != nil {
		t.Fatal(err)
	}
	if want := `<input id="k" aria-label="Keys">`; res.Element != want {
		t.Errorf("press without a target: got element %q, want %q", res.Element, want)
	}
	if got, want := tb.eval(`window.events`), `["keydown Enter","keypress Enter","keyup Enter"]`; got != want {
		t.Errorf("press without a target: got %s, want %s", got, want)
	}
	tb.eval(`window.events = []; k.value = ""`)
	if _, err := tb.r.Type(tb.ctx, "aB", actions.PressOptions{Target: "#k", ActOptions: off}); err != nil {
		t.Fatal(err)
	}
	want := `["keydown a","keypress a","keyup a","keydown B","keypress B","keyup B"]`
	if got := tb.eval(`window.events`); got != want {
		t.Errorf("type aB: got %s, want %s", got, want)
	}
	tb.want(`k.value`, `"aB"`)
}

// check reads the box's state first (a step before the checks): when the
// checks then fail (a cover), the action waits and fails, it never clicks.
func TestCheckWaitsForItsChecksAfterReadingTheState(t *testing.T) {
	tb := open(t, map[string]string{"/": html(`<input type=checkbox id=box aria-label=Agree onclick="log('clicked')">
<div id=cover style="position:fixed;inset:0;background:#eee"></div>`)}, "/")
	// Long enough for one whole check on a loaded machine (700 ms was
	// not, at a load of 25: the only attempt was cut, with no cause).
	_, err := tb.r.SetChecked(tb.ctx, "#box", true, actions.ActOptions{Timeout: 3 * time.Second})
	var na *actions.NotActionableError
	if !errors.As(err, &na) || na.Reason != actions.Covered {
		t.Fatalf("got %v, want the cover named", err)
	}
	tb.want(`window.events`, `[]`)
	tb.want(`box.checked`, `false`)
}
