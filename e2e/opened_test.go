package e2e

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

// openerPage opens /next in every way a page opens a tab.
const openerPage = `<!doctype html><title>opener</title>
<a id=blank href="/next" target=_blank>blank</a>
<a id=noopener href="/next" target=_blank rel=noopener>noopener</a>
<button id=wopen onclick="window.open('/next')">open</button>
<button id=popup onclick="window.open('/next', 'pop', 'width=300,height=200')">popup</button>
<form action="/next" target=_blank><button id=submit>submit</button></form>
<button id=none onclick="document.title = 'clicked'">none</button>
<button id=empty onclick="const w = window.open('', '_blank'); setTimeout(() => { w.location = '/next'; }, 300)">empty</button>`

// clickOpening clicks target in tab and returns the tabs the click opened,
// closing them when the test ends.
func clickOpening(t *testing.T, agent, closer *client.Client, tab protocol.Target, target string) []protocol.Tab {
	t.Helper()
	var r protocol.ActionResult
	if err := agent.Call(ctxT(t, 30*time.Second), protocol.MethodClick, protocol.ClickParams{Target: tab, Element: target}, &r); err != nil {
		t.Fatalf("click %s: %v", target, err)
	}
	t.Cleanup(func() {
		for _, o := range r.Opened {
			_ = closer.Call(ctxT(t, 10*time.Second), protocol.MethodTabsClose, protocol.TabParams{Target: protocol.Target{Tab: o.ID}}, nil)
		}
	})
	return r.Opened
}

// An action's result names the tabs it opened: a link with target=_blank
// (with rel=noopener too), window.open, a popup window, a form with a
// target; and none for a click that opens nothing. Each is a tab the agent
// can act in at once.
func TestActionsSayWhichTabsTheyOpened(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": openerPage, "/next": "<!doctype html><title>next</title><p>next"})
	tab := c.openTab(t, base+"/")
	for _, tc := range []struct {
		name, target string
		want         int
	}{
		// First, on a fresh tab: Jupyter's new notebook (an empty window
		// it sends on later), to which Chrome gives no opener.
		{"an empty window the page sends on later", "#empty", 1},
		{"a link with target=_blank", "#blank", 1},
		{"a link with rel=noopener", "#noopener", 1},
		{"window.open", "#wopen", 1},
		{"a popup window", "#popup", 1},
		{"a form with a target", "#submit", 1},
		{"a click that opens nothing", "#none", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opened := clickOpening(t, c.agent, c.agent, tab, tc.target)
			if len(opened) != tc.want {
				t.Fatalf("got %d tabs opened (%+v), want %d", len(opened), opened, tc.want)
			}
			for _, o := range opened {
				if o.OpenerTabID != tab.Tab || !strings.HasPrefix(o.URL, base+"/next") && !(tc.target == "#empty" && o.URL == "about:blank") || o.Browser == "" {
					t.Errorf("got tab %+v, want one opened by tab %d on %s/next", o, tab.Tab, base)
				}
				ctx := ctxT(t, 30*time.Second)
				if err := c.agent.Call(ctx, protocol.MethodWait, protocol.WaitParams{Target: protocol.Target{Tab: o.ID}, Text: "next"}, nil); err != nil {
					t.Errorf("wait for the text in the opened tab %d: %v", o.ID, err)
				}
			}
		})
	}
}

// A paired agent learns only of the tabs it may reach: a tab its space's
// page opened in the same tab group is its own, and so is a popup window
// that page opened (a sign-in window: Chrome groups no popup window's tab,
// so egohost counts it in its opener's space), named in the click's
// result and in tabs.list, and the agent acts in it. A popup window the
// person's own tab opened is not the agent's. The person who takes the
// space over takes its popup window too.
func TestOpenedTabsAreThoseTheAgentMayReach(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": openerPage, "/next": "<!doctype html><title>next</title><p>next <button onclick=\"document.title = 'allowed'\">Allow</button>"})
	bot, tab := botSpace(t, c, "opener", base+"/")
	ctx := ctxT(t, 60*time.Second)
	var space string
	listed := func(t *testing.T) map[int]protocol.Tab {
		t.Helper()
		var list protocol.TabsListResult
		if err := bot.Call(ctx, protocol.MethodTabsList, struct{}{}, &list); err != nil {
			t.Fatal(err)
		}
		out := map[int]protocol.Tab{}
		for _, l := range list.Tabs {
			out[l.ID] = l
		}
		return out
	}
	for _, target := range []string{"#blank", "#popup"} {
		t.Run(target, func(t *testing.T) {
			opened := clickOpening(t, bot, c.agent, tab, target)
			if len(opened) != 1 || opened[0].Space == "" || opened[0].Popup != (target == "#popup") {
				t.Fatalf("got %+v, want one tab in the agent's space (popup: %v)", opened, target == "#popup")
			}
			space = opened[0].Space
			if l, ok := listed(t)[opened[0].ID]; !ok || l.Space != space {
				t.Errorf("the result names tab %d, which tabs.list shows the agent as %+v (listed: %v)", opened[0].ID, l, ok)
			}
			in := protocol.Target{Tab: opened[0].ID}
			if err := bot.Call(ctx, protocol.MethodWait, protocol.WaitParams{Target: in, Text: "next"}, nil); err != nil {
				t.Fatalf("the agent waits for the opened tab's text: %v", err)
			}
			if err := bot.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: in, Element: "role=button[name=Allow]"}, nil); err != nil {
				t.Fatalf("the agent clicks in the opened tab: %v", err)
			}
			if v, err := c.eval(ctx, in, "document.title"); err != nil || string(v) != `"allowed"` {
				t.Errorf("the opened tab's title after the agent's click: %s, %v; want allowed", v, err)
			}
			if target != "#popup" {
				return
			}
			// The person takes the space over: its popup window with it.
			var taken protocol.SpaceResult
			if err := c.agent.Call(ctx, protocol.MethodSpacesTakeOver, protocol.SpaceParams{Space: space}, &taken); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(taken.Space.Tabs, opened[0].ID) {
				t.Errorf("the space taken over has tabs %v, want its popup window's %d among them", taken.Space.Tabs, opened[0].ID)
			}
			refused(t, "the agent's eval in the popup window of the space taken over", bot.Call(ctx, protocol.MethodEval, protocol.EvalParams{Target: in, Expression: "1"}, nil), protocol.CodeUserInControl)
			if err := c.agent.Call(ctx, protocol.MethodSpacesHandBack, protocol.SpaceParams{Space: space}, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	// The person's own tab opens a popup window: not the agent's.
	mine := c.openTab(t, base+"/")
	opened := clickOpening(t, c.agent, c.agent, mine, "#popup")
	if len(opened) != 1 || !opened[0].Popup || opened[0].Space != "" {
		t.Fatalf("the person's click opened %+v, want one popup window in no space", opened)
	}
	if _, ok := listed(t)[opened[0].ID]; ok {
		t.Errorf("tabs.list shows the agent the person's popup window %d", opened[0].ID)
	}
	refused(t, "the agent's eval in the person's popup window", bot.Call(ctx, protocol.MethodEval, protocol.EvalParams{Target: protocol.Target{Tab: opened[0].ID}, Expression: "1"}, nil), protocol.CodeNotInSpace)
}

// A script takes the tab a click opened as Playwright's popup: start the
// wait, click, await the page, read it.
func TestScriptWaitsForThePopup(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": openerPage, "/next": "<!doctype html><title>next</title><p>next"})
	tab := c.openTab(t, base+"/")
	var r protocol.ScriptRunResult
	script := `const popup = page.waitForEvent('popup');
await page.getByText('blank').click();
const p = await popup;
await p.waitForLoadState();
const out = [await p.title(), p.id !== page.id];
await p.close();
out`
	if err := c.agent.Call(ctxT(t, 60*time.Second), protocol.MethodScriptRun, protocol.ScriptRunParams{Target: tab, Script: script}, &r); err != nil {
		t.Fatalf("script.run: %v", err)
	}
	if got := string(r.Value); got != `["next",true]` {
		t.Errorf("got %s, want [\"next\",true] (the popup's title, another tab)", got)
	}
}

// A popup that closes itself once its form is sent (Django admin's "add
// another" window, an OAuth window): the click that sends the form
// succeeds, and its answer says the page closed its tab, not that the
// settle was capped; a button that calls window.close() likewise.
func TestAnActionWhosePageClosesItsTab(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{
		"/":      `<!doctype html><title>opener</title><button id=popup onclick="window.open('/popup', 'pop', 'width=300,height=200')">popup</button>`,
		"/popup": `<!doctype html><title>popup</title><form action="/done"><input name=name><button id=save>Save</button></form><button id=shut onclick="window.close()">Close</button>`,
		"/done":  `<!doctype html><title>done</title><script>window.opener.document.title = 'saved'; window.close()</script>`,
	})
	tab := c.openTab(t, base+"/")
	for _, tc := range []struct{ name, target string }{
		{"a form whose answer closes the window", "#save"},
		{"a button that calls window.close()", "#shut"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opened := clickOpening(t, c.agent, c.agent, tab, "#popup")
			if len(opened) != 1 {
				t.Fatalf("got %d tabs opened, want the popup", len(opened))
			}
			pop := protocol.Target{Tab: opened[0].ID}
			ctx := ctxT(t, 30*time.Second)
			if err := c.agent.Call(ctx, protocol.MethodWait, protocol.WaitParams{Target: pop, Element: tc.target}, nil); err != nil {
				t.Fatalf("wait for %s in the popup: %v", tc.target, err)
			}
			out, errOut, code := c.cli(pop, "click", tc.target)
			if code != 0 || !strings.Contains(out, "then the page closed its tab") || strings.Contains(out, "capped") {
				t.Fatalf("egohost click %s: exit %d, want 0 and the tab's close said\nstdout: %s\nstderr: %s", tc.target, code, out, errOut)
			}
		})
	}
	if v, err := c.eval(ctxT(t, 10*time.Second), tab, "document.title"); err != nil || string(v) != `"saved"` {
		t.Errorf("the opener's title: got %s (%v), want the popup's answer to have run", v, err)
	}
}
