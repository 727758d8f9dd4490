package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

// Issue 22, the attacks on the audit log, the pairing and the person's
// control, through the real chain: the real `egohost serve`, the real CLI,
// and (for take over) real Chromium with the real extension.

// waitNotice reads agent's notifications until match accepts one, and
// returns every notification read (the match last).
func waitNotice(t *testing.T, ctx context.Context, agent *client.Client, what string, match func(protocol.Message) bool) []protocol.Message {
	t.Helper()
	var seen []protocol.Message
	for {
		select {
		case <-ctx.Done():
			t.Fatalf("no %s before the deadline (read %d notifications)", what, len(seen))
		case m, ok := <-agent.Notifications():
			if !ok {
				t.Fatalf("the agent's connection closed while waiting for %s", what)
			}
			seen = append(seen, m)
			if match(m) {
				return seen
			}
		}
	}
}

func consoleEvent(sub, text string) func(protocol.Message) bool {
	return func(m protocol.Message) bool {
		var ev protocol.CDPEvent
		return m.Method == protocol.NotifyCDPEvent && json.Unmarshal(m.Params, &ev) == nil &&
			ev.Subscription == sub && strings.Contains(string(ev.Params), text)
	}
}

// Item 10: when the person takes a space over, the agent's call in flight
// there ends with user_in_control, its cdp.subscribe subscription on the
// space's tab ends with a notice, and nothing the person does there
// reaches the agent: no event, and no console line in console.list after
// the space is handed back.
func TestTakeOverStopsTheAgentsStreams(t *testing.T) {
	c := useSharedChain(t)
	// The page logs the time every 20 ms, whoever holds the tab.
	base := serve(t, map[string]string{"/": `<title>stream</title><p>the agent's page</p>
<script>setInterval(() => console.log("tick " + Date.now()), 20)</script>`})
	ctx := ctxT(t, 150*time.Second)
	bot := dialToken(t, c, pairDirect(t, c, "bot", "space", "cdp"))

	var opened protocol.TabResult
	if err := bot.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: base + "/"}, &opened); err != nil {
		t.Fatal(err)
	}
	tab, space := protocol.Target{Tab: opened.Tab.ID}, opened.Tab.Space
	if space == "" {
		t.Fatalf("the agent's tab is in no space: %+v", opened.Tab)
	}
	// Its console is recorded (console.list opens the page), and it
	// subscribes to the console events.
	if err := bot.Call(ctx, protocol.MethodConsoleList, protocol.ConsoleListParams{Target: tab}, nil); err != nil {
		t.Fatal(err)
	}
	subscribe := func() string {
		t.Helper()
		var sub protocol.CDPSubscribeResult
		if err := bot.Call(ctx, protocol.MethodCDPSubscribe, protocol.CDPSubscribeParams{Target: tab, Methods: []string{"Runtime.consoleAPICalled"}}, &sub); err != nil {
			t.Fatal(err)
		}
		if err := bot.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "Runtime.enable"}, nil); err != nil {
			t.Fatal(err)
		}
		return sub.Subscription
	}
	sub := subscribe()
	if _, err := evalWith(ctx, bot, tab, `console.log("agent before"), 1`); err != nil {
		t.Fatal(err)
	}
	waitNotice(t, ctx, bot, "the agent's own console event", consoleEvent(sub, "agent before"))
	// What its raw CDP sets on the tab's debugger session: the person is
	// not to find it there once they take the space over.
	agentOverrides(t, ctx, c, bot, tab)

	// A call in flight on the space: an eval that waits 40 s, started for
	// sure (the page says so) before the person takes over.
	inFlight := make(chan error, 1)
	go func() {
		inFlight <- bot.Call(ctx, protocol.MethodEval, protocol.EvalParams{Target: tab, TimeoutMs: 60000,
			Expression: `new Promise(r => { window.waiting = true; setTimeout(() => r("finished"), 40000) })`}, nil)
	}()
	for pageText(t, ctx, c, tab.Tab, `String(window.waiting === true)`) != "true" {
		time.Sleep(20 * time.Millisecond)
	}

	if out, errOut, code := cliAs(c, "", "space", "take-over", space); code != 0 {
		t.Fatalf("egohost space take-over %s: %d %s %s", space, code, out, errOut)
	}
	tookOver := time.Now()
	wantCode(t, wantCut(t, inFlight, "the agent's eval in flight (timeoutMs 60000, within the 30 s request deadline)", "`egohost space take-over`"), protocol.CodeUserInControl)
	var ended protocol.SubscriptionEnded
	waitNotice(t, ctx, bot, "cdp.subscriptionEnded for the taken space", func(m protocol.Message) bool {
		return m.Method == protocol.NotifySubscriptionEnded && json.Unmarshal(m.Params, &ended) == nil && ended.Subscription == sub
	})
	if ended.Reason != "user_in_control" || ended.Tab != tab.Tab {
		t.Errorf("the notice: got %+v, want reason user_in_control for tab %d", ended, tab.Tab)
	}

	// The person gets the tab as the browser shows it without the agent.
	if got := pageText(t, ctx, c, tab.Tab, overridden); got == agentView {
		t.Errorf("the person's view of the taken tab: got %q, the agent's overrides", got)
	}
	// The person works in the taken space; the agent is refused there.
	if _, err := c.eval(ctx, tab, `console.log("person secret"), 1`); err != nil {
		t.Fatalf("the person's eval in the taken space: %v", err)
	}
	wantCode(t, bot.Call(ctx, protocol.MethodConsoleList, protocol.ConsoleListParams{Target: tab}, nil), protocol.CodeUserInControl)
	time.Sleep(200 * time.Millisecond) // the page logs while the person has it
	handedBack := time.Now()
	if out, errOut, code := cliAs(c, "", "space", "hand-back", space); code != 0 {
		t.Fatalf("egohost space hand-back %s: %d %s %s", space, code, out, errOut)
	}

	// Back with the agent: what it sees of the console is its own.
	var cl protocol.ConsoleListResult
	if err := bot.Call(ctx, protocol.MethodConsoleList, protocol.ConsoleListParams{Target: tab}, &cl); err != nil {
		t.Fatal(err)
	}
	var texts []string
	ticksBefore := 0
	for _, m := range cl.Messages {
		var ms int64
		if _, err := fmt.Sscanf(m.Text, "tick %d", &ms); err != nil {
			texts = append(texts, m.Text)
			continue
		}
		// The ticks Chrome replays when egohost attaches again (the take
		// over detached it: the agent's raw CDP had reached the tab): the
		// agent's from before, none of the person's time.
		switch at := time.UnixMilli(ms); {
		case !at.Before(tookOver) && !at.After(handedBack):
			t.Errorf("console.list after hand back has a line the page logged while the person had the tab: %q (taken %v, handed back %v)", m.Text, tookOver, handedBack)
		case at.Before(tookOver):
			ticksBefore++
		}
	}
	if ticksBefore == 0 {
		t.Errorf("console.list after hand back has no line from before the take over (%d lines)", len(cl.Messages))
	}
	if all := strings.Join(texts, "|"); strings.Contains(all, "person secret") || !strings.Contains(all, "agent before") {
		t.Errorf("console.list after hand back: %q, want the agent's line and not the person's", all)
	}
	sub2 := subscribe()
	if _, err := evalWith(ctx, bot, tab, `console.log("agent after"), 1`); err != nil {
		t.Fatal(err)
	}
	for _, m := range waitNotice(t, ctx, bot, "the agent's event after hand back", consoleEvent(sub2, "agent after")) {
		if strings.Contains(string(m.Params), "person secret") {
			t.Errorf("the person's console line reached the agent: %s %s", m.Method, m.Params)
		}
	}
}

// overridden reads what agentOverrides sets: the user agent and the
// viewport's width.
const overridden, agentView = `navigator.userAgent + " " + innerWidth`, "agent-ua/1 412"

// agentOverrides has agent set, through its raw CDP on tab, a user agent
// and a phone's viewport, and waits until the page shows them.
func agentOverrides(t *testing.T, ctx context.Context, c *chain, agent *client.Client, tab protocol.Target) {
	t.Helper()
	for method, params := range map[string]string{
		"Emulation.setUserAgentOverride":     `{"userAgent":"agent-ua/1"}`,
		"Emulation.setDeviceMetricsOverride": `{"width":412,"height":640,"deviceScaleFactor":1,"mobile":false}`,
	} {
		if err := agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: method, Params: json.RawMessage(params)}, nil); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	for got := ""; got != agentView; got = pageText(t, ctx, c, tab.Tab, overridden) {
		time.Sleep(20 * time.Millisecond)
	}
}

// A space's tab the person drags out of the group, and a space completed
// with keep, leave the tabs to the person without what the agent's raw
// CDP set on them; closing the agent's connection alone does not end it
// (the agent may come back: a CLI call is a connection). Revoking an agent
// with all-tabs ends what it set on the person's own tab.
func TestKeptSpaceLosesTheAgentsOverrides(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>kept</title><p>the agent's page</p>`})
	ctx := ctxT(t, 60*time.Second)
	tok := pairDirect(t, c, "keeper-bot", "space", "cdp")
	bot := dialToken(t, c, tok)
	var opened protocol.TabResult
	if err := bot.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: base + "/"}, &opened); err != nil {
		t.Fatal(err)
	}
	tab := protocol.Target{Tab: opened.Tab.ID}
	agentOverrides(t, ctx, c, bot, tab)
	// What the detach would not end is not the agent's to set.
	for method, params := range map[string]string{
		"Emulation.setVirtualTimePolicy": `{"policy":"pause"}`,
		"Page.setWebLifecycleState":      `{"state":"frozen"}`,
		"Page.setFontFamilies":           `{"fontFamilies":{"serif":"monospace"}}`,
		"Page.setFontSizes":              `{"fontSizes":{"standard":40}}`,
	} {
		wantCode(t, bot.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: method, Params: json.RawMessage(params)}, nil), protocol.CodeScopeDenied)
	}
	bot.Close()
	again := dialToken(t, c, tok)
	if got := pageText(t, ctx, c, tab.Tab, overridden); got != agentView {
		t.Errorf("after the agent's connection closed: got %q, want its overrides still (%q)", got, agentView)
	}
	var done protocol.SpacesCompleteResult
	if err := again.Call(ctx, protocol.MethodSpacesComplete, protocol.SpacesCompleteParams{Keep: true}, &done); err != nil {
		t.Fatal(err)
	}
	if len(done.Kept) != 1 || done.Kept[0] != tab.Tab {
		t.Fatalf("kept: got %v, want [%d]", done.Kept, tab.Tab)
	}
	if got := pageText(t, ctx, c, tab.Tab, overridden); got == agentView {
		t.Errorf("the person's view of the kept tab: got %q, the agent's overrides", got)
	}
	if err := c.agent.Call(ctx, protocol.MethodTabsClose, protocol.TabParams{Target: tab}, nil); err != nil {
		t.Error(err)
	}

	// A new space; the person drags its tab out of the group (the detach
	// follows Chrome's report of the move: wait for it).
	if err := again.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: base + "/"}, &opened); err != nil {
		t.Fatal(err)
	}
	tab = protocol.Target{Tab: opened.Tab.ID}
	agentOverrides(t, ctx, c, again, tab)
	extensionEval(t, ctx, c, fmt.Sprintf("chrome.tabs.ungroup(%d)", tab.Tab))
	for got := agentView; got == agentView; got = pageText(t, ctx, c, tab.Tab, overridden) {
		if ctx.Err() != nil {
			t.Fatalf("the person's view of the tab dragged out of the space: still %q, the agent's overrides", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	wantCode(t, again.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab}, nil), protocol.CodeNotInSpace)
	if err := c.agent.Call(ctx, protocol.MethodTabsClose, protocol.TabParams{Target: tab}, nil); err != nil {
		t.Error(err)
	}

	// An agent with all-tabs, on the person's own tab; then revoked.
	roamer := dialToken(t, c, pairDirect(t, c, "roamer-bot", "all-tabs", "cdp"))
	mine := c.openTab(t, base+"/")
	agentOverrides(t, ctx, c, roamer, mine)
	out, errOut, code := cliAs(c, "", "agents", "revoke", "roamer-bot")
	if code != 0 {
		t.Fatalf("egohost agents revoke: %d %s %s", code, out, errOut)
	}
	// Its raw CDP ran in the page too, which the revocation does not end:
	// the answer says to reload it.
	if want := fmt.Sprintf("! tab %d of %s: an agent ran its own script in this page", mine.Tab, c.waitLink(t).ID); !strings.Contains(out, want) {
		t.Errorf("egohost agents revoke says:\n%s\nwant a line %q…", out, want)
	}
	if got := pageText(t, ctx, c, mine.Tab, overridden); got == agentView {
		t.Errorf("the person's own tab after the agent was revoked: got %q, its overrides", got)
	}
	if err := c.agent.Call(ctx, protocol.MethodTabsClose, protocol.TabParams{Target: mine}, nil); err != nil {
		t.Error(err)
	}
}

// An agent that ran its own script in a page can read what the person
// types there after a take over (a key listener outlives the agent's
// call): the take over says which tabs (the CLI, spaces.list), a reload
// makes the page the site's own again, and a tab whose page the agent only
// acted on is not named. Tabs left to the person with keep: the group's
// title says to reload.
func TestTakeOverSaysTheAgentScriptedThePage(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>sign in</title><input id="pw" type="password" aria-label="Password">`})
	ctx := ctxT(t, 60*time.Second)
	bot := dialToken(t, c, pairDirect(t, c, "keys-bot", "space", "cdp"))
	var scripted, acted protocol.TabResult
	for _, r := range []*protocol.TabResult{&scripted, &acted} {
		if err := bot.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: base + "/"}, r); err != nil {
			t.Fatal(err)
		}
	}
	space := scripted.Tab.Space
	if acted.Tab.Space != space {
		t.Fatalf("the agent's tabs are in spaces %q and %q, want one", space, acted.Tab.Space)
	}
	if err := bot.Call(ctx, protocol.MethodFill, protocol.FillParams{Target: protocol.Target{Tab: acted.Tab.ID}, Element: "#pw", Text: "agent's"}, nil); err != nil {
		t.Fatal(err)
	}
	// The agent's key listener: every key typed in the page, kept for it.
	if err := bot.Call(ctx, protocol.MethodEval, protocol.EvalParams{Target: protocol.Target{Tab: scripted.Tab.ID},
		Expression: `document.addEventListener("keydown", (e) => { window.keys = (window.keys ?? "") + e.key }, true), 1`}, nil); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := cliAs(c, "", "space", "take-over", space)
	if code != 0 {
		t.Fatalf("egohost space take-over %s: %d %s %s", space, code, out, errOut)
	}
	warning := fmt.Sprintf("! tab %d: keys-bot ran its own script in this page", scripted.Tab.ID)
	if !strings.Contains(out, warning) || strings.Contains(out, fmt.Sprintf("! tab %d:", acted.Tab.ID)) {
		t.Errorf("egohost space take-over says:\n%s\nwant %q, and nothing of tab %d", out, warning, acted.Tab.ID)
	}
	scriptedTabs := func() []int { return personSpace(t, ctx, c, space).Scripted }
	if got := scriptedTabs(); !slices.Equal(got, []int{scripted.Tab.ID}) {
		t.Errorf("spaces.list to the person: scripted %v, want [%d]", got, scripted.Tab.ID)
	}
	// The person reloads, then types a password: the page is the site's.
	if out, errOut, code := cliAs(c, "", "reload", "--tab", fmt.Sprint(scripted.Tab.ID)); code != 0 {
		t.Fatalf("egohost reload: %d %s %s", code, out, errOut)
	}
	if got := scriptedTabs(); len(got) != 0 {
		t.Errorf("after the reload: scripted %v, want none", got)
	}
	if out, errOut, code := cliAs(c, "", "type", "--tab", fmt.Sprint(scripted.Tab.ID), "#pw", "hunter2"); code != 0 {
		t.Fatalf("egohost type: %d %s %s", code, out, errOut)
	}
	if got := pageText(t, ctx, c, scripted.Tab.ID, `String(window.keys) + " " + document.querySelector("#pw").value`); got != "undefined hunter2" {
		t.Errorf("after the reload the person typed: got %q, want no keys kept and the password in the field", got)
	}
	if out, errOut, code := cliAs(c, "", "space", "hand-back", space); code != 0 {
		t.Fatalf("egohost space hand-back %s: %d %s %s", space, code, out, errOut)
	}
	// The agent scripts the page again, then leaves its tabs to the
	// person: the group's title, in the tab strip, says to reload.
	if err := bot.Call(ctx, protocol.MethodEval, protocol.EvalParams{Target: protocol.Target{Tab: scripted.Tab.ID}, Expression: "document.title"}, nil); err != nil {
		t.Fatal(err)
	}
	var done protocol.SpacesCompleteResult
	if err := bot.Call(ctx, protocol.MethodSpacesComplete, protocol.SpacesCompleteParams{Space: space, Keep: true}, &done); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(done.Scripted, []int{scripted.Tab.ID}) {
		t.Errorf("spaces.complete with keep: scripted %v, want [%d]", done.Scripted, scripted.Tab.ID)
	}
	waitTitle(t, ctx, c, "✅ keys-bot ⚠ reload before typing")
	for _, tab := range []int{scripted.Tab.ID, acted.Tab.ID} {
		if err := c.agent.Call(ctx, protocol.MethodTabsClose, protocol.TabParams{Target: protocol.Target{Tab: tab}}, nil); err != nil {
			t.Error(err)
		}
	}
}

// personSpace is the space id as the person's spaces.list shows it.
func personSpace(t *testing.T, ctx context.Context, c *chain, id string) protocol.Space {
	t.Helper()
	var list protocol.SpacesListResult
	if err := c.agent.Call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{}, &list); err != nil {
		t.Fatal(err)
	}
	for _, sp := range list.Spaces {
		if sp.ID == id {
			return sp
		}
	}
	t.Fatalf("space %s is not in the person's spaces.list", id)
	return protocol.Space{}
}

// A window the agent's script opened on the page's origin holds its
// opener, and scripts it back: after the person reloads the page the
// agent scripted, the window puts the agent's key listener into the new
// document (a reload alone is not enough: shown below, the key typed
// after it is read). The take over names that window to close first,
// whichever way it was opened (Chrome names no opener for a window.open
// with no URL: the service pairs the page's announcement with the tab);
// the warning stays through a reload alone, and once the window is
// closed, a reload gives the site's own page.
func TestTakeOverSaysWhichTabToCloseBeforeTheReload(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{
		"/":       `<title>sign in</title><input id="pw" type="password" aria-label="Password"><button id="go">open</button>`,
		"/helper": `<title>helper</title><p>helper</p>`,
	})
	for _, way := range []struct {
		name, open string
		loads      bool // the window loads a page: its script goes in after the load
		typed      bool // the keys typed are checked too
	}{
		{"a named window", `window.open("/helper", "helper")`, true, true},
		{"a window with no address", `window.open()`, false, false},
		{"a popup", `window.open("/helper", "pop", "popup")`, true, false},
	} {
		t.Run(way.name, func(t *testing.T) {
			ctx := ctxT(t, 60*time.Second)
			bot := dialToken(t, c, pairDirect(t, c, "opener-bot", "space", "cdp"))
			var page protocol.TabResult
			if err := bot.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: base + "/"}, &page); err != nil {
				t.Fatal(err)
			}
			tab, space := page.Tab.ID, page.Tab.Space
			// The agent's script: the button opens a window on the same
			// origin, and a script of the window's own document hooks
			// every document its opener shows from then on.
			hook := `document.querySelector("#go").onclick = () => {
  const w = ` + way.open + `;
  const hook = () => {
    const s = w.document.createElement("script");
    s.textContent = 'setInterval(() => { try { const d = opener.document; if (!d.hooked) { d.hooked = "yes"; d.addEventListener("keydown", (e) => { opener.keys = (opener.keys ?? "") + e.key }, true) } } catch {} }, 20)';
    w.document.body.append(s);
  };
  if (` + fmt.Sprint(way.loads) + `) w.addEventListener("load", hook); else hook();
}, 1`
			if err := bot.Call(ctx, protocol.MethodEval, protocol.EvalParams{Target: protocol.Target{Tab: tab}, Expression: hook}, nil); err != nil {
				t.Fatal(err)
			}
			var clicked protocol.ActionResult
			if err := bot.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: protocol.Target{Tab: tab}, Element: "#go"}, &clicked); err != nil {
				t.Fatal(err)
			}
			// The window: the tab the click's answer names, else the one
			// Chrome says this tab opened (an answer that came before the
			// window did).
			helper := 0
			if err := waitUntil(ctx, 5*time.Second, func() error {
				if len(clicked.Opened) == 1 {
					helper = clicked.Opened[0].ID
					return nil
				}
				var list protocol.TabsListResult
				if err := c.agent.Call(ctx, protocol.MethodTabsList, nil, &list); err != nil {
					return err
				}
				for _, o := range list.Tabs {
					if o.OpenerTabID == tab {
						helper = o.ID
						return nil
					}
				}
				return fmt.Errorf("the click opened %v, and no tab's opener is tab %d", clicked.Opened, tab)
			}); err != nil {
				t.Fatal(err)
			}
			hooked := func() {
				t.Helper()
				if err := waitUntil(ctx, 10*time.Second, func() error {
					v, err := c.eval(ctx, protocol.Target{Tab: tab}, "String(document.hooked)")
					if err != nil {
						return err // a document on its way: try again
					}
					if string(v) != `"yes"` {
						return fmt.Errorf("document.hooked is %s", v)
					}
					return nil
				}); err != nil {
					t.Fatalf("the helper window did not hook tab %d: %v", tab, err)
				}
			}
			hooked()
			advice := func() [2][]int {
				sp := personSpace(t, ctx, c, space)
				return [2][]int{sp.Scripted, sp.CloseFirst}
			}
			out, errOut, code := cliAs(c, "", "space", "take-over", space)
			if code != 0 {
				t.Fatalf("egohost space take-over %s: %d %s %s", space, code, out, errOut)
			}
			for _, want := range []string{
				fmt.Sprintf("! tab %d: a page opener-bot's script ran in opened this one, or was opened by it, so the script may run here too and put itself back into that page after a reload: close this tab first (egohost close --tab %d)", helper, helper),
				fmt.Sprintf("! tab %d: opener-bot ran its own script in this page", tab),
			} {
				if !strings.Contains(out, want) {
					t.Errorf("egohost space take-over says:\n%s\nwant %q", out, want)
				}
			}
			want := [2][]int{{tab}, {helper}}
			if got := advice(); !reflect.DeepEqual(got, want) {
				t.Errorf("spaces.list to the person: scripted, close first %v, want %v", got, want)
			}
			reload := func() {
				t.Helper()
				if out, errOut, code := cliAs(c, "", "reload", "--tab", fmt.Sprint(tab)); code != 0 {
					t.Fatalf("egohost reload: %d %s %s", code, out, errOut)
				}
			}
			typed := func(text string) string {
				t.Helper()
				if out, errOut, code := cliAs(c, "", "type", "--tab", fmt.Sprint(tab), "#pw", text); code != 0 {
					t.Fatalf("egohost type: %d %s %s", code, out, errOut)
				}
				return pageText(t, ctx, c, tab, `String(window.keys) + " " + document.querySelector("#pw").value`)
			}
			// A reload alone: the window hooks the new document, and the
			// warning stays.
			reload()
			hooked()
			if way.typed {
				if got := typed("x"); got != "x x" {
					t.Errorf("typed after a reload alone: got %q, want the key read by the agent's script (\"x x\")", got)
				}
			}
			if got := advice(); !reflect.DeepEqual(got, want) {
				t.Errorf("after a reload alone: scripted, close first %v, want %v", got, want)
			}
			// The window closed, then a reload: the site's own page.
			if out, errOut, code := cliAs(c, "", "close", "--tab", fmt.Sprint(helper)); code != 0 {
				t.Fatalf("egohost close --tab %d: %d %s %s", helper, code, out, errOut)
			}
			// The service hears of the close by the browser's event, which
			// may come after the close's answer.
			if err := waitUntil(ctx, 5*time.Second, func() error {
				if got := advice(); !reflect.DeepEqual(got, [2][]int{{tab}, nil}) {
					return fmt.Errorf("scripted, close first %v, want [[%d] []]", got, tab)
				}
				return nil
			}); err != nil {
				t.Errorf("after the window closed: %v", err)
			}
			reload()
			if got := advice(); got[0] != nil || got[1] != nil {
				t.Errorf("after the window closed and a reload: scripted, close first %v, want none", got)
			}
			if way.typed {
				if got := typed("hunter2"); got != "undefined hunter2" {
					t.Errorf("typed after the window closed and a reload: got %q, want no keys kept and the password in the field", got)
				}
			}
			if out, errOut, code := cliAs(c, "", "space", "hand-back", space); code != 0 {
				t.Fatalf("egohost space hand-back %s: %d %s %s", space, code, out, errOut)
			}
			if err := c.agent.Call(ctx, protocol.MethodTabsClose, protocol.TabParams{Target: protocol.Target{Tab: tab}}, nil); err != nil {
				t.Error(err)
			}
		})
	}
}

// Item 8: the durable state lives in the data dir, not the runtime dir
// that a logout wipes. A service that ran with the old layout (everything
// in the runtime dir) moves its files once; after the runtime dir is
// wiped, the paired agent's token still works and the audit history is
// still there.
func TestDurableStateSurvivesAWipedRuntimeDir(t *testing.T) {
	run, data := t.TempDir(), filepath.Join(t.TempDir(), "state")
	ctx := ctxT(t, 90*time.Second)

	// As an older egohost: no data_dir, so all in the runtime dir.
	s := startService(t, run)
	owner := s.dial(t)
	done := make(chan *protocol.PairRequestResult, 1)
	go func() {
		res, err := client.Pair(ctx, s.addr, protocol.PairRequestParams{Name: "keeper", Scopes: []string{"read"}}, client.Options{})
		if err != nil {
			t.Errorf("pair: %v", err)
		}
		done <- res
	}()
	approve(t, ctx, owner, "keeper")
	paired := <-done
	if paired == nil {
		t.FailNow()
	}
	keeper, err := client.Dial(ctx, s.addr, paired.Token, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = keeper.Call(ctx, protocol.MethodSnapshot, map[string]any{"tab": 1}, nil) // no browser: refused, and audited
	keeper.Close()
	s.stop()
	if !fileExists(filepath.Join(run, "agents.json")) || !fileExists(filepath.Join(run, "audit.log")) {
		t.Fatal("the old layout did not keep its files in the runtime dir")
	}

	// The new layout: data_dir set; the files move at start.
	config := func() {
		t.Helper()
		if err := os.MkdirAll(run, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, "config.yaml"), []byte("data_dir: "+data+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	config()
	s = startService(t, run)
	if !s.logs.contains("durable state moved") {
		t.Errorf("the move is not in the service log:\n%s", s.logs)
	}
	s.stop()
	for _, name := range []string{"agents.json", "audit.log"} {
		if fileExists(filepath.Join(run, name)) || !fileExists(filepath.Join(data, name)) {
			t.Errorf("%s: not moved from %s to %s", name, run, data)
		}
		if st, err := os.Stat(filepath.Join(data, name)); err == nil && st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", name, st.Mode().Perm())
		}
	}

	// Logout: the runtime dir is wiped (the owner token with it).
	if err := os.RemoveAll(run); err != nil {
		t.Fatal(err)
	}
	config()
	s = startService(t, run)
	keeper, err = client.Dial(ctx, s.addr, paired.Token, client.Options{})
	if err != nil {
		t.Fatalf("the paired token after the runtime dir was wiped: %v\n%s", err, s.logs)
	}
	defer keeper.Close()
	if err := keeper.Call(ctx, protocol.MethodPing, nil, nil); err != nil {
		t.Fatal(err)
	}
	env := chainEnv(run)
	out, errOut, code := runCLI(env, "audit", "--agent", "keeper")
	if code != 0 || !strings.Contains(out, "snapshot") {
		t.Errorf("egohost audit after the wipe: code %d\n%s%s", code, out, errOut)
	}
	out, _, _ = runCLI(env, "status")
	if !strings.Contains(out, data) || !strings.Contains(out, run) {
		t.Errorf("egohost status does not show both folders (%s, %s):\n%s", run, data, out)
	}
}

// approve waits for the pairing request of name and approves it as the
// owner's CLI does.
func approve(t *testing.T, ctx context.Context, owner *client.Client, name string) {
	t.Helper()
	for {
		var l protocol.AgentsListResult
		if err := owner.Call(ctx, protocol.MethodAgentsList, nil, &l); err != nil {
			t.Fatal(err)
		}
		for _, r := range l.Pending {
			if r.Name == name {
				if err := owner.Call(ctx, protocol.MethodAgentsApprove, protocol.AgentsApproveParams{Name: r.ID}, nil); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no pairing request of %s", name)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Item 5 through the real binaries: callers without a token send clicks
// with 4 MiB targets (before: 8 MiB of audit log, and `egohost audit
// --last 5` printed nothing); a paired agent's target forges a line and
// colours the terminal (before: printed raw). Now the log holds none of
// the tokenless calls, `egohost status` counts them, and `egohost audit`
// prints one escaped line per entry.
func TestAuditCLIAfterAFlood(t *testing.T) {
	run := t.TempDir()
	s := startService(t, run)
	ctx := ctxT(t, 90*time.Second)
	owner := s.dial(t)
	done := make(chan *protocol.PairRequestResult, 1)
	go func() {
		res, _ := client.Pair(ctx, s.addr, protocol.PairRequestParams{Name: "forger", Scopes: []string{"read"}}, client.Options{})
		done <- res
	}()
	approve(t, ctx, owner, "forger")
	paired := <-done
	if paired == nil {
		t.Fatal("pairing failed")
	}
	forger, err := client.Dial(ctx, s.addr, paired.Token, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer forger.Close()
	forged := "#x\n2026-01-01 00:00:00.000 owner        agents.approve tab 0 ok\x1b[2J\x1b[31m"
	_ = forger.Call(ctx, protocol.MethodSnapshot, map[string]any{"tab": 1, "target": forged}, nil)
	_ = forger.Call(ctx, protocol.MethodResolve, map[string]any{"tab": 1, "target": forged + strings.Repeat("é", 100<<10)}, nil)

	huge := strings.Repeat("A", 4<<20)
	for range 6 {
		none, err := client.Dial(ctx, s.addr, "", client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_ = none.Call(ctx, protocol.MethodClick, map[string]any{"tab": 1, "target": huge}, nil)
		none.Close()
	}

	if st, err := os.Stat(filepath.Join(run, "audit.log")); err != nil || st.Size() > 16<<10 {
		t.Errorf("audit.log after the flood: %v bytes (%v), want a few lines", st.Size(), err)
	}
	env := chainEnv(run)
	out, errOut, code := runCLI(env, "audit", "--last", "5")
	if code != 0 {
		t.Fatalf("egohost audit: %d %s", code, errOut)
	}
	var forgerLines int
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.Contains(l, "forger") && (strings.Contains(l, "snapshot") || strings.Contains(l, "resolve")) {
			forgerLines++
		}
	}
	if forgerLines != 2 || strings.ContainsRune(out, '\x1b') || strings.Contains(out, "\n2026-01-01") {
		t.Errorf("egohost audit --last 5: want the forger's two calls on one line each, escaped:\n%s", out)
	}
	if !strings.Contains(out, `\n2026-01-01`) || !strings.Contains(out, `\x1b[2J`) {
		t.Errorf("the forged target is not shown escaped:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		// The pairing request's line names its caller (unpaired); no other.
		if strings.Contains(l, "AAAA") || strings.Contains(l, "(unpaired)") && !strings.Contains(l, "pair.request") {
			t.Errorf("a call without a token is in the audit log: %s", l)
		}
	}
	status, _, _ := runCLI(env, "status")
	if !strings.Contains(status, "call(s) of connections without a token") {
		t.Errorf("egohost status does not count the refused calls:\n%s", status)
	}
}
