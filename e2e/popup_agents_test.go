package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

// The popup's Agents tab (issue 12 item 3) in real Chromium with the real
// extension, service and CLI: two agents with spaces and calls show with
// their spaces and last calls; a call in flight shows as doing now; Take
// over (real clicks) makes the agent's next CLI call fail with
// user_in_control and Hand back lets it through again; Disconnect cuts the
// agent's live connection (its call in flight fails at once) and it
// connects again; Revoke (pressed twice) cuts a paired agent's call in
// flight at once and its token no longer works. The tab fits Chrome's
// 600 px popup with two agents; with a pairing request and long lists it
// still does, the lists scrolling inside their sections.
func TestPopupAgentsTab(t *testing.T) {
	c := startChain(t)
	base := spacePages(t)
	ctx := ctxT(t, 3*time.Minute)
	user := c.openTab(t, base+"/p?who=person").Tab

	agents := []*spaceAgent{{name: "alice"}, {name: "bob"}}
	for _, a := range agents {
		a.c = dialAgent(t, c.svc, a.name)
		var r protocol.SpaceResult
		if err := a.c.Call(ctx, protocol.MethodSpacesNew, protocol.SpacesNewParams{Task: "task of " + a.name, URL: base + "/p?who=" + a.name}, &r); err != nil {
			t.Fatalf("%s: spaces.new: %v", a.name, err)
		}
		a.space, a.tab = r.Space.ID, r.Tab.ID
		if err := a.click(ctx, 0, "#b"); err != nil {
			t.Fatalf("%s click: %v", a.name, err)
		}
	}
	alice, bob := agents[0], agents[1]

	pop := openPopup(ctx, t, c, user)
	// The tablist by keyboard, as the other tabs: Status, then the left arrow.
	pop.click(ctx, "#tab-status")
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
		if _, err := cdp.Call(ctx, pop.s, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: typ, Key: "ArrowLeft", Code: "ArrowLeft", WindowsVirtualKeyCode: 37}); err != nil {
			t.Fatal(err)
		}
	}
	pop.waitFor(ctx, "the Agents tab selected by the arrow key, and focused", `document.getElementById('tab-agents').getAttribute('aria-selected') === 'true' && !document.getElementById('panel-agents').hidden && document.activeElement.id === 'tab-agents'`)
	card := func(name string) string {
		return fmt.Sprintf(`document.querySelector('#agents-list li.agent-card[data-agent=%q]')`, name)
	}
	for _, a := range agents {
		pop.waitFor(ctx, a.name+"'s card with its space, tab and last calls", fmt.Sprintf(`(() => {
			const c = %s; if (!c) return false;
			const sp = c.querySelector('li[data-space=%q]');
			const calls = [...c.querySelectorAll('.agent-calls li')].map((li) => li.textContent);
			const titles = [...c.querySelectorAll('.agent-calls li')].map((li) => li.title);
			return c.querySelector('.agent-name').textContent === %q && c.querySelector('.agent-state').textContent === 'connected'
				&& c.querySelector('.agent-meta').textContent.startsWith('owner token · scopes: all · ')
				&& sp && sp.textContent.includes('task of %s') && sp.querySelector('.space-tabs').textContent.includes(%q)
				&& sp.querySelector('button.space-toggle').textContent === 'Take over'
				&& calls.some((t) => t.includes('click #b') && t.endsWith('ok')) && titles.some((t) => t.includes('click #b · tab %d'));
		})()`, card(a.name), a.space, a.name, a.name, a.name, a.tab))
	}
	pop.waitFor(ctx, "the person's own connection as you (CLI)", card("")+`?.querySelector('.agent-name').textContent === 'you (CLI)'`)

	t.Run("a call in flight shows as doing now", func(t *testing.T) {
		waited := make(chan error, 1)
		go func() {
			waited <- bob.c.Call(ctx, protocol.MethodWait, protocol.WaitParams{Element: "#never", TimeoutMs: 30000}, nil)
		}()
		pop.waitFor(ctx, "bob doing the wait now", card("bob")+`?.querySelector('.agent-now')?.textContent.includes('wait #never')`)
		if got := evalString(pop, card("alice")+`.querySelector('.agent-now')?.textContent ?? ''`); got != "" {
			t.Errorf("alice doing now: got %q, want nothing", got)
		}
		// Two agents (one doing a call), and the person's own CLI: the
		// whole tab fits Chrome's popup, nothing of it behind a scroll.
		checkFit(t, pop, "two agents and you (CLI)", false)
		pop.eval(ctx, "document.activeElement.blur(), true", nil) // the picture without the arrow key's focus ring
		pop.screenshot(ctx, "popup-agents")
		pop.checkContrast(ctx, "the Agents tab")
		pop.setScheme(ctx, "dark")
		pop.screenshot(ctx, "popup-agents-dark")
		pop.checkContrast(ctx, "the Agents tab, dark")
		pop.setScheme(ctx, "")

		pop.click(ctx, `#agents-list li.agent-card[data-agent="bob"] button.disconnect`)
		wantCut(t, waited, "bob's wait (timeoutMs 30000)", "Disconnect")
		pop.waitFor(ctx, "bob no longer doing anything", card("bob")+`?.querySelector('.agent-now') === null`)
		again := dialAgent(t, c.svc, "bob")
		if err := again.Call(ctx, protocol.MethodClick, protocol.ClickParams{Element: "#b"}, nil); err != nil {
			t.Fatalf("bob after Disconnect: %v", err)
		}
		if got := pageText(t, ctx, c, bob.tab, "document.getElementById('c').textContent"); got != "2" {
			t.Errorf("bob's page counted %s clicks, want 2 (bob reconnected into his space)", got)
		}
		pop.waitFor(ctx, "bob connected again", card("bob")+`?.querySelector('.agent-state').textContent === 'connected'`)
	})

	t.Run("a pairing request and long lists: still 600 px, the lists scroll inside", func(t *testing.T) {
		asked := make(chan error, 1)
		pctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			_, err := client.Pair(pctx, c.svc.addr, protocol.PairRequestParams{Name: "carol", Scopes: []string{"space", "read"}}, client.Options{})
			asked <- err
		}()
		for i := 0; i < 20; i++ {
			if err := alice.c.Call(ctx, protocol.MethodResolve, protocol.ResolveParams{Element: "#b"}, nil); err != nil {
				t.Fatalf("alice's resolve %d: %v", i, err)
			}
		}
		pop.waitFor(ctx, "carol's request and alice's 20 last calls", `document.querySelector('#pairing-requests li.request')?.textContent.includes('carol')
			&& document.querySelectorAll('#agents-list li.agent-card[data-agent="alice"] .agent-calls li').length === 20`)
		checkFit(t, pop, "a pairing request and 20 calls", true)
		var calls struct{ Scroll, Client float64 }
		pop.eval(ctx, `(() => { const l = document.querySelector('#agents-list li.agent-card[data-agent="alice"] ol.agent-calls'); return {Scroll: l.scrollHeight, Client: l.clientHeight}; })()`, &calls)
		if calls.Scroll <= calls.Client {
			t.Errorf("alice's 20 calls: the list is %v px high and shows %v: want it to scroll inside its card", calls.Scroll, calls.Client)
		}
		var process struct {
			Cut     []string
			Wrapped int
		}
		pop.eval(ctx, pathBreaksJS, &process)
		if len(process.Cut) != 0 {
			t.Errorf("the request's process path is cut inside a name: %q", process.Cut)
		}
		pop.screenshot(ctx, "popup-pairing")
		pop.checkContrast(ctx, "the Agents tab with a pairing request")

		pop.click(ctx, `#pairing-requests li.request button.deny`)
		select {
		case err := <-asked:
			if err == nil {
				t.Fatal("carol's pairing succeeded after Deny")
			}
		case <-ctx.Done():
			t.Fatal("carol's pairing request never ended after Deny")
		}
		pop.waitFor(ctx, "no request left", `document.querySelectorAll('#pairing-requests li.request').length === 0 && document.getElementById('agents-pending-count').hidden`)
	})

	t.Run("take over and hand back", func(t *testing.T) {
		// alice's own script in her page, which then opens a window that
		// keeps it as its opener: the person is told once they have the
		// space, the Close button closes the window, and the Reload
		// button gives the page back.
		if out, errb, code := cliAs(c, "alice", "eval", `document.body.insertAdjacentHTML("beforeend", '<a id="h" href="/p?who=helper" target="helper">h</a>'), 1`); code != 0 {
			t.Fatalf("alice's eval: exit %d\n%s%s", code, out, errb)
		}
		if out, errb, code := cliAs(c, "alice", "click", "#h"); code != 0 || !strings.Contains(out, "opened tab") {
			t.Fatalf("alice's click on a link to a named window: exit %d, want a tab opened\n%s%s", code, out, errb)
		}
		toggle := fmt.Sprintf(`#agents-list li.agent-card[data-agent="alice"] li[data-space=%q] button.space-toggle`, alice.space)
		note := fmt.Sprintf(`#agents-list li.agent-card[data-agent="alice"] li[data-space=%q] .space-scripted`, alice.space)
		closeFirst := fmt.Sprintf(`#agents-list li.agent-card[data-agent="alice"] li[data-space=%q] .space-close-first`, alice.space)
		var warned bool
		pop.eval(ctx, fmt.Sprintf(`document.querySelector(%q) !== null`, note), &warned)
		if warned {
			t.Error("before the take over, the popup warns of alice's script")
		}
		pop.click(ctx, toggle)
		pop.waitFor(ctx, "alice's space taken over", fmt.Sprintf(`document.querySelector(%q)?.textContent === 'Hand back'`, toggle))
		pop.waitFor(ctx, "the warning that alice ran script in her page, with its Reload button", fmt.Sprintf(`document.querySelector(%q)?.textContent.includes('alice ran its own script in') && document.querySelector(%q + ' button')?.textContent === 'Reload'`, note, note))
		pop.waitFor(ctx, "the warning to close the window the page opened first, with its Close button", fmt.Sprintf(`document.querySelector(%q)?.textContent.includes("A page alice's script ran in opened") && document.querySelector(%q + ' button')?.textContent === 'Close'`, closeFirst, closeFirst))
		pop.screenshot(ctx, "popup-agents-scripted")
		pop.click(ctx, closeFirst+" button")
		pop.waitFor(ctx, "no window left to close", fmt.Sprintf(`document.querySelector(%q) === null && document.querySelector(%q) !== null`, closeFirst, note))
		pop.click(ctx, note+" button")
		pop.waitFor(ctx, "no warning once the page was reloaded", fmt.Sprintf(`document.querySelector(%q) === null`, note))
		if out, errb, code := cliAs(c, "alice", "click", "#b"); code == 0 || !strings.Contains(errb, "user_in_control") {
			t.Fatalf("alice's CLI click in a taken-over space: exit %d, stderr %q, want user_in_control\n%s", code, errb, out)
		}
		pop.waitFor(ctx, "the refused call in alice's last calls", card("alice")+`.querySelector('.agent-calls li.failed')?.textContent.includes('user_in_control')`)
		pop.click(ctx, toggle)
		pop.waitFor(ctx, "alice's space handed back", fmt.Sprintf(`document.querySelector(%q)?.textContent === 'Take over'`, toggle))
		if out, errb, code := cliAs(c, "alice", "click", "#b"); code != 0 {
			t.Fatalf("alice's CLI click after Hand back: exit %d\n%s%s", code, out, errb)
		}
		if got := pageText(t, ctx, c, alice.tab, "document.getElementById('c').textContent"); got != "1" {
			t.Errorf("alice's page counted %s clicks since the person's reload, want 1 (the refused one never landed)", got)
		}
	})

	t.Run("Revoke cuts a paired agent's call in flight at once", func(t *testing.T) {
		tok := pairDirect(t, c, "dave", "space")
		dave := dialToken(t, c, tok)
		if err := dave.Call(ctx, protocol.MethodSpacesNew, protocol.SpacesNewParams{Task: "task of dave", URL: base + "/p?who=dave"}, nil); err != nil {
			t.Fatalf("dave: spaces.new: %v", err)
		}
		// dave's own script in its page, which the revocation leaves to
		// the person (its space ends with keep): the popup says so.
		if err := dave.Call(ctx, protocol.MethodEval, protocol.EvalParams{Expression: "1"}, nil); err != nil {
			t.Fatalf("dave: eval: %v", err)
		}
		waited := make(chan error, 1)
		go func() {
			waited <- dave.Call(ctx, protocol.MethodWait, protocol.WaitParams{Element: "#never", TimeoutMs: 30000}, nil)
		}()
		pop.waitFor(ctx, "dave doing the wait now", card("dave")+`?.querySelector('.agent-now')?.textContent.includes('wait #never')`)
		revoke := `#agents-list li.agent-card[data-agent="dave"] button.revoke`
		pop.click(ctx, revoke)
		pop.waitFor(ctx, "Revoke asking to be pressed again", fmt.Sprintf(`document.querySelector(%q)?.textContent === 'Really revoke?'`, revoke))
		pop.click(ctx, revoke)
		wantCut(t, waited, "dave's wait (timeoutMs 30000)", "Revoke in the popup")
		pop.waitFor(ctx, "the warning that a script still runs in dave's page", `document.getElementById('agents-revoked')?.textContent.startsWith("dave is revoked, but an agent's own script still runs in “dave")`)
		if _, err := client.Dial(ctx, c.svc.addr, tok, client.Options{SkipProof: true}); protocol.CodeOf(err) != protocol.CodeRevoked {
			t.Errorf("dial with dave's revoked token: got %v, want revoked", err)
		}
	})
}

// checkFit checks the popup fits Chrome's 600 px popup: the document no
// higher, and (unless scrolling is expected) the open panel showing all
// of itself, without a scroll bar.
func checkFit(t *testing.T, p *ui, what string, scrolls bool) {
	t.Helper()
	var m struct{ Doc, Panel, Shown float64 }
	p.eval(ctxT(t, 10*time.Second), `(() => { const p = [...document.querySelectorAll('[role="tabpanel"]')].find((e) => !e.hidden); return {Doc: document.documentElement.scrollHeight, Panel: p.scrollHeight, Shown: p.clientHeight}; })()`, &m)
	if m.Doc > 600 {
		t.Errorf("%s: the popup is %v px high, want at most Chrome's 600", what, m.Doc)
	}
	if !scrolls && m.Panel > m.Shown+1 {
		t.Errorf("%s: the panel is %v px high and shows %v: want it whole, without scrolling", what, m.Panel, m.Shown)
	}
}

// evalString evaluates expr in the page and returns its string value.
func evalString(p *ui, expr string) string {
	p.t.Helper()
	var s string
	p.eval(ctxT(p.t, 10*time.Second), expr, &s)
	return s
}
