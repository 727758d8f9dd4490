package actions

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/egohost/egohost/internal/engine/locator"
)

var (
	//go:embed fill.js
	fillJS string
	//go:embed select.js
	selectJS string
	//go:embed checked.js
	checkedJS string
	//go:embed focus.js
	focusJS string
	//go:embed value.js
	valueJS string
)

// focusValueJS focuses an element and reads its value, in one call:
// {focus: focus.js's answer, value: value.js's}. The value is read
// first: what the element held before anything.
var focusValueJS = "(el, ns) => { const value = (" + valueJS + "\n)(el, ns); return { focus: (" + focusJS + "\n)(el), value }; }"

// FillOptions tune Fill.
type FillOptions struct {
	ActOptions
	// Append adds the text at the end instead of replacing the content.
	Append bool
}

// Fill replaces the content of an input, a textarea or a contenteditable
// element with text (or appends it), after the checks Playwright makes for
// fill: visible, enabled, editable. The text goes in as one Input.insertText,
// so the page sees the beforeinput and input events typing fires; change
// fires when the element loses focus, as after typing. Inputs whose value
// is not typed (date, time, color, range…) get the value set directly,
// with input and change events.
func (r *Runner) Fill(ctx context.Context, target, text string, o FillOptions) (*Result, error) {
	// fill.js runs in the checks' call: one round trip less.
	arg := map[string]any{"value": text, "append": o.Append}
	var prepped json.RawMessage
	c := checks{Visible: true, Enabled: true, Editable: true, Retarget: "label", Then: "fill", thenArg: arg, thenOut: &prepped}
	return r.act(ctx, "fill", target, o.ActOptions, c, func(ctx context.Context, el Element, _ Point, res *Result) error {
		var prep struct {
			Done       bool   `json:"done"`
			Value      string `json:"value"`
			NeedsInput bool   `json:"needsInput"`
			Prefix     string `json:"prefix"`
			Editor     string `json:"editor"`
			Moved      string `json:"moved"`
			Error      string `json:"error"`
		}
		if len(prepped) == 0 || string(prepped) == "null" {
			if err := r.callOn(ctx, el, fillJS, &prep, arg); err != nil {
				return fmt.Errorf("fill %s: %w", target, err)
			}
		} else if err := json.Unmarshal(prepped, &prep); err != nil {
			return fmt.Errorf("fill %s: decode script result: %w", target, err)
		}
		switch {
		case prep.Error != "":
			return fmt.Errorf("fill %s: %w", target, unsupported("%s", prep.Error))
		case prep.Done:
			res.Value = &prep.Value
			return nil
		}
		if prep.Editor != "" {
			// A code editor empties its key input as it reads it: its
			// text is selected (or the caret put at its end) with its own
			// keys, as a person does, and the text typed over it.
			keys := "ControlOrMeta+a"
			if o.Append {
				keys = "ControlOrMeta+End"
			}
			strokes, err := r.kb.parseCombo(keys, r.opts.GOOS)
			if err == nil {
				err = r.pressStrokes(ctx, strokes)
			}
			if err != nil {
				return fmt.Errorf("fill %s: select the %s editor's text: %w", target, prep.Editor, err)
			}
		}
		res.FocusMovedTo = prep.Moved
		insert := prep.Prefix + text
		if insert == "" {
			// Nothing to type: delete the selection, as a person would.
			strokes, err := r.kb.parseCombo("Delete", r.opts.GOOS)
			if err == nil {
				err = r.pressStrokes(ctx, strokes)
			}
			if err != nil {
				return fmt.Errorf("fill %s: %w", target, err)
			}
		} else if _, err := cdp.Call(ctx, r.tab, input.InsertText, input.InsertTextParams{Text: insert}); err != nil {
			return fmt.Errorf("fill %s: insert text: %w", target, err)
		}
		res.readValue = true
		return nil
	})
}

// valueOf reads an editable element's value (nil when it has none).
func (r *Runner) valueOf(ctx context.Context, el Element) *string {
	v, _ := r.value(ctx, el)
	return v
}

// value is valueOf with the error (a *NotActionableError NotAttached when
// the element's document went away).
func (r *Runner) value(ctx context.Context, el Element) (*string, error) {
	var v *string
	if err := r.callOn(ctx, el, valueJS, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// SelectOptions tune Select: which options to select. A value matches an
// option's value or its label; Labels match labels only; Indexes are
// 0-based positions. Nothing at all deselects every option.
type SelectOptions struct {
	ActOptions
	Values  []string
	Labels  []string
	Indexes []int
}

// Select selects options of a <select> (several when it is multiple),
// after the checks for selectOption: visible, enabled. It waits for the
// options to exist, then fires input and change. A widget that acts as a
// <select> (a combobox, a listbox, a button that opens a list) gets the
// clicks a person gives it (selectInWidget), where Playwright's
// selectOption gives up.
func (r *Runner) Select(ctx context.Context, target string, o SelectOptions) (*Result, error) {
	c := checks{Visible: true, Enabled: true, Retarget: "label"}
	// A <select> is no submit button, purchase or link: nothing to ask the
	// person about (o.Confirm) before choosing its options. The clicks on
	// a widget (selectInWidget) are asked about as any click.
	first := o.ActOptions
	first.Confirm = nil
	res, err := r.actWith(ctx, "select", target, first, c, hooks{
		do: func(ctx context.Context, el Element, _ Point, res *Result) error {
			return r.selectOn(ctx, el, target, o, res)
		},
		retryDo: true, // the options may not be there yet
	})
	var we *widgetError
	if errors.As(err, &we) {
		return r.selectInWidget(ctx, target, o, we.widget)
	}
	return res, err
}

// widget is what select.js says of an element that is no <select> but
// acts as one: its role, whether it is open, the id of the list it
// controls (aria-controls or aria-owns) and the role of the list's
// entries (option; menuitem for a menu button).
type widget struct {
	Role     string `json:"role"`
	Editable bool   `json:"editable"`
	Expanded bool   `json:"expanded"`
	List     string `json:"list"`
	Item     string `json:"item"`
}

// widgetError ends Select's first try on a widget: selectInWidget goes on.
type widgetError struct{ widget widget }

func (e *widgetError) Error() string { return "a " + e.widget.Role + ", not a <select> element" }

// selectInWidget selects the entry of a widget named by the one value, as
// a person does: it opens the widget with a click (not a listbox, which
// shows its entries, nor one already open; a combobox one types in gets
// the name typed instead, which an autocomplete lists the entry for),
// then clicks the visible entry with exactly that name (white space
// normalised) in the list the widget controls, else in the page. Each
// step is an action of its own: its checks, its wait (o.Timeout each),
// its settle and its confirmation (o.Confirm). Selected is the name.
func (r *Runner) selectInWidget(ctx context.Context, target string, o SelectOptions, w widget) (*Result, error) {
	start := time.Now()
	names := append(append([]string{}, o.Values...), o.Labels...)
	if len(o.Indexes) > 0 || len(names) != 1 {
		return nil, fmt.Errorf("select %s: %w", target, unsupported("a %s (not a <select>) takes one option, by its name: got %d names and %d indexes", w.Role, len(names), len(o.Indexes)))
	}
	if w.Item == "" {
		w.Item = "option"
	}
	switch {
	case w.Editable:
		if _, err := r.Fill(ctx, target, names[0], FillOptions{ActOptions: o.ActOptions}); err != nil {
			return nil, fmt.Errorf("select %s: type in the %s: %w", target, w.Role, err)
		}
	case w.Role != "listbox" && !w.Expanded:
		if _, err := r.Click(ctx, target, ClickOptions{ActOptions: o.ActOptions}); err != nil {
			return nil, fmt.Errorf("select %s: open the %s: %w", target, w.Role, err)
		}
	}
	entry := locator.Locator{Steps: []locator.Step{
		{Op: locator.OpQuery, Kind: locator.KindRole, Role: locator.Role{Role: w.Item, Name: &locator.Text{Value: names[0], Exact: true}}},
		{Op: locator.OpVisible, Visible: true},
	}}
	if w.List != "" {
		list := locator.Step{Op: locator.OpQuery, Kind: locator.KindCSS, Selector: "[id=" + locator.CSSString(w.List) + "]"}
		entry.Steps = append([]locator.Step{list}, entry.Steps...)
	}
	res, err := r.Click(ctx, entry.String(), ClickOptions{ActOptions: o.ActOptions})
	if err != nil {
		return nil, fmt.Errorf("select %s: the %s's %s %q: %w", target, w.Role, w.Item, names[0], err)
	}
	res.Selected = []string{names[0]}
	res.Took = time.Since(start)
	return res, nil
}

func (r *Runner) selectOn(ctx context.Context, el Element, target string, o SelectOptions, res *Result) error {
	var out struct {
		Widget         *widget  `json:"widget"`
		Selected       []string `json:"selected"`
		Labels         []string `json:"labels"`
		Missing        []string `json:"missing"`
		Have           []string `json:"have"`
		DisabledOption *string  `json:"disabledOption"`
		Error          string   `json:"error"`
	}
	arg := map[string]any{"values": nonNil(o.Values), "labels": nonNil(o.Labels), "indexes": o.Indexes}
	if err := r.callOn(ctx, el, selectJS, &out, arg); err != nil {
		return fmt.Errorf("select %s: %w", target, err)
	}
	switch {
	case out.Widget != nil:
		return finalError{&widgetError{*out.Widget}}
	case out.Error != "":
		return fmt.Errorf("select %s: %w", target, unsupported("%s", out.Error))
	case len(out.Missing) > 0 && len(out.Have) == 0:
		// select2 and Django's autocomplete keep a hidden <select> that
		// holds only the chosen option: the entries come as one types.
		return &NotActionableError{Reason: NoOption, Detail: fmt.Sprintf("%s: the <select> has no options "+
			"(a widget that lists them as one types keeps such a <select> hidden behind the control it draws: select in that combobox, which egohost opens, types in and picks from)", strings.Join(out.Missing, ", "))}
	case len(out.Missing) > 0:
		return &NotActionableError{Reason: NoOption, Detail: fmt.Sprintf("%s (options: %s)", strings.Join(out.Missing, ", "), strings.Join(out.Have, ", "))}
	case out.DisabledOption != nil:
		return &NotActionableError{Reason: Disabled, Detail: fmt.Sprintf("option %q is disabled", *out.DisabledOption)}
	}
	if out.Selected == nil {
		out.Selected = []string{}
	}
	res.Selected = out.Selected
	if !slices.Equal(out.Labels, out.Selected) {
		res.SelectedLabels = out.Labels // an option's label that is not its value
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// SetChecked checks (want true) or unchecks a checkbox, a radio button or
// a switch with a real click, after the click's checks, unless it already
// is in that state; then it verifies that the state changed.
func (r *Runner) SetChecked(ctx context.Context, target string, want bool, o ActOptions) (*Result, error) {
	op := "check"
	if !want {
		op = "uncheck"
	}
	c := checks{Visible: true, Stable: true, Enabled: true, Hit: true}
	return r.actWith(ctx, op, target, o, c, hooks{
		before: func(ctx context.Context, el Element, res *Result) (bool, error) {
			state, radio, err := r.checkedState(ctx, el)
			if err != nil {
				return false, fmt.Errorf("%s %s: %w", op, target, err)
			}
			if state == want {
				res.Checked = &state
				return true, nil
			}
			if radio && !want {
				return false, fmt.Errorf("%s %s: %w", op, target, unsupported("a radio button cannot be unchecked: check another one of its group"))
			}
			return false, nil
		},
		do: func(ctx context.Context, el Element, at Point, res *Result) error {
			res.Point = &at
			if err := r.guardedClick(ctx, el, at, "", o.Force, false, res, input.MouseButtonLeft, 1, 1, 0); err != nil {
				return fmt.Errorf("%s %s: %w", op, target, err)
			}
			// The state may follow the click a frame later (a framework
			// re-rendering): look a few times before failing.
			var state bool
			for i := 0; i < 5; i++ {
				s, _, err := r.checkedState(ctx, el)
				if err != nil {
					return finalError{fmt.Errorf("%s %s: after the click: %w", op, target, err)}
				}
				state = s
				if state == want {
					break
				}
				if err := sleep(ctx, 50*time.Millisecond); err != nil {
					return finalError{err}
				}
			}
			res.Checked = &state
			if state != want && res.ReleasedOn != "" {
				// The release landed elsewhere: no click happened, so
				// clicking again is what was asked (retried).
				return &NotActionableError{Reason: NotStable, Cover: res.ReleasedOn, Detail: "the element moved between the press and the release, which landed on " + res.ReleasedOn + ": no click happened"}
			}
			if state != want {
				return finalError{fmt.Errorf("%s %s: %w", op, target, unsupported("clicking the element did not change its state (still %s)", onOff(state)))}
			}
			return nil
		},
		retryDo: true, // a click the guard stopped changed nothing
	})
}

func onOff(b bool) string {
	if b {
		return "checked"
	}
	return "unchecked"
}

// checkedState reads an element's checked state.
func (r *Runner) checkedState(ctx context.Context, el Element) (state, radio bool, err error) {
	var out struct {
		State bool   `json:"state"`
		Radio bool   `json:"radio"`
		Error string `json:"error"`
	}
	if err := r.callOn(ctx, el, checkedJS, &out); err != nil {
		return false, false, err
	}
	if out.Error != "" {
		return false, false, unsupported("%s", out.Error)
	}
	return out.State, out.Radio, nil
}

// Focus focuses the element target names (it must be attached; nothing
// else is checked, as in Playwright).
func (r *Runner) Focus(ctx context.Context, target string, o ActOptions) (*Result, error) {
	return r.actWith(ctx, "focus", target, o, checks{}, hooks{
		do: func(ctx context.Context, el Element, _ Point, res *Result) error {
			if err := r.focusElement(ctx, el); err != nil {
				return fmt.Errorf("focus %s: %w", target, err)
			}
			return nil
		},
		retryDo: true, // focusing changes nothing when it fails
	})
}

// focusElement focuses el and checks that the focus landed on it.
func (r *Runner) focusElement(ctx context.Context, el Element) error {
	var out json.RawMessage
	if err := r.callOn(ctx, el, focusJS, &out); err != nil {
		return err
	}
	return focused(out)
}

// focused reads focus.js's answer: nil when the focus landed.
func focused(raw json.RawMessage) error {
	var out struct {
		Focused   bool   `json:"focused"`
		Focusable bool   `json:"focusable"`
		Active    string `json:"active"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return fmt.Errorf("decode script result: %w", err)
	}
	if !out.Focused {
		if !out.Focusable {
			return unsupported("the element cannot take the focus (the focus is on <%s>)", out.Active)
		}
		return &NotActionableError{Reason: NotFocused, Detail: "the focus is on <" + out.Active + ">"}
	}
	return nil
}

// SetFiles sets the files of an <input type=file> (DOM.setFileInputFiles,
// which fires input and change). The paths are on the browser's machine.
// Nothing but attachment is checked, as in Playwright.
func (r *Runner) SetFiles(ctx context.Context, target string, files []string, o ActOptions) (*Result, error) {
	return r.act(ctx, "upload", target, o, checks{}, func(ctx context.Context, el Element, _ Point, res *Result) error {
		var kind struct {
			File     bool `json:"file"`
			Multiple bool `json:"multiple"`
		}
		err := r.callOn(ctx, el, `(el) => ({ file: el.localName === "input" && el.type === "file", multiple: !!el.multiple })`, &kind)
		if err != nil {
			return fmt.Errorf("upload %s: %w", target, err)
		}
		if !kind.File {
			return fmt.Errorf("upload %s: %w", target, unsupported("element is not an <input type=file>"))
		}
		if len(files) > 1 && !kind.Multiple {
			return fmt.Errorf("upload %s: %w", target, unsupported("the <input type=file> takes one file, %d were given", len(files)))
		}
		if files == nil {
			files = []string{}
		}
		el, done, err := r.unboxed(ctx, el)
		if err != nil {
			return fmt.Errorf("upload %s: %w", target, err)
		}
		defer done()
		if _, err := cdp.Call(ctx, r.session(el.SessionID), dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: files, ObjectID: el.ObjectID}); err != nil {
			return fmt.Errorf("upload %s: %w", target, err)
		}
		return nil
	})
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctxErr(ctx)
	case <-t.C:
		return nil
	}
}
