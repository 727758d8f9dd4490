package e2e

import (
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
// page opened in the same tab group is its own; a popup window outside the
// group is not named to it (tabs.list would not show it either).
func TestOpenedTabsAreThoseTheAgentMayReach(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": openerPage, "/next": "<!doctype html><title>next</title><p>next"})
	bot, tab := botSpace(t, c, "opener", base+"/")
	for _, target := range []string{"#blank", "#popup"} {
		t.Run(target, func(t *testing.T) {
			opened := clickOpening(t, bot, c.agent, tab, target)
			var list protocol.TabsListResult
			if err := bot.Call(ctxT(t, 30*time.Second), protocol.MethodTabsList, struct{}{}, &list); err != nil {
				t.Fatal(err)
			}
			listed := map[int]bool{}
			for _, l := range list.Tabs {
				listed[l.ID] = true
			}
			for _, o := range opened {
				if !listed[o.ID] {
					t.Errorf("the result names tab %d, which tabs.list does not show the agent", o.ID)
				}
			}
			switch {
			case target == "#blank" && (len(opened) != 1 || opened[0].Space == ""):
				t.Errorf("got %+v, want the tab in the agent's space (Chrome puts a tab a link opened in its opener's group)", opened)
			case target == "#popup" && len(opened) != 0:
				t.Errorf("got %+v, want no tab named: a popup window is in no group, outside the agent's space", opened)
			}
		})
	}
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
