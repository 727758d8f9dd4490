package actwire

import (
	"context"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/protocol"
)

// Runner is the engine's element actions as the mappings below call them
// (*actions.Runner is one).
type Runner interface {
	Click(ctx context.Context, target string, o actions.ClickOptions) (*actions.Result, error)
	Hover(ctx context.Context, target string, o actions.ActOptions) (*actions.Result, error)
	SetChecked(ctx context.Context, target string, want bool, o actions.ActOptions) (*actions.Result, error)
	Focus(ctx context.Context, target string, o actions.ActOptions) (*actions.Result, error)
	Fill(ctx context.Context, target, text string, o actions.FillOptions) (*actions.Result, error)
	Type(ctx context.Context, text string, o actions.PressOptions) (*actions.Result, error)
	Press(ctx context.Context, combo string, o actions.PressOptions) (*actions.Result, error)
	Select(ctx context.Context, target string, o actions.SelectOptions) (*actions.Result, error)
	Drag(ctx context.Context, from, to string, o actions.ActOptions) (*actions.Result, error)
	Scroll(ctx context.Context, o actions.ScrollOptions) (*actions.Result, error)
}

// The element actions: each makes its method's one engine call with its
// params and the action options o (ActOptions of the params', which the
// service may have added to: a confirmation).

// Click makes click.
func Click(ctx context.Context, r Runner, p protocol.ClickParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Click(ctx, p.Element, actions.ClickOptions{ActOptions: o, Button: p.Button, Count: p.Count, Modifiers: p.Modifiers})
}

// Hover makes hover.
func Hover(ctx context.Context, r Runner, p protocol.ElementParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Hover(ctx, p.Element, o)
}

// Check makes check.
func Check(ctx context.Context, r Runner, p protocol.ElementParams, o actions.ActOptions) (*actions.Result, error) {
	return r.SetChecked(ctx, p.Element, true, o)
}

// Uncheck makes uncheck.
func Uncheck(ctx context.Context, r Runner, p protocol.ElementParams, o actions.ActOptions) (*actions.Result, error) {
	return r.SetChecked(ctx, p.Element, false, o)
}

// Focus makes focus.
func Focus(ctx context.Context, r Runner, p protocol.ElementParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Focus(ctx, p.Element, o)
}

// Fill makes fill.
func Fill(ctx context.Context, r Runner, p protocol.FillParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Fill(ctx, p.Element, p.Text, actions.FillOptions{ActOptions: o, Append: p.Append})
}

// Type makes type.
func Type(ctx context.Context, r Runner, p protocol.TypeParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Type(ctx, p.Text, actions.PressOptions{ActOptions: o, Target: p.Element, Delay: Millis(p.DelayMs)})
}

// Press makes press.
func Press(ctx context.Context, r Runner, p protocol.PressParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Press(ctx, p.Key, actions.PressOptions{ActOptions: o, Target: p.Element})
}

// Select makes select.
func Select(ctx context.Context, r Runner, p protocol.SelectParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Select(ctx, p.Element, actions.SelectOptions{ActOptions: o, Values: p.Values, Labels: p.Labels, Indexes: p.Indexes})
}

// Drag makes drag.
func Drag(ctx context.Context, r Runner, p protocol.DragParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Drag(ctx, p.Element, p.To, o)
}

// Scroll makes scroll.
func Scroll(ctx context.Context, r Runner, p protocol.ScrollParams, o actions.ActOptions) (*actions.Result, error) {
	return r.Scroll(ctx, actions.ScrollOptions{ActOptions: o, Target: p.Element, DX: p.DX, DY: p.DY})
}

// Field makes one form.fill field's action (protocol.FormFillParams.Check
// has checked it), as that method makes it alone.
func Field(ctx context.Context, r Runner, f protocol.FormField, o actions.ActOptions) (*actions.Result, error) {
	switch f.Action {
	case protocol.MethodCheck:
		return r.SetChecked(ctx, f.Element, true, o)
	case protocol.MethodUncheck:
		return r.SetChecked(ctx, f.Element, false, o)
	case protocol.MethodSelect:
		return r.Select(ctx, f.Element, actions.SelectOptions{ActOptions: o, Values: f.Values})
	}
	return r.Fill(ctx, f.Element, f.Text, actions.FillOptions{ActOptions: o})
}
