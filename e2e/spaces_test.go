package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/extension"
	"github.com/egohost/egohost/protocol"
)

// spacePages serves /p?who=NAME: a page titled NAME with a counting
// button, an input and a #late slot a test fills in later.
func spacePages(t testing.TB) string {
	return serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := r.URL.Query().Get("who")
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<title>%s</title><button id=b onclick="window.n=(window.n||0)+1;document.getElementById('c').textContent=window.n">Go</button>
<span id=c>0</span><input id=i><div id=slot></div>`, who)
	}))
}

// dialAgent connects an agent with a name.
func dialAgent(t testing.TB, s *svc, name string) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, s.addr, s.token, client.Options{Agent: name})
	if err != nil {
		t.Fatalf("dial as %s: %v\nservice log:\n%s", name, err, s.logs)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// pageText reads an expression's value on a tab as the person (the oracle).
func pageText(t testing.TB, ctx context.Context, c *chain, tab int, expr string) string {
	t.Helper()
	v, err := c.eval(ctx, protocol.Target{Tab: tab}, expr)
	if err != nil {
		t.Fatalf("read %q on tab %d: %v", expr, tab, err)
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return string(v)
	}
	return s
}

func mySpaces(t testing.TB, ctx context.Context, a *client.Client) []protocol.Space {
	t.Helper()
	var r protocol.SpacesListResult
	if err := a.Call(ctx, protocol.MethodSpacesList, nil, &r); err != nil {
		t.Fatalf("spaces.list: %v", err)
	}
	return r.Spaces
}

// spaceAgent is one named agent of the test with its space and tab.
type spaceAgent struct {
	name  string
	c     *client.Client
	space string
	tab   int
}

func (a *spaceAgent) click(ctx context.Context, tab int, target string) error {
	return a.c.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: protocol.Target{Tab: tab}, Element: target}, nil)
}

// Three agents in three spaces beside the person's own tab: each agent's
// calls land in its space only, cross-space calls and refs are refused,
// the person takes a space over and hands it back, a tab dragged out of a
// group leaves the space, one agent's slow action does not hold up the
// others, and the spaces survive a relay kill and a service restart
// (rebuilt from the groups' titles alone).
func TestSpacesThreeAgents(t *testing.T) {
	top := t // the agents' connections live as long as the whole test
	c := startChain(t)
	base := spacePages(t)
	ctx := ctxT(t, 3*time.Minute)
	user := c.openTab(t, base+"/p?who=person").Tab // the person's own, focused tab

	agents := []*spaceAgent{{name: "alice"}, {name: "bob"}, {name: "carol"}}
	for _, a := range agents {
		a.c = dialAgent(t, c.svc, a.name)
		var r protocol.SpaceResult
		if err := a.c.Call(ctx, protocol.MethodSpacesNew, protocol.SpacesNewParams{Task: "task of " + a.name, URL: base + "/p?who=" + a.name}, &r); err != nil {
			t.Fatalf("%s: spaces.new: %v\nservice log:\n%s", a.name, err, c.svc.logs)
		}
		if r.Tab == nil || r.Space.Group <= 0 || r.Space.Agent != a.name || r.Space.Title != "🤖 "+a.name+": task of "+a.name {
			t.Fatalf("%s: spaces.new = %+v, want a grouped tab titled after the agent", a.name, r)
		}
		a.space, a.tab = r.Space.ID, r.Tab.ID
	}
	colors := map[string]bool{}
	for _, a := range agents {
		sp := mySpaces(t, ctx, a.c)
		if len(sp) != 1 || sp[0].ID != a.space || len(sp[0].Tabs) != 1 || sp[0].Tabs[0] != a.tab || !sp[0].Current {
			t.Fatalf("%s: spaces.list = %+v, want its one space %s with tab %d", a.name, sp, a.space, a.tab)
		}
		colors[sp[0].Color] = true
	}
	if len(colors) != 3 {
		t.Errorf("got colours %v, want each space its own", colors)
	}

	t.Run("calls land in the agent's own space", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for i, a := range agents {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range i + 2 { // alice 2 clicks, bob 3, carol 4: no tab named, the space's tab is the default
					if err := a.click(ctx, 0, "#b"); err != nil {
						errs <- fmt.Errorf("%s click: %w", a.name, err)
					}
				}
				if err := a.c.Call(ctx, protocol.MethodFill, protocol.FillParams{Element: "#i", Text: a.name}, nil); err != nil {
					errs <- fmt.Errorf("%s fill: %w", a.name, err)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for i, a := range agents {
			if got, want := pageText(t, ctx, c, a.tab, "document.getElementById('c').textContent"), fmt.Sprint(i+2); got != want {
				t.Errorf("%s's page counted %s clicks, want %s", a.name, got, want)
			}
			if got := pageText(t, ctx, c, a.tab, "document.getElementById('i').value"); got != a.name {
				t.Errorf("%s's input holds %q, want %q", a.name, got, a.name)
			}
		}
		if got := pageText(t, ctx, c, user, "document.getElementById('c').textContent + '|' + document.getElementById('i').value"); got != "0|" {
			t.Errorf("the person's tab was touched: %q, want 0 clicks and an empty input", got)
		}
	})

	alice, bob := agents[0], agents[1]
	t.Run("cross-space tabs and refs are refused", func(t *testing.T) {
		e := wantCode(t, alice.click(ctx, bob.tab, "#b"), protocol.CodeNotInSpace)
		if e.Data["owner"] != "bob" {
			t.Errorf("not_in_space on bob's tab: data %v, want owner bob", e.Data)
		}
		e = wantCode(t, alice.click(ctx, user, "#b"), protocol.CodeNotInSpace)
		if !strings.Contains(e.Message, "space claim") {
			t.Errorf("not_in_space on the person's tab: %q, want how to claim it", e.Message)
		}
		var snap protocol.SnapshotResult
		if err := bob.c.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{}, &snap); err != nil {
			t.Fatalf("bob snapshot: %v", err)
		}
		ref := regexp.MustCompile(`button "Go" (@\d+)`).FindStringSubmatch(snap.Text)
		if ref == nil {
			t.Fatalf("no ref for bob's button in:\n%s", snap.Text)
		}
		wantCode(t, alice.click(ctx, 0, ref[1]), protocol.CodeNotInSpace)
		wantCode(t, alice.c.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: user}, Method: "Runtime.evaluate", Params: json.RawMessage(`{"expression":"1"}`)}, nil), protocol.CodeNotInSpace)
		if got := pageText(t, ctx, c, bob.tab, "document.getElementById('c').textContent"); got != "3" {
			t.Errorf("bob's page counted %s clicks after alice's refused ones, want 3", got)
		}
	})

	t.Run("one agent's slow action does not hold up the others", func(t *testing.T) {
		done := make(chan error, 1)
		go func() {
			done <- alice.c.Call(ctx, protocol.MethodClick, protocol.ClickParams{Element: "#late", ActionOptions: protocol.ActionOptions{TimeoutMs: 60000}}, nil)
		}()
		for range 5 {
			if err := bob.click(ctx, 0, "#b"); err != nil {
				t.Fatalf("bob click while alice waits: %v", err)
			}
		}
		select {
		case err := <-done:
			t.Fatalf("alice's click on an absent element ended (%v) before it appeared", err)
		default:
		}
		pageText(t, ctx, c, alice.tab, `document.getElementById('slot').innerHTML = '<button id=late>Late</button>'`)
		if err := <-done; err != nil {
			t.Fatalf("alice's click once #late appeared: %v", err)
		}
	})

	t.Run("take over and hand back", func(t *testing.T) {
		wantCode(t, alice.c.Call(ctx, protocol.MethodSpacesTakeOver, protocol.SpaceParams{Space: alice.space}, nil), protocol.CodeInvalidRequest)
		var r protocol.SpaceResult
		if err := c.agent.Call(ctx, protocol.MethodSpacesTakeOver, protocol.SpaceParams{Space: alice.space}, &r); err != nil {
			t.Fatalf("take over: %v", err)
		}
		if r.Space.State != "person" || !strings.HasPrefix(r.Space.Title, "✋ alice") {
			t.Fatalf("taken over: %+v, want state person and a ✋ title", r.Space)
		}
		e := wantCode(t, alice.click(ctx, 0, "#b"), protocol.CodeUserInControl)
		if !strings.Contains(e.Message, "wait") {
			t.Errorf("user_in_control says %q, want it to tell the agent to wait", e.Message)
		}
		wantCode(t, alice.c.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: base + "/p?who=x"}, nil), protocol.CodeUserInControl)
		if err := bob.click(ctx, 0, "#b"); err != nil {
			t.Fatalf("bob is not paused by alice's take over: %v", err)
		}
		// The person acts in the space meanwhile.
		if err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: protocol.Target{Tab: alice.tab}, Element: "#b"}, nil); err != nil {
			t.Fatalf("the person's click in the taken-over space: %v", err)
		}
		wantCode(t, alice.c.Call(ctx, protocol.MethodSpacesWaitForControl, protocol.SpacesWaitParams{TimeoutMs: 200}, nil), protocol.CodeTimeout)
		waited := make(chan error, 1)
		go func() {
			var r protocol.SpaceResult
			err := alice.c.Call(ctx, protocol.MethodSpacesWaitForControl, protocol.SpacesWaitParams{TimeoutMs: 60000}, &r)
			if err == nil && r.Space.State != "working" {
				err = fmt.Errorf("handed back in state %q, want working", r.Space.State)
			}
			waited <- err
		}()
		if err := c.agent.Call(ctx, protocol.MethodSpacesHandBack, protocol.SpaceParams{Space: alice.space}, nil); err != nil {
			t.Fatalf("hand back: %v", err)
		}
		if err := <-waited; err != nil {
			t.Fatalf("waitForControl: %v", err)
		}
		if err := alice.click(ctx, 0, "#b"); err != nil {
			t.Fatalf("alice after the hand back: %v", err)
		}
		if got := pageText(t, ctx, c, alice.tab, "document.getElementById('c').textContent"); got != "4" {
			t.Errorf("alice's page counted %s clicks, want 4 (2 of hers, the person's, 1 after the hand back)", got)
		}
	})

	t.Run("take over and hand back from the popup", func(t *testing.T) {
		page := popupPage(t, c)
		button := func(want string) {
			t.Helper()
			expr := fmt.Sprintf(`(() => { const b = document.querySelector('#spaces-list li[data-space=%q] button'); if (!b || b.textContent !== %q || b.disabled) return false; b.click(); return true; })()`, bob.space, want)
			for {
				var res struct {
					Result struct {
						Value bool `json:"value"`
					} `json:"result"`
				}
				yes := true
				if err := page.Call(ctx, cdpruntime.CommandEvaluate, cdpruntime.EvaluateParams{Expression: expr, ReturnByValue: &yes}, &res); err != nil {
					t.Fatalf("popup: %v", err)
				}
				if res.Result.Value {
					return
				}
				if ctx.Err() != nil {
					t.Fatalf("the popup never showed %q for bob's space", want)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		button("Take over")
		for {
			err := bob.click(ctx, 0, "#b")
			if protocol.CodeOf(err) == protocol.CodeUserInControl {
				break
			}
			if err != nil || ctx.Err() != nil {
				t.Fatalf("bob's click after the popup's Take over: %v, want user_in_control", err)
			}
		}
		button("Hand back")
		var r protocol.SpaceResult
		if err := bob.c.Call(ctx, protocol.MethodSpacesWaitForControl, protocol.SpacesWaitParams{TimeoutMs: 20000}, &r); err != nil {
			t.Fatalf("bob waits for the popup's Hand back: %v", err)
		}
		if err := bob.click(ctx, 0, "#b"); err != nil {
			t.Fatalf("bob after the popup's Hand back: %v", err)
		}
	})

	t.Run("a tab the person drags out leaves the space", func(t *testing.T) {
		carol := agents[2]
		var r protocol.TabResult
		if err := carol.c.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: base + "/p?who=carol2"}, &r); err != nil {
			t.Fatalf("carol opens a second tab: %v", err)
		}
		if r.Tab.Space != carol.space {
			t.Fatalf("carol's new tab is in space %q, want %s", r.Tab.Space, carol.space)
		}
		extensionEval(t, ctx, c, fmt.Sprintf("chrome.tabs.ungroup(%d)", r.Tab.ID))
		for {
			sp := mySpaces(t, ctx, carol.c)
			if len(sp[0].Tabs) == 1 && sp[0].Tabs[0] == carol.tab {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("carol's space still has %v after the drag out", sp[0].Tabs)
			}
			time.Sleep(20 * time.Millisecond)
		}
		wantCode(t, carol.click(ctx, r.Tab.ID, "#b"), protocol.CodeNotInSpace)
		if err := carol.click(ctx, 0, "#b"); err != nil { // its default tab is the one left in its space
			t.Fatalf("carol's default tab after the drag out: %v", err)
		}
		var claimed protocol.SpaceResult
		if err := carol.c.Call(ctx, protocol.MethodSpacesClaim, protocol.SpacesClaimParams{Target: protocol.Target{Tab: r.Tab.ID}}, &claimed); err != nil {
			t.Fatalf("claim it back: %v", err)
		}
		if len(claimed.Space.Tabs) != 2 {
			t.Fatalf("after the claim carol's space has tabs %v, want 2", claimed.Space.Tabs)
		}
		wantCode(t, alice.c.Call(ctx, protocol.MethodSpacesClaim, protocol.SpacesClaimParams{Target: protocol.Target{Tab: carol.tab}}, nil), protocol.CodeNotInSpace)
	})

	before := map[string][]int{}
	for _, a := range agents {
		before[a.name] = mySpaces(t, ctx, a.c)[0].Tabs
	}
	b := c.waitLink(t)
	t.Run("spaces survive a relay kill", func(t *testing.T) {
		relay, err := os.FindProcess(b.RelayPID)
		if err != nil {
			t.Fatal(err)
		}
		if err := relay.Kill(); err != nil {
			t.Fatalf("kill relay %d: %v", b.RelayPID, err)
		}
		for {
			if after := c.waitLink(t); after.RelayPID != b.RelayPID {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		for _, a := range agents {
			if err := a.click(ctx, 0, "#b"); err != nil {
				t.Fatalf("%s after the relay kill: %v\nservice log:\n%s", a.name, err, c.svc.logs)
			}
			if got := mySpaces(t, ctx, a.c)[0].Tabs; fmt.Sprint(got) != fmt.Sprint(before[a.name]) {
				t.Errorf("%s's space after the relay kill has tabs %v, want %v", a.name, got, before[a.name])
			}
		}
		wantCode(t, alice.click(ctx, bob.tab, "#b"), protocol.CodeNotInSpace)
	})

	t.Run("spaces survive a service restart, rebuilt from the groups", func(t *testing.T) {
		c.svc.stop()
		// Without the state file the groups' titles are the only record.
		if err := os.Remove(filepath.Join(c.svc.stateDir, "spaces.json")); err != nil {
			t.Fatal(err)
		}
		c.svc = startService(top, c.svc.stateDir)
		c.agent = c.svc.dial(top)
		c.waitLink(t)
		for _, a := range agents {
			a.c = dialAgent(top, c.svc, a.name)
			sp := mySpaces(t, ctx, a.c)
			if len(sp) != 1 || fmt.Sprint(sp[0].Tabs) != fmt.Sprint(before[a.name]) || sp[0].Task != "task of "+a.name {
				t.Fatalf("%s's spaces after the restart: %+v, want one with tabs %v", a.name, sp, before[a.name])
			}
			if err := a.c.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: protocol.Target{Tab: a.tab}, Element: "#b"}, nil); err != nil {
				t.Fatalf("%s after the restart: %v\nservice log:\n%s", a.name, err, c.svc.logs)
			}
		}
		wantCode(t, alice.click(ctx, bob.tab, "#b"), protocol.CodeNotInSpace)
		wantCode(t, bob.click(ctx, user, "#b"), protocol.CodeNotInSpace)
	})

	t.Run("complete keeps or closes the tabs", func(t *testing.T) {
		var kept protocol.SpacesCompleteResult
		if err := alice.c.Call(ctx, protocol.MethodSpacesComplete, protocol.SpacesCompleteParams{Keep: true}, &kept); err != nil {
			t.Fatalf("complete --keep: %v", err)
		}
		if len(kept.Kept) != 1 || len(kept.Closed) != 0 {
			t.Fatalf("complete --keep: %+v, want alice's tab kept", kept)
		}
		if got := pageText(t, ctx, c, alice.tab, "document.title"); got != "alice" {
			t.Fatalf("alice's kept tab: title %q", got)
		}
		wantCode(t, alice.click(ctx, alice.tab, "#b"), protocol.CodeNotInSpace) // the person's now
		var closed protocol.SpacesCompleteResult
		if err := bob.c.Call(ctx, protocol.MethodSpacesClose, protocol.SpaceParams{}, &closed); err != nil {
			t.Fatalf("close: %v", err)
		}
		var tabs protocol.TabsListResult
		if err := c.agent.Call(ctx, protocol.MethodTabsList, nil, &tabs); err != nil {
			t.Fatal(err)
		}
		for _, tab := range tabs.Tabs {
			if tab.ID == bob.tab {
				t.Fatalf("bob's tab %d is still open after spaces.close", bob.tab)
			}
		}
	})
}

// Two callers typing into one input of one tab at once: the tab's action
// lock keeps each type whole, never interleaving their keys.
func TestSpacesSameTabActionsDoNotInterleave(t *testing.T) {
	c := startChain(t)
	base := spacePages(t)
	tab := c.openTab(t, base+"/p?who=shared").Tab
	ctx := ctxT(t, time.Minute)
	other := c.svc.dial(t)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, ag := range []struct {
		c    *client.Client
		text string
	}{{c.agent, "aaaaaaaaaa"}, {other, "bbbbbbbbbb"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- ag.c.Call(ctx, protocol.MethodType, protocol.TypeParams{Target: protocol.Target{Tab: tab}, Element: "#i", Text: ag.text, DelayMs: 15}, nil)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := pageText(t, ctx, c, tab, "document.getElementById('i').value")
	if !regexp.MustCompile(`^(a{10}b{10}|b{10}a{10})$`).MatchString(got) {
		t.Fatalf("input holds %q: the two types interleaved, want one after the other", got)
	}
}

// extensionEval runs an expression in the extension's service worker, as
// the person's own actions in Chrome would (drag a tab out of a group).
func extensionEval(t testing.TB, ctx context.Context, c *chain, expr string) {
	t.Helper()
	var targets target.GetTargetsResult
	if err := c.direct.Browser().Call(ctx, target.CommandGetTargets, target.GetTargetsParams{}, &targets); err != nil {
		t.Fatalf("Target.getTargets: %v", err)
	}
	for _, ti := range targets.TargetInfos {
		if ti.Type != "service_worker" || !strings.HasPrefix(ti.URL, "chrome-extension://"+extension.ID+"/") {
			continue
		}
		sess, err := c.direct.Attach(ctx, ti.TargetID)
		if err != nil {
			t.Fatalf("attach to the extension's worker: %v", err)
		}
		yes := true
		var res struct {
			ExceptionDetails *struct {
				Text string `json:"text"`
			} `json:"exceptionDetails"`
		}
		if err := sess.Call(ctx, cdpruntime.CommandEvaluate, cdpruntime.EvaluateParams{Expression: expr, AwaitPromise: &yes}, &res); err != nil {
			t.Fatalf("evaluate %q in the extension: %v", expr, err)
		}
		if res.ExceptionDetails != nil {
			t.Fatalf("evaluate %q in the extension threw: %s", expr, res.ExceptionDetails.Text)
		}
		return
	}
	t.Fatal("the extension's service worker is not among the browser's targets")
}
