package actions_test

import (
	"slices"
	"testing"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// A click that navigates settles when the new document reaches
// DOMContentLoaded, not at the settle's cap; with the tab's setup kept
// across actions (as the service keeps it), also for the second action.
func TestClickThatNavigatesSettlesAtDOMContentLoaded(t *testing.T) {
	pages := map[string]string{
		"/":       html(`<form action="/thanks"><input name=q value=x><button id=go>Go</button></form>`),
		"/thanks": html(`<title>thanks</title><p>Thanks</p>`),
	}
	tb := openWith(t, browsertest.Pages(pages), "/", actions.Options{Setup: &actions.TabSetup{}})
	for i := range 2 {
		if _, err := tb.r.Goto(tb.ctx, tb.base+"/", actions.NavOptions{}); err != nil {
			t.Fatal(err)
		}
		res, err := tb.r.Click(tb.ctx, "#go", actions.ClickOptions{})
		if err != nil {
			t.Fatalf("click %d: %v", i, err)
		}
		s := res.Settled
		if s.Capped || !s.Navigated || !slices.Contains(s.For, "domcontentloaded") {
			t.Errorf("click %d: settled %+v, want a navigation followed to domcontentloaded, not capped", i, s)
		}
	}
}
