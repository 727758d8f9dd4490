package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/protocol"
)

// A call of the person that names no tab acts on the person's tab, and
// follows every change of it: tabs egohost opens, selects and closes (the
// next call, at once), and a tab activated outside egohost (DevTools'
// Target.activateTarget, as a click on the tab strip). None of them may
// leave a call on the tab before: whatever the extension or the service
// ever keeps of the person's tab must be forgotten at each of them.
func TestThePersonsTabFollowsEveryChange(t *testing.T) {
	c := startChain(t) // its own browser: no other test's tab may become the person's
	base := serve(t, map[string]string{"/a": "<title>A</title>", "/b": "<title>B</title>", "/c": "<title>C</title>"})
	ctx := ctxT(t, 60*time.Second)
	a := c.openTab(t, base+"/a")
	b := c.openTab(t, base+"/b")
	persons := func() string {
		t.Helper()
		v, err := c.eval(ctx, protocol.Target{}, "document.title")
		if err != nil {
			t.Fatalf("eval on the person's tab: %v", err)
		}
		return string(v)
	}
	sel := func(tab protocol.Target) {
		t.Helper()
		if err := c.agent.Call(ctx, protocol.MethodTabsSelect, protocol.TabParams{Target: tab}, nil); err != nil {
			t.Fatalf("tabs.select %d: %v", tab.Tab, err)
		}
	}
	for i := range 5 { // back and forth, each answer kept until the next change
		sel(a)
		if got := persons(); got != `"A"` {
			t.Fatalf("round %d: after selecting A the person's tab shows %s", i, got)
		}
		if got := persons(); got != `"A"` {
			t.Fatalf("round %d: asked again, the person's tab shows %s", i, got)
		}
		sel(b)
		if got := persons(); got != `"B"` {
			t.Fatalf("round %d: after selecting B the person's tab shows %s", i, got)
		}
	}
	cTab := c.openTab(t, base+"/c") // tabs.open activates it
	if got := persons(); got != `"C"` {
		t.Fatalf("after opening C the person's tab shows %s", got)
	}
	if err := c.agent.Call(ctx, protocol.MethodTabsClose, protocol.TabParams{Target: cTab}, nil); err != nil {
		t.Fatal(err)
	}
	if got := persons(); got == `"C"` {
		t.Fatalf("after closing C the person's tab still shows %s", got)
	}

	// The person activates A in the browser, not through egohost.
	sel(b)
	if got := persons(); got != `"B"` {
		t.Fatalf("the person's tab shows %s, want B", got)
	}
	res, err := cdp.Call(ctx, c.direct.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatal(err)
	}
	var idA target.ID
	for _, ti := range res.TargetInfos {
		if ti.Type == "page" && ti.URL == base+"/a" {
			idA = ti.TargetID
		}
	}
	if idA == "" {
		t.Fatal("no page target for tab A")
	}
	if _, err := cdp.Call(ctx, c.direct.Browser(), target.ActivateTarget, target.ActivateTargetParams{TargetID: idA}); err != nil {
		t.Fatalf("Target.activateTarget: %v", err)
	}
	// Chrome tells the extension in an event of its own, which may come a
	// moment after DevTools' answer: a hang bound, not a timing.
	wait, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	for persons() != `"A"` {
		if wait.Err() != nil {
			t.Fatalf("5 s after the person activated A, a call on the person's tab still acts on %s", persons())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
