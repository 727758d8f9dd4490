package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
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

// A ref names one element of one tab: the person's call that names no tab
// acts in the tab whose latest snapshot handed the ref out, whichever tab
// has the focus (and asks the browser nothing); a locator, or a ref no
// tab's latest snapshot has, still goes to the focused tab.
func TestARefActsInTheTabThatGaveIt(t *testing.T) {
	c := startChain(t) // its own browser: the focused tab is this test's
	page := `<title>%s</title><button onclick="document.title += ' clicked'">Go</button>`
	base := serve(t, map[string]string{"/a": fmt.Sprintf(page, "A"), "/b": fmt.Sprintf(page, "B")})
	ctx := ctxT(t, 60*time.Second)
	a := c.openTab(t, base+"/a")
	b := c.openTab(t, base+"/b") // opened last: the focused tab
	var snap protocol.SnapshotResult
	if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: a, Interactive: true}, &snap); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`button "Go" (@\d+)`).FindStringSubmatch(snap.Text)
	if m == nil {
		t.Fatalf("tab A's snapshot has no button ref:\n%s", snap.Text)
	}
	ref := m[1]
	title := func(tab protocol.Target) string {
		t.Helper()
		v, err := c.eval(ctx, tab, "document.title")
		if err != nil {
			t.Fatal(err)
		}
		return string(v)
	}

	var res protocol.ActionResult
	if err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Element: ref}, &res); err != nil {
		t.Fatalf("click %s with no tab: %v", ref, err)
	}
	if got, want := title(a), `"A clicked"`; got != want {
		t.Errorf("tab A's title: got %s, want %s", got, want)
	}
	if got, want := title(b), `"B"`; got != want {
		t.Errorf("tab B's title: got %s, want %s (the focused tab is not the ref's)", got, want)
	}

	// A snapshot scoped to the ref, with no tab: the ref's tab too.
	var scoped protocol.SnapshotResult
	if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Scope: ref}, &scoped); err != nil {
		t.Fatalf("snapshot scoped to %s with no tab: %v", ref, err)
	}
	if scoped.Tab != a.Tab || !strings.Contains(scoped.Text, `button "Go"`) {
		t.Errorf("snapshot scoped to %s with no tab: got tab %d:\n%s\nwant tab A's (%d) button", ref, scoped.Tab, scoped.Text, a.Tab)
	}

	// The CLI, as an agent runs it: no --tab.
	stdout, stderr, code := runEgohost(chainEnv(c.svc.stateDir), nil, "click", ref)
	if code != 0 {
		t.Fatalf("egohost click %s: exit %d: %s%s", ref, code, stdout, stderr)
	}
	if got, want := title(a), `"A clicked clicked"`; got != want {
		t.Errorf("after the CLI's click, tab A's title: got %s, want %s", got, want)
	}

	// A locator names no tab: the focused one.
	if err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Element: "text=Go"}, &res); err != nil {
		t.Fatal(err)
	}
	if got, want := title(b), `"B clicked"`; got != want {
		t.Errorf("a locator with no tab: tab B's title: got %s, want %s", got, want)
	}
	if got, want := title(a), `"A clicked clicked"`; got != want {
		t.Errorf("a locator with no tab: tab A's title: got %s, want %s", got, want)
	}

	// A ref no tab's latest snapshot has goes to the focused tab, and is
	// refused there as before.
	err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Element: "@999999"}, &res)
	wantCode(t, err, protocol.CodeUnknownRef)
	if got, want := title(b), `"B clicked"`; got != want {
		t.Errorf("an unknown ref changed tab B's title: got %s, want %s", got, want)
	}

	// An explicit tab wins over the ref's: tab B has no such ref.
	err = c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: b, Element: ref}, &res)
	wantCode(t, err, protocol.CodeUnknownRef) // tab B's snapshot never had it
	if got, want := title(a), `"A clicked clicked"`; got != want {
		t.Errorf("a ref on an explicit other tab changed tab A's title: got %s, want %s", got, want)
	}
}
