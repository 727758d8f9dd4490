package actions

import (
	"context"
	"errors"
	"time"
)

// State is what Inspect reads of one element.
type State struct {
	// Element describes it: <input id="q" type="text">.
	Element string
	Visible bool // a non-empty box, not visibility:hidden
	Enabled bool // not :disabled, not inside aria-disabled="true"
	// Checked is a checkbox's, radio button's or switch's state (nil for
	// other elements).
	Checked *bool
	// Value is what an input, a textarea, a select or a contenteditable
	// element holds (nil for other elements); a password field's is dots,
	// as the snapshot shows it: never its text.
	Value *string
}

// Inspect reads an element's state without acting on it: it waits (up to
// d, or the runner's timeout) for target to match one element, then reads
// it once. A label stands for its control, as for fill and check.
func (r *Runner) Inspect(ctx context.Context, target string, d time.Duration) (*State, error) {
	if r.find == nil {
		return nil, errors.New("inspect: no element finder")
	}
	var st *State
	err := r.retry(ctx, "inspect", target, timeout(d, r.opts.Timeout), nil, func(ctx context.Context, n int) error {
		el, err := r.find.Find(ctx, target)
		if err != nil {
			return err
		}
		defer r.release(ctx, el)
		var out struct {
			Desc    string `json:"desc"`
			Visible bool   `json:"visible"`
			Enabled bool   `json:"enabled"`
			Reason  string `json:"reason"`
		}
		if err := r.callOn(ctx, el, checkJS, &out, checks{Inspect: true, Retarget: "label"}); err != nil {
			return err
		}
		if out.Reason != "" {
			return &NotActionableError{Reason: Reason(out.Reason), Element: out.Desc}
		}
		st = &State{Element: out.Desc, Visible: out.Visible, Enabled: out.Enabled}
		if state, _, err := r.checkedState(ctx, el); err == nil {
			st.Checked = &state
		}
		st.Value = r.valueOf(ctx, el) // a password's as bullets (value.js)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}
