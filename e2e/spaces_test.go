package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/client"
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
		waitTitle(t, ctx, c, "✋ alice: task of alice") // in Chrome, for the person to see
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
		waitTitle(t, ctx, c, "🤖 alice: task of alice")
		if got := pageText(t, ctx, c, alice.tab, "document.getElementById('c').textContent"); got != "4" {
			t.Errorf("alice's page counted %s clicks, want 4 (2 of hers, the person's, 1 after the hand back)", got)
		}
	})

	t.Run("take over and hand back from the popup", func(t *testing.T) {
		page := popupPage(t, c)
		button := func(want string) {
			t.Helper()
			expr := fmt.Sprintf(`(() => { const b = document.querySelector('#agents-list li[data-space=%q] button.space-toggle'); if (!b || b.textContent !== %q || b.disabled) return false; b.click(); return true; })()`, bob.space, want)
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
		killRelay(t, b)
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
		if tabOpen(ctx, t, c, bob.tab) {
			t.Fatalf("bob's tab %d is still open after spaces.close", bob.tab)
		}
	})
}

// Two callers typing into one input of one tab at once: the tab's action
// lock keeps each type whole, never interleaving their keys.
func TestSpacesSameTabActionsDoNotInterleave(t *testing.T) {
	c := useSharedChain(t)
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
// the person's own actions in Chrome would (drag a tab out of a group),
// and returns its value as JSON.
func extensionEval(t testing.TB, ctx context.Context, c *chain, expr string) json.RawMessage {
	t.Helper()
	sess, err := c.direct.Attach(ctx, workerTarget(ctx, t, c.direct))
	if err != nil {
		t.Fatalf("attach to the extension's worker: %v", err)
	}
	// One session per look (waitTitle looks every 50 ms): on the
	// shared chain, left attached, they would pile up on its worker.
	defer cdp.Call(ctx, c.direct.Browser(), target.DetachFromTarget, target.DetachFromTargetParams{SessionID: sess.ID()})
	yes := true
	var res evalReply
	if err := sess.Call(ctx, cdpruntime.CommandEvaluate, cdpruntime.EvaluateParams{Expression: expr, AwaitPromise: &yes, ReturnByValue: &yes}, &res); err != nil {
		t.Fatalf("evaluate %q in the extension: %v", expr, err)
	}
	if res.ExceptionDetails != nil {
		t.Fatalf("evaluate %q in the extension threw: %s", expr, res.ExceptionDetails.Text)
	}
	return res.Result.Value
}

// groupTitles returns the titles of the browser's tab groups, as Chrome has them.
func groupTitles(t testing.TB, ctx context.Context, c *chain) []string {
	t.Helper()
	var titles []string
	raw := extensionEval(t, ctx, c, "chrome.tabGroups.query({}).then((gs) => gs.map((g) => g.title))")
	if err := json.Unmarshal(raw, &titles); err != nil {
		t.Fatalf("group titles %s: %v", raw, err)
	}
	return titles
}

// waitTitle waits until Chrome has a tab group titled want.
func waitTitle(t testing.TB, ctx context.Context, c *chain, want string) {
	t.Helper()
	for {
		titles := groupTitles(t, ctx, c)
		if slices.Contains(titles, want) {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("no tab group titled %q in Chrome; the groups: %q", want, titles)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cliAs runs the egohost binary as an agent (EGOHOST_AGENT; "" = the person).
func cliAs(c *chain, agent string, args ...string) (stdout, stderr string, code int) {
	return runEgohost(append(chainEnv(c.svc.stateDir), "EGOHOST_AGENT="+agent), nil, args...)
}

// CLI calls with the same agent name share one session (its space, its
// default tab), other names and the person see it as theirs or not; and
// `egohost mcp` is an agent named after its MCP client.
func TestSpacesCLIAndMCP(t *testing.T) {
	c := useSharedChain(t)
	base := spacePages(t)
	ctx := ctxT(t, 2*time.Minute)
	user := c.openTab(t, base+"/p?who=person").Tab

	if out, errb, code := cliAs(c, "dave", "open", base+"/p?who=dave"); code != 0 {
		t.Fatalf("dave open: exit %d\n%s%s", code, out, errb)
	}
	for range 2 { // separate processes, one session: the default tab is dave's
		if out, errb, code := cliAs(c, "dave", "click", "#b"); code != 0 {
			t.Fatalf("dave click: exit %d\n%s%s", code, out, errb)
		}
	}
	var list protocol.SpacesListResult // dave's, as the person sees them (the shared chain may have others')
	if err := c.agent.Call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{Agent: "dave"}, &list); err != nil || len(list.Spaces) != 1 || list.Spaces[0].Agent != "dave" || len(list.Spaces[0].Tabs) != 1 {
		t.Fatalf("spaces after dave's CLI calls: %+v, %v; want dave's one space with one tab", list, err)
	}
	dave := list.Spaces[0]
	if got := pageText(t, ctx, c, dave.Tabs[0], "document.getElementById('c').textContent"); got != "2" {
		t.Errorf("dave's page counted %s clicks, want 2", got)
	}
	// Dave's CLI processes have ended: his group is marked idle in Chrome
	// (after a few seconds without a connection), his tabs stay.
	waitTitle(t, ctx, c, "💤 dave")
	if got := pageText(t, ctx, c, user, "document.getElementById('c').textContent"); got != "0" {
		t.Errorf("the person's tab counted %s clicks, want 0", got)
	}
	if out, errb, code := cliAs(c, "erin", "click", "#b", "--tab", itoa(dave.Tabs[0])); code == 0 || !strings.Contains(errb, "not_in_space") {
		t.Errorf("erin clicking dave's tab: exit %d, stderr %q; want not_in_space\n%s", code, errb, out)
	}
	if _, errb, code := cliAs(c, "bad name", "click", "#b"); code != 2 || !strings.Contains(errb, "agent name") {
		t.Errorf("--agent 'bad name': exit %d, stderr %q; want a usage error naming the agent name", code, errb)
	}
	if out, errb, code := cliAs(c, "", "space"); code != 0 || !strings.Contains(out, "💤 dave") {
		t.Errorf("the person's `egohost space`: exit %d, %q%s; want dave's space", code, out, errb)
	}
	if out, errb, code := cliAs(c, "", "space", "take-over", dave.ID); code != 0 {
		t.Fatalf("take-over: exit %d\n%s%s", code, out, errb)
	}
	waitTitle(t, ctx, c, "✋ dave")
	if _, errb, code := cliAs(c, "dave", "click", "#b"); code == 0 || !strings.Contains(errb, "user_in_control") {
		t.Errorf("dave while the person has his space: exit %d, %q; want user_in_control", code, errb)
	}
	if out, errb, code := cliAs(c, "", "space", "hand-back", dave.ID); code != 0 {
		t.Fatalf("hand-back: exit %d\n%s%s", code, out, errb)
	}
	if out, errb, code := cliAs(c, "dave", "space", "wait", "--timeout", "5s"); code != 0 || !strings.Contains(out, "working") {
		t.Errorf("dave's space wait after the hand back: exit %d, %q%s", code, out, errb)
	}
	waitTitle(t, ctx, c, "🤖 dave")

	// egohost mcp pairs itself as an agent named after the MCP client
	// ("e2e"); with --owner too, the agent is named after the client.
	// Either way its first navigate opens its own space, away from the
	// person's tab.
	for _, tt := range []struct {
		agent string
		args  []string
	}{{"e2e", nil}, {"e2e-owner", []string{"--owner"}}} {
		cs, logs := startMCPAs(t, c.svc.stateDir, tt.agent, tt.args...)
		r := callTool(t, cs, "browser_navigate", map[string]any{"url": base + "/p?who=" + tt.agent})
		if r.isErr {
			t.Fatalf("%s: browser_navigate: %s\n%s", tt.agent, r.text, logs)
		}
		var sl protocol.SpacesListResult
		if err := c.agent.Call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{Agent: tt.agent}, &sl); err != nil || len(sl.Spaces) != 1 || len(sl.Spaces[0].Tabs) != 1 {
			t.Fatalf("the MCP agent %s's spaces: %+v, %v; want one with its tab", tt.agent, sl, err)
		}
		if got := pageText(t, ctx, c, sl.Spaces[0].Tabs[0], "document.title"); got != tt.agent {
			t.Errorf("the MCP agent %s's tab shows %q, want the page it navigated to", tt.agent, got)
		}
		if got := pageText(t, ctx, c, user, "document.title"); got != "person" {
			t.Errorf("the person's tab shows %q after the MCP navigate, want it untouched", got)
		}
	}
}
