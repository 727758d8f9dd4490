package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

// confirmPage is a shop: a form whose submit button is "Place order"
// (window.submitted counts the submits the page saw), and a plain button.
const confirmPage = `<!doctype html><title>shop</title>
<form id=f onsubmit="event.preventDefault(); window.submitted++">
<input id=q name=q> <button id=place type=submit aria-label="Place order" onclick="window.clicked.push(this.dataset.v || 'first')">Place order</button>
</form>
<button id=plain onclick="window.plain++">Next</button> <label for=place id=lab>the order button's label</label>
<input id=cv type=file aria-label="Résumé">
<script>window.submitted = 0; window.plain = 0; window.clicked = [];</script>`

// pendingAsk waits until an act of agent waits for the person, and
// returns it (the owner's confirm.list).
func pendingAsk(t *testing.T, owner *client.Client, agent string) protocol.Confirm {
	t.Helper()
	ctx := ctxT(t, 30*time.Second)
	for {
		var l protocol.ConfirmListResult
		if err := owner.Call(ctx, protocol.MethodConfirmList, protocol.ConfirmListParams{Pictures: true}, &l); err != nil {
			t.Fatalf("confirm.list: %v", err)
		}
		for _, q := range l.Pending {
			if q.Agent == agent {
				return q
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no act of %s waits for the person: %v", agent, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// pageInt reads a number the page keeps, through the owner.
func pageInt(t *testing.T, c *chain, tab protocol.Target, expr string) string {
	t.Helper()
	v, err := c.eval(ctxT(t, 15*time.Second), tab, expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return string(v)
}

// callAsync calls method as cl in the background; the channel gets its
// error.
func callAsync(cl *client.Client, method string, params any) <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		done <- cl.Call(ctx, method, params, nil)
	}()
	return done
}

// clickAsync clicks target as cl in the background; the channel gets its
// error.
func clickAsync(cl *client.Client, tab protocol.Target, target string) <-chan error {
	return callAsync(cl, protocol.MethodClick, protocol.ClickParams{Target: tab, Element: target})
}

func answer(t *testing.T, cl *client.Client, id string, allow, always bool) error {
	t.Helper()
	return cl.Call(ctxT(t, 15*time.Second), protocol.MethodConfirmAnswer, protocol.ConfirmAnswerParams{ID: id, Allow: allow, Always: always}, nil)
}

func waitDone(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(120 * time.Second):
		t.Fatal("the click never answered")
		return nil
	}
}

// deny answers the ask no, as the person (once), and returns what the call
// that asked ends with.
func deny(t *testing.T, owner *client.Client, id string, done <-chan error) error {
	t.Helper()
	if err := answer(t, owner, id, false, false); err != nil {
		t.Fatal(err)
	}
	return waitDone(t, done)
}

// allowOnce answers the ask yes, as the person, this once, and returns
// what the call that asked ends with.
func allowOnce(t *testing.T, owner *client.Client, id string, done <-chan error) error {
	t.Helper()
	if err := answer(t, owner, id, true, false); err != nil {
		t.Fatal(err)
	}
	return waitDone(t, done)
}

// A paired agent's click on a form's submit button ("Place order") waits
// for the person (default policy): allowed, it clicks; denied, it fails
// with denied_by_person and the form is not submitted; a page that swaps
// the button meanwhile gets no click on the new one; the owner is never
// asked; the agent cannot answer its own ask; "always" skips the next
// ask; every ask and answer is in the audit log.
func TestConfirmClick(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": confirmPage})
	bot, tab := botSpace(t, c, "shopper", base+"/")
	owner := c.agent

	t.Run("allowed with egohost confirm allow", func(t *testing.T) {
		done := clickAsync(bot, tab, "#place")
		q := pendingAsk(t, owner, "shopper")
		if q.Kind != "submit" || !strings.HasPrefix(q.Action, "click button 'Place order' on 127.0.0.1:") {
			t.Errorf("got ask %q (%s), want a submit: click button 'Place order' on 127.0.0.1:…", q.Action, q.Kind)
		}
		if len(q.Picture) < 100 || string(q.Picture[1:4]) != "PNG" {
			t.Errorf("got a picture of %d bytes, want a PNG", len(q.Picture))
		}
		if got := pageInt(t, c, tab, "window.submitted"); got != "0" {
			t.Fatalf("submitted before the person answered: %s", got)
		}
		out, errb, code := runCLI(chainEnv(c.svc.stateDir), "confirm", "allow", q.ID)
		if code != 0 || !strings.Contains(out, "allowed "+q.ID) {
			t.Fatalf("egohost confirm allow: code %d, %q %q", code, out, errb)
		}
		if err := waitDone(t, done); err != nil {
			t.Fatalf("the allowed click: %v", err)
		}
		if got := pageInt(t, c, tab, "window.submitted"); got != "1" {
			t.Errorf("submitted %s times, want 1", got)
		}
	})

	t.Run("denied", func(t *testing.T) {
		done := clickAsync(bot, tab, "#place")
		q := pendingAsk(t, owner, "shopper")
		pe := wantCode(t, deny(t, owner, q.ID, done), protocol.CodeDeniedByPerson)
		if !strings.Contains(pe.Message, "Do not retry") {
			t.Errorf("got message %q, want it to say not to retry", pe.Message)
		}
		if got := pageInt(t, c, tab, "window.submitted"); got != "1" {
			t.Errorf("submitted %s times, want still 1", got)
		}
	})

	t.Run("the agent cannot answer its own ask", func(t *testing.T) {
		done := clickAsync(bot, tab, "#place")
		q := pendingAsk(t, owner, "shopper")
		wantCode(t, answer(t, bot, q.ID, true, true), protocol.CodeScopeDenied)
		wantCode(t, bot.Call(ctxT(t, 10*time.Second), protocol.MethodConfirmList, nil, nil), protocol.CodeScopeDenied)
		wantCode(t, bot.Call(ctxT(t, 10*time.Second), protocol.MethodPopupConfirmAnswer, protocol.ConfirmAnswerParams{ID: q.ID, Allow: true}, nil), protocol.CodeMethodNotFound)
		if again := pendingAsk(t, owner, "shopper"); again.ID != q.ID {
			t.Errorf("got ask %s, want %s still waiting", again.ID, q.ID)
		}
		wantCode(t, deny(t, owner, q.ID, done), protocol.CodeDeniedByPerson)
		if got := pageInt(t, c, tab, "window.submitted"); got != "1" {
			t.Errorf("submitted %s times, want still 1", got)
		}
	})

	t.Run("the page swaps the button while the person is asked", func(t *testing.T) {
		before := pageInt(t, c, tab, "window.submitted")
		done := clickAsync(bot, tab, "#place")
		q := pendingAsk(t, owner, "shopper")
		// The same id, text and place: another element.
		if _, err := c.eval(ctxT(t, 10*time.Second), tab, `const b = document.getElementById("place"); const n = b.cloneNode(true); n.dataset.v = "swapped"; b.replaceWith(n); true`); err != nil {
			t.Fatal(err)
		}
		wantCode(t, allowOnce(t, owner, q.ID, done), protocol.CodeStaleRef)
		if got := pageInt(t, c, tab, "window.submitted"); got != before {
			t.Errorf("submitted %s times, want still %s: nothing clicked after the swap", got, before)
		}
		if got := pageInt(t, c, tab, "JSON.stringify(window.clicked.filter(v => v === 'swapped'))"); got != `"[]"` {
			t.Errorf("got the swapped button's clicks %s, want none", got)
		}
	})

	t.Run("the owner is never asked", func(t *testing.T) {
		if err := owner.Call(ctxT(t, 30*time.Second), protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#place"}, nil); err != nil {
			t.Fatalf("the owner's click: %v", err)
		}
		if got := pageInt(t, c, tab, "window.submitted"); got != "2" {
			t.Errorf("submitted %s times, want 2", got)
		}
	})

	t.Run("a plain button is not asked", func(t *testing.T) {
		if err := bot.Call(ctxT(t, 30*time.Second), protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#plain"}, nil); err != nil {
			t.Fatalf("click Next: %v", err)
		}
	})

	t.Run("Enter in the form's field is asked", func(t *testing.T) {
		done := make(chan error, 1)
		go func() {
			done <- bot.Call(ctxT(t, 120*time.Second), protocol.MethodPress, protocol.PressParams{Target: tab, Element: "#q", Key: "Enter"}, nil)
		}()
		q := pendingAsk(t, owner, "shopper")
		if q.Kind != "submit" || !strings.HasPrefix(q.Action, "press Enter in textbox") {
			t.Errorf("got ask %q (%s), want a submit: press Enter in textbox …", q.Action, q.Kind)
		}
		wantCode(t, deny(t, owner, q.ID, done), protocol.CodeDeniedByPerson)
		// Without a target, Enter goes to the focused field: asked too.
		go func() {
			done <- bot.Call(ctxT(t, 120*time.Second), protocol.MethodPress, protocol.PressParams{Target: tab, Key: "Enter"}, nil)
		}()
		q = pendingAsk(t, owner, "shopper")
		wantCode(t, deny(t, owner, q.ID, done), protocol.CodeDeniedByPerson)
		if got := pageInt(t, c, tab, "window.submitted"); got != "2" {
			t.Errorf("submitted %s times, want still 2", got)
		}
	})

	t.Run("the button's label, Space on the button and a typed line are asked", func(t *testing.T) {
		before := pageInt(t, c, tab, "window.submitted")
		calls := []struct {
			method string
			params any
			action string
		}{
			{protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#lab"}, "click button 'Place order'"},
			{protocol.MethodPress, protocol.PressParams{Target: tab, Element: "#place", Key: "Space"}, "press Space on button 'Place order'"},
			{protocol.MethodType, protocol.TypeParams{Target: tab, Element: "#q", Text: "x\n"}, "type Enter in textbox"},
		}
		for _, call := range calls {
			done := make(chan error, 1)
			go func() { done <- bot.Call(ctxT(t, 120*time.Second), call.method, call.params, nil) }()
			q := pendingAsk(t, owner, "shopper")
			if !strings.HasPrefix(q.Action, call.action) {
				t.Errorf("%s: got ask %q, want %q…", call.method, q.Action, call.action)
			}
			wantCode(t, deny(t, owner, q.ID, done), protocol.CodeDeniedByPerson)
		}
		if got := pageInt(t, c, tab, "window.submitted"); got != before {
			t.Errorf("submitted %s times, want still %s", got, before)
		}
	})

	t.Run("always for this agent on this origin", func(t *testing.T) {
		done := clickAsync(bot, tab, "#place")
		q := pendingAsk(t, owner, "shopper")
		out, errb, code := runCLI(chainEnv(c.svc.stateDir), "confirm", "allow", q.ID, "--always")
		if code != 0 || !strings.Contains(out, "always "+q.ID) {
			t.Fatalf("egohost confirm allow --always: code %d, %q %q", code, out, errb)
		}
		if err := waitDone(t, done); err != nil {
			t.Fatal(err)
		}
		if err := bot.Call(ctxT(t, 30*time.Second), protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#place"}, nil); err != nil {
			t.Fatalf("the next click, unasked: %v", err)
		}
		if got := pageInt(t, c, tab, "window.submitted"); got != "4" {
			t.Errorf("submitted %s times, want 4", got)
		}
		var ping protocol.PingResult
		if err := owner.Call(ctxT(t, 10*time.Second), protocol.MethodPing, nil, &ping); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(ping.DataDir, "confirm.json"))
		if err != nil || !strings.Contains(string(b), `"shopper"`) {
			t.Errorf("confirm.json: %v %s, want the always answer kept", err, b)
		}
	})

	t.Run("the audit log has every ask and answer", func(t *testing.T) {
		got := auditSays(t, owner, func(e protocol.AuditEntry) string {
			if e.Method == "confirm.answer" && strings.HasPrefix(e.Target, "shopper: ") {
				return e.Agent + " " + e.Result
			}
			return ""
		})
		want := "owner allowed,owner denied,owner denied,owner allowed,owner denied,owner denied,owner denied,owner denied,owner denied,owner always"
		if got != want {
			t.Errorf("got answers %q, want %q", got, want)
		}
	})
}

// Nobody answers within timeouts.confirm: confirm_timeout, nothing
// submitted. The CLI on the agent's token says on stderr what it waits
// for.
func TestConfirmTimeoutAndCLI(t *testing.T) {
	stateDir := t.TempDir()
	config := "timeouts:\n  confirm: 2s\nagents:\n  confirm:\n    default: [{origins: [\"*\"], actions: [submit, purchase, upload]}]\n"
	if err := os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startChainIn(t, stateDir)
	base := serve(t, map[string]string{"/": confirmPage})
	bot, tab := botSpace(t, c, "late", base+"/")

	// An upload the policy names waits too, bound to its file input; unanswered, the input stays empty.
	err := bot.Call(ctxT(t, 60*time.Second), protocol.MethodUpload, protocol.UploadParams{Target: tab, Element: "#cv",
		Payloads: []protocol.FilePayload{{Name: "cv.txt", Data: []byte("Ada")}}}, nil)
	if pe := wantCode(t, err, protocol.CodeConfirmTimeout); pe.Data["kind"] != "upload" {
		t.Errorf("upload: got data %v, want kind upload", pe.Data)
	}
	if got := pageInt(t, c, tab, "document.querySelector('#cv').files.length"); got != "0" {
		t.Errorf("the file input has %s files, want 0", got)
	}

	err = bot.Call(ctxT(t, 60*time.Second), protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#place"}, nil)
	pe := wantCode(t, err, protocol.CodeConfirmTimeout)
	if pe.Data["kind"] != "submit" {
		t.Errorf("got data %v, want kind submit", pe.Data)
	}
	if got := pageInt(t, c, tab, "window.submitted"); got != "0" {
		t.Errorf("submitted %s times, want 0", got)
	}

	// The CLI with the agent's token: it prints the wait on stderr.
	tokFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokFile, []byte(pairDirect(t, c, "clibot")), 0o600); err != nil {
		t.Fatal(err)
	}
	var sp protocol.SpaceResult
	clibot := dialToken(t, c, mustRead(t, tokFile))
	if err := clibot.Call(ctxT(t, 30*time.Second), protocol.MethodSpacesNew, protocol.SpacesNewParams{URL: base + "/"}, &sp); err != nil {
		t.Fatal(err)
	}
	env := append(chainEnv(stateDir), "EGOHOST_AGENT_TOKEN_FILE="+tokFile)
	_, errb, code := runCLI(env, "click", "#place", "--tab", itoa(sp.Tab.ID))
	if code == 0 || !strings.Contains(errb, "waiting for the person to confirm: click button 'Place order' on 127.0.0.1:") || !strings.Contains(errb, "confirm_timeout") {
		t.Errorf("egohost click as a paired agent: code %d, stderr %q; want the wait said, then confirm_timeout", code, errb)
	}
	if got := pageInt(t, c, protocol.Target{Tab: sp.Tab.ID}, "window.submitted"); got != "0" {
		t.Errorf("submitted %s times, want 0", got)
	}
}

// allowAsks is the person saying yes to every act of agent that waits,
// until the test ends: for the tests on the shared chain (default policy)
// that are not about confirmations.
func allowAsks(t *testing.T, owner *client.Client, agent string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for ctx.Err() == nil {
			var l protocol.ConfirmListResult
			if err := owner.Call(ctx, protocol.MethodConfirmList, nil, &l); err == nil {
				for _, q := range l.Pending {
					if q.Agent == agent {
						_ = owner.Call(ctx, protocol.MethodConfirmAnswer, protocol.ConfirmAnswerParams{ID: q.ID, Allow: true}, nil)
					}
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-stopped })
}

// auditSays reads the last 1,000 audit lines as owner and joins, with
// commas, what say makes of each ("" leaves a line out).
func auditSays(t *testing.T, owner *client.Client, say func(protocol.AuditEntry) string) string {
	t.Helper()
	var tail protocol.AuditTailResult
	if err := owner.Call(ctxT(t, 10*time.Second), protocol.MethodAuditTail, protocol.AuditTailParams{Limit: 1000}, &tail); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tail.Entries {
		if s := say(e); s != "" {
			got = append(got, s)
		}
	}
	return strings.Join(got, ",")
}

// confirmOff is the config of a chain whose tests are not about
// confirmations: no paired agent is asked (agents.confirm.default: []).
const confirmOff = "agents:\n  confirm:\n    default: []\n"

// quietConfig is the config of the shared chain (quietChain) of the tests
// whose agents are asked only where their own rules say: confirmOff's
// default (no paired agent is asked otherwise), the rules of
// TestConfirmKinds's agents (names no other test on it pairs), its 5 s
// confirm timeout; screenshots' plain file names are written to out/ in
// the chain's folder for files, and files in share/ there may be uploaded.
const quietConfig = "timeouts:\n  confirm: 5s\nagents:\n  output_dir: " + sharedFiles + "/out\n  upload_dirs: [" + sharedFiles + "/share]\n  confirm:\n" +
	"    navbot: [{origins: [\"*\"], actions: [navigate_new_origin]}]\n" +
	"    cookiebot: [{origins: [\"*\"], actions: [cookie_write]}]\n" +
	"    dlbot: [{origins: [\"*\"], actions: [download]}]\n" +
	"    mixbot: [{origins: [\"*\"], actions: [purchase, navigate_new_origin]}]\n" +
	"    cdpbot: [{origins: [\"*\"], actions: [cookie_write, navigate_new_origin]}]\n" +
	"    default: []\n" +
	"  origins:\n    navbot: {schemes: [data]}\n"

// quietChain is the shared chain whose config is quietConfig.
// scripts/test.sh runs the tests that call it in one process, so it
// starts once.
func quietChain(t *testing.T) *chain {
	t.Helper()
	return useSharedChainWith(t, quietConfig)
}

// startChainConfig starts a chain of its own with config.yaml.
func startChainConfig(t testing.TB, config string) *chain {
	t.Helper()
	stateDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return startChainIn(t, stateDir)
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// The person answers in the popup: the ask shows there (the agent, the
// act in words, the element's picture) with the icon's badge; Allow once
// lets the click through, Deny refuses the next with denied_by_person,
// and both answers are the person's in the audit log.
func TestConfirmInPopup(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": confirmPage})
	bot, tab := botSpace(t, c, "popupbuyer", base+"/")
	ctx := ctxT(t, 2*time.Minute)
	pop := openPopup(ctx, t, c, tab.Tab)

	ask := `document.querySelector('#confirm-list li.ask')`
	shown := func(what string) {
		pop.waitFor(ctx, what, `(() => { const a = `+ask+`; return a && !document.getElementById('confirmations').hidden
			&& a.querySelector('.agent').textContent === 'popupbuyer'
			&& a.querySelector('.action').textContent.startsWith("click button 'Place order' on 127.0.0.1:")
			&& a.querySelector('img') && a.querySelector('img').naturalWidth > 0; })()`)
	}

	done := clickAsync(bot, tab, "#place")
	shown("the ask in the popup, with its picture")
	pop.screenshot(ctx, "popup-confirm") // README's Confirmations: scripts/popup-screenshots.sh
	var badge string
	pop.eval(ctx, `chrome.action.getBadgeText({})`, &badge)
	if badge != "?1" {
		t.Errorf("got the badge %q, want ?1", badge)
	}
	pop.click(ctx, `#confirm-list li.ask button.allow`)
	if err := waitDone(t, done); err != nil {
		t.Fatalf("the click the person allowed: %v", err)
	}
	if got := pageInt(t, c, tab, "window.submitted"); got != "1" {
		t.Errorf("submitted %s times, want 1", got)
	}
	pop.waitFor(ctx, "the list empty again", `document.getElementById('confirmations').hidden`)

	done = clickAsync(bot, tab, "#place")
	shown("the next ask")
	pop.click(ctx, `#confirm-list li.ask button.deny`)
	wantCode(t, waitDone(t, done), protocol.CodeDeniedByPerson)
	if got := pageInt(t, c, tab, "window.submitted"); got != "1" {
		t.Errorf("submitted %s times, want still 1", got)
	}

	got := auditSays(t, c.agent, func(e protocol.AuditEntry) string {
		if strings.HasPrefix(e.Target, "popupbuyer: ") || e.Agent == "popupbuyer" && e.Method == "confirm.ask" {
			return e.Agent + " " + e.Method + " " + e.Result
		}
		return ""
	})
	want := "popupbuyer confirm.ask waiting,person confirm.answer allowed,popupbuyer confirm.ask waiting,person confirm.answer denied"
	if got != want {
		t.Errorf("got audit lines %q, want %q", got, want)
	}
}

// Over MCP: a client that sent a progress token hears the wait as a
// progress notification; the tool's result on a no says not to retry.
func TestConfirmOverMCP(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": confirmPage})
	progress := make(chan string, 4)
	cs, _ := startMCPWith(t, c.svc.stateDir, "mcpbuyer", &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			progress <- r.Params.Message
		},
	})
	if r := callTool(t, cs, "browser_navigate", map[string]any{"url": base + "/"}); r.isErr {
		t.Fatalf("navigate: %s", r.text)
	}
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		p := &mcp.CallToolParams{Name: "browser_click", Arguments: map[string]any{"element": "Place order", "target": "#place"}}
		p.SetProgressToken("click-1")
		res, err := cs.CallTool(ctx, p)
		done <- result{res, err}
	}()
	select {
	case msg := <-progress:
		if !strings.HasPrefix(msg, "waiting for the person to confirm: click button 'Place order' on 127.0.0.1:") {
			t.Errorf("got progress %q, want the wait in words", msg)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no progress notification while the click waits")
	}
	q := pendingAsk(t, c.agent, "mcpbuyer")
	if err := answer(t, c.agent, q.ID, false, false); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	var text string
	for _, part := range r.res.Content {
		if tc, ok := part.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if !r.res.IsError || !strings.Contains(text, "denied_by_person") || !strings.Contains(text, "Do not retry") {
		t.Errorf("got result %q (error %v), want denied_by_person saying not to retry", text, r.res.IsError)
	}
}

// selectPage has a submit button a page marks as opening a list
// (aria-haspopup), which select clicks as it clicks a widget, and a
// <select>.
const selectPage = `<!doctype html><title>shop</title>
<form id=f onsubmit="event.preventDefault(); window.submitted++">
<select id=size aria-label=Size><option>S</option><option>M</option></select>
<button id=order type=submit aria-haspopup=true>Order now</button>
</form>
<script>window.submitted = 0;</script>`

// A paired agent's select may not click what a click would have to ask
// about: a select on a submit button that says it opens a list asks the
// person as the click does (in select and in form.fill), and a no leaves
// the form unsent; a <select> asks nothing.
func TestConfirmSelectOnAWidget(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": selectPage})
	bot, tab := botSpace(t, c, "picker", base+"/")
	owner := c.agent
	if err := bot.Call(ctxT(t, 30*time.Second), protocol.MethodSelect, protocol.SelectParams{Target: tab, Element: "#size", Values: []string{"M"}}, nil); err != nil {
		t.Fatalf("select on a <select>: %v", err)
	}
	for _, tc := range []struct {
		name   string
		method string
		params any
	}{
		{"select", protocol.MethodSelect, protocol.SelectParams{Target: tab, Element: "#order", Values: []string{"Express"}}},
		{"form.fill", protocol.MethodFormFill, protocol.FormFillParams{Target: tab, Fields: []protocol.FormField{{Action: protocol.MethodSelect, Element: "#order", Values: []string{"Express"}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := callAsync(bot, tc.method, tc.params)
			q := pendingAsk(t, owner, "picker")
			if q.Kind != "submit" || !strings.Contains(q.Action, "Order now") {
				t.Errorf("got ask %q (%s), want a submit of 'Order now'", q.Action, q.Kind)
			}
			wantCode(t, deny(t, owner, q.ID, done), protocol.CodeDeniedByPerson)
			if got := pageInt(t, c, tab, "window.submitted"); got != "0" {
				t.Errorf("submitted %s times, want 0", got)
			}
		})
	}
}
