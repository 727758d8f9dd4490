// Package actwire maps the page methods between the agents' wire
// (protocol) and the page engine (actions): a call's params to the engine
// call it makes, with which options; the engine's results to the wire's;
// and the checks of a call's params that need the engine's facts (load
// states) or the service's URL rules (weburl). It runs nothing itself:
// the service finds the tab, checks the caller and runs these mappings
// on the tab's actions.Runner.
package actwire

import (
	"errors"
	"fmt"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/weburl"
	"github.com/egohost/egohost/protocol"
)

// Millis is the wire's milliseconds (a timeoutMs) as a duration.
func Millis(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

// TookMs is a duration as the wire's tookMs: milliseconds, to the microsecond.
func TookMs(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// ActOptions are the wire's action options as the engine takes them.
func ActOptions(o protocol.ActionOptions) actions.ActOptions {
	a := actions.ActOptions{Timeout: Millis(o.TimeoutMs), Force: o.Force}
	switch {
	case o.NoSettle:
		a.Settle = &actions.Settle{Off: true}
	case o.SettleMs > 0:
		a.Settle = &actions.Settle{Cap: Millis(o.SettleMs)}
	}
	return a
}

// Dialog is an engine's dialog on the wire (nil for none).
func Dialog(d *actions.Dialog) *protocol.Dialog {
	if d == nil {
		return nil
	}
	return &protocol.Dialog{Type: d.Type, Message: d.Message, DefaultPrompt: d.DefaultPrompt, URL: d.URL}
}

// ActionResult is an element action's result on the wire: op is the
// method, tab the tab it acted in.
func ActionResult(op string, tab int, r *actions.Result) protocol.ActionResult {
	out := protocol.ActionResult{
		Action: op, Tab: tab, Element: r.Element, TookMs: TookMs(r.Took),
		Waited:  protocol.Waited{Ms: TookMs(r.Waited.Took), Attempts: r.Waited.Attempts, Reasons: r.Waited.Reasons},
		Settled: protocol.Settled{Ms: TookMs(r.Settled.Took), For: r.Settled.For, Navigated: r.Settled.Navigated, URL: r.Settled.URL, Capped: r.Settled.Capped, Skipped: r.Settled.Skipped, Ended: ended(r.Settled.Ended)},
		Dialog:  Dialog(r.Dialog), Value: r.Value, FocusMovedTo: r.FocusMovedTo, ReleasedOn: r.ReleasedOn, Selected: r.Selected, SelectedLabels: r.SelectedLabels, Checked: r.Checked,
	}
	if r.Point != nil {
		out.Point = &protocol.Point{X: r.Point.X, Y: r.Point.Y}
	}
	if r.Scroll != nil {
		out.Scroll = &protocol.Point{X: r.Scroll.X, Y: r.Scroll.Y}
	}
	return out
}

// ended names what ended an action's settle (actions.Settled.Ended): the
// code of the wire error that ended the call, "ended" for any other, ""
// for none.
func ended(err error) string {
	var pe *protocol.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &pe):
		return pe.Code.Name()
	}
	return "ended"
}

// NavResult is a navigation's result on the wire (goto, back, forward,
// reload, tabs.open's load).
func NavResult(tab int, r *actions.NavResult) protocol.NavResult {
	return protocol.NavResult{
		Tab: tab, URL: r.URL, Title: r.Title, Reached: r.Reached, SameDocument: r.SameDocument, Download: r.Download,
		TookMs: TookMs(r.Took), Dialog: Dialog(r.Dialog),
	}
}

// WaitOptions are wait's params as the engine takes them.
func WaitOptions(p protocol.WaitParams) actions.WaitOptions {
	return actions.WaitOptions{
		Target: p.Element, State: p.State, Text: p.Text, Gone: p.Gone, URL: p.URL, Load: p.Load, Function: p.Function,
		Timeout: Millis(p.TimeoutMs),
	}
}

// WaitResult is a wait's result on the wire: a value of null (no value)
// is left out.
func WaitResult(tab int, r *actions.WaitResult) protocol.WaitResult {
	out := protocol.WaitResult{Tab: tab, What: r.What, TookMs: TookMs(r.Took), Attempts: r.Attempts, Element: r.Element}
	if len(r.Value) > 0 && string(r.Value) != "null" {
		out.Value = r.Value
	}
	return out
}

// EvalResult is an evaluation's result on the wire.
func EvalResult(tab int, r *actions.EvalResult) protocol.EvalResult {
	return protocol.EvalResult{Tab: tab, Value: r.Value, Type: r.Type, Description: r.Description, TookMs: TookMs(r.Took), Dialog: Dialog(r.Dialog)}
}

// InspectResult is inspect's result on the wire: the element's state st
// in tab.
func InspectResult(tab int, st *actions.State) protocol.InspectResult {
	return protocol.InspectResult{Tab: tab, Element: st.Element, Visible: st.Visible, Enabled: st.Enabled, Checked: st.Checked, Value: st.Value}
}

// URL turns what an agent gave as an address into the URL to load
// (weburl.Normalize), or an invalid_params error of op saying why it
// cannot be.
func URL(op, raw string) (string, error) {
	u, err := weburl.Normalize(raw)
	if err != nil {
		return "", protocol.Errorf(protocol.CodeInvalidParams, "%s: %v", op, err)
	}
	return u, nil
}

// CheckUntil refuses a load state the engine does not know, before
// anything happens ("" is the default, load).
func CheckUntil(op, until string) error {
	switch until {
	case "", actions.LoadLoad, actions.LoadDOMContentLoaded, actions.LoadNetworkIdle, actions.LoadCommit:
		return nil
	}
	return protocol.Errorf(protocol.CodeInvalidParams, "%s: unknown load state %q: want load, domcontentloaded, networkidle or commit", op, until)
}

// FieldError is form.fill's error for its field i (0-based) f, which
// failed with err: err's code and data, its message prefixed with the
// field, and how many fields were set before it (data "filled").
func FieldError(i int, f protocol.FormField, err error) error {
	pe := protocol.AsError(err)
	done := "no field was set"
	switch {
	case i == 1:
		done = "field 1 is set"
	case i > 1:
		done = fmt.Sprintf("fields 1-%d are set", i)
	}
	out := protocol.Errorf(pe.Code, "form.fill: field %d (%s %s): %s; %s", i+1, f.Action, f.Element, pe.Message, done)
	for k, v := range pe.Data {
		if k != "name" {
			out.With(k, v)
		}
	}
	return out.With("field", i+1).With("filled", i)
}
