package actions_test

import (
	"slices"
	"testing"
	"time"

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

// After a click that loads a new document, what that document does once
// loaded (a timer its load handler set, a request and what it renders
// from the answer) is in the page when the click returns: the settle ends
// early only for a loaded document that nothing changed for a frame and
// that has no request in flight.
func TestSettleSeesTheNewDocumentsEffect(t *testing.T) {
	pages := browsertest.Pages(map[string]string{
		"/":      html(`<a id=plain href="/plain">plain</a> <a id=timer href="/timer">timer</a> <a id=fetch href="/fetch">fetch</a>`),
		"/plain": html(`<p id=out>plain</p>`),
		"/timer": html(`<p id=out>-</p><script>onload = () => setTimeout(() => out.textContent = 'timer', 0)</script>`),
		"/fetch": html(`<p id=out>-</p><script>onload = () => fetch('/data').then(r => r.text()).then(t => out.textContent = t)</script>`),
	})
	tb := openWith(t, withSlowData(pages), "/", actions.Options{Setup: &actions.TabSetup{}})
	for _, c := range []struct {
		link, want string
		waited     string // one of Settled.For
	}{
		{"plain", "plain", "dom quiet"},
		{"timer", "timer", "dom quiet"},
		{"fetch", "fetched", "network"},
	} {
		t.Run(c.link, func(t *testing.T) {
			if _, err := tb.r.Goto(tb.ctx, tb.base+"/", actions.NavOptions{}); err != nil {
				t.Fatal(err)
			}
			res := tb.ok(tb.r.Click(tb.ctx, "#"+c.link, actions.ClickOptions{}))
			tb.want("out.textContent", `"`+c.want+`"`)
			s := res.Settled
			if s.Capped || !s.Navigated || !slices.Contains(s.For, c.waited) {
				t.Errorf("settled: got %+v, want a navigation, %s, not capped", s, c.waited)
			}
		})
	}
}

// A new document that nothing changes but that is still loading (an image
// the server answers slowly) is quiet at its load event, a frame and a
// task: not at the end of the quiet window, which here is longer than the
// cap (so that only that way ends the settle uncapped).
func TestSettleEndsAtTheNewDocumentsLoad(t *testing.T) {
	pages := browsertest.Pages(map[string]string{
		"/":      html(`<a id=go href="/image">image</a>`),
		"/image": html(`<p id=out>image</p><img id=slow src="/data" alt="">`),
	})
	tb := openWith(t, withSlowData(pages), "/", actions.Options{Setup: &actions.TabSetup{}})
	long := &actions.Settle{Quiet: time.Minute, Cap: 10 * time.Second}
	res := tb.ok(tb.r.Click(tb.ctx, "#go", actions.ClickOptions{ActOptions: actions.ActOptions{Settle: long}}))
	tb.want("document.readyState", `"complete"`)
	if s := res.Settled; s.Capped || !s.Navigated || !slices.Contains(s.For, "dom quiet") {
		t.Errorf("settled: got %+v, want a navigation, dom quiet at its load, not capped", s)
	}
}
