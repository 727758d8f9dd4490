package actions

import (
	"strings"
	"testing"
)

// Every element action runs one function in egohost's world, whatever its
// first step: the world keeps it after a document's first action, and an
// action that ran another would send its own at its first call (a select
// after a fill: 28 KB more).
func TestEveryActionRunsTheKeptFunction(t *testing.T) {
	r := &Runner{}
	want := actionable()
	cases := []struct {
		name string
		c    checks
	}{
		{"click", checks{Visible: true, Stable: true, Enabled: true, Hit: true, Retarget: "button", Guard: true}},
		{"fill", checks{Visible: true, Enabled: true, Editable: true, Retarget: "label", Then: "fill"}},
		{"type", checks{Enabled: true, Then: "focusValue"}},
		{"forced fill", checks{Visible: true, Then: "fill"}},
	}
	for _, c := range cases {
		for _, force := range []bool{false, true} {
			_, fn := r.checkScript(c.c, force, 1)
			if fn != want {
				t.Errorf("%s (force %v): runs a function of %d bytes, not the kept one (%d)", c.name, force, len(fn), len(want))
			}
		}
	}
	for name := range thenSteps {
		if !strings.Contains(want, `"`+name+`": (`) {
			t.Errorf("the kept function has no step %q", name)
		}
	}
}
