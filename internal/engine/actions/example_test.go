package actions_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/resolver"
)

// A Runner acts on one tab: here a page opened over any cdp.Session (the
// extension relay, or a direct DevTools connection), with the resolver
// finding elements. Errors say why an element is not actionable, and which
// element covers it.
func Example() {
	ctx := context.Background()
	var p *cdptab.Page // cdptab.Open(ctx, session)
	res := resolver.New(p, nil)
	find := actions.FindCallers(res.Object, res.ObjectCall)
	r := actions.New(p, find, actions.Options{Timeout: 5 * time.Second, Transient: resolver.IsTransient})

	if _, err := r.Goto(ctx, "https://example.test/login", actions.NavOptions{Until: actions.LoadDOMContentLoaded}); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := r.Fill(ctx, "label=Email", "ada@example.test", actions.FillOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	done, err := r.Click(ctx, `role=button[name="Sign in"]`, actions.ClickOptions{})
	var na *actions.NotActionableError
	switch {
	case errors.As(err, &na) && na.Reason == actions.Covered:
		fmt.Println("covered by", na.Cover)
	case err != nil:
		fmt.Println(err)
	default:
		fmt.Println("waited", done.Waited.Took, "settled for", done.Settled.For, "navigated:", done.Settled.Navigated)
	}
}
