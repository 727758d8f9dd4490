package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/server/trace"
	"github.com/egohost/egohost/internal/testkit/cdpdirect"
	"github.com/egohost/egohost/protocol"
)

// tracePage: a small shop form with a title with markup (it must not run
// in the viewer), a password field, and a button that logs a console
// error and makes a request that fails (synchronously, so both land in
// the click's step). Its text is large: the README's picture of the
// viewer (docs/img/trace.png) shows its screenshots small.
const tracePage = `<!doctype html><title>&lt;script&gt;window.pwned=1&lt;/script&gt; shop</title>
<body style="margin:0;padding:20px 40px;font:44px sans-serif">
<h1 style="font-size:64px;margin:0 0 30px">Tea shop: checkout</h1>
<label>Password <input id=pw type=password style="font:inherit;width:7em"></label>
<button id=go style="margin:60px;width:240px;height:90px;font:inherit" onclick="
  console.error('checkout failed');
  const x = new XMLHttpRequest(); x.open('GET', '/missing', false); try { x.send() } catch (e) {}
  document.getElementById('out').textContent = 'Thanks'">Buy</button>
<p id=out style="color:#1a7f37;font-weight:bold"></p><button id=al style="font:inherit" onclick="alert('sure?')">Alert</button></body>`

// A paired agent with tracing on opens a page, fills a password, clicks:
// `egohost trace stop` then `trace show` give an HTML page with every
// step, two screenshots per action, the clicked element's box, the
// console error and the failed request, the page's title escaped (its
// script does not run in the viewer, checked in the browser), keyboard
// navigation; the password is nowhere in the file. The agent cannot
// start, stop or list traces. Once stopped, nothing more is recorded.
func TestTraceAgentSteps(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": tracePage})
	ctx := ctxT(t, 3*time.Minute)
	env := chainEnv(c.svc.stateDir)
	name := fmt.Sprintf("tracebot-%d", time.Now().UnixNano()%1e6)
	file := name + ".jsonl"

	out, errOut, code := runCLI(env, "trace", "start", "--agent", name, "--out", name)
	if code != 0 || !strings.Contains(out, file) {
		t.Fatalf("trace start: %d %s %s", code, out, errOut)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			runCLI(env, "trace", "stop")
		}
	})

	tok := pairDirect(t, c, name)
	bot := dialToken(t, c, tok)
	// Its click on Buy asks the person (agents.confirm's default): the
	// owner says yes as it asks, and the trace has the wait in its step.
	allowAsks(t, c.agent, name)
	var sp protocol.SpaceResult
	if err := bot.Call(ctx, protocol.MethodSpacesNew, protocol.SpacesNewParams{URL: base + "/"}, &sp); err != nil {
		t.Fatalf("space: %v", err)
	}
	tab := protocol.Target{Tab: sp.Tab.ID}
	const secret = "hunter2-trace-secret"
	calls := []struct {
		method string
		params any
	}{
		{protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: base + "/"}},
		{protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab}},
		{protocol.MethodFill, protocol.FillParams{Target: tab, Element: "#pw", Text: secret}},
		{protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#go"}},
		{protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Diff: true}},
	}
	for _, cl := range calls {
		if err := bot.Call(ctx, cl.method, cl.params, nil); err != nil {
			t.Fatalf("%s: %v", cl.method, err)
		}
	}
	// A dialog open: Chrome draws no frame, so the step says why it has
	// no picture after (a capture would hold the agent's call).
	if err := bot.Call(ctx, protocol.MethodPress, protocol.PressParams{Target: tab, Element: "#al", Key: "Enter"}, nil); err != nil {
		t.Fatalf("press: %v", err)
	}
	if err := bot.Call(ctx, protocol.MethodDialog, protocol.DialogParams{Target: tab, Accept: true}, nil); err != nil {
		t.Fatalf("dialog: %v", err)
	}

	// The agent, through the CLI with its own token: refused.
	tokFile := filepath.Join(t.TempDir(), "agent.token")
	if err := os.WriteFile(tokFile, []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	agentEnv := append(append([]string{}, env...), "EGOHOST_AGENT_TOKEN_FILE="+tokFile)
	for _, args := range [][]string{{"trace", "stop"}, {"trace", "list"}, {"trace", "start", "--out", "mine"}, {"trace", "show", file}} {
		if out, errOut, code := runCLI(agentEnv, args...); code == 0 || !strings.Contains(errOut, "scope_denied") {
			t.Errorf("%s as the agent: code %d, %s %s; want scope_denied", strings.Join(args, " "), code, out, errOut)
		}
	}

	// The popup's Agents tab: the agent's card says the trace is on, and
	// its button opens the agent's last steps as the viewer's page.
	pop := openPopup(ctx, t, c, tab.Tab)
	pop.click(ctx, "#tab-agents")
	card := fmt.Sprintf(`document.querySelector('#agents-list li.agent-card[data-agent=%q]')`, name)
	pop.waitFor(ctx, name+"'s card marked trace on", card+`?.querySelector('.trace-on')?.textContent.includes('trace on')`)
	if got := evalString(pop, `[...document.querySelectorAll('#agents-list li.agent-card')].filter((c) => c.dataset.agent !== `+jsonString(name)+` && c.querySelector('.trace-on')).map((c) => c.dataset.agent).join()`); got != "" {
		t.Errorf("cards of agents not traced marked trace on: %s", got)
	}
	before := pageTargets(t, c.direct)
	pop.click(ctx, fmt.Sprintf(`#agents-list li.agent-card[data-agent=%q] button.trace-open`, name))
	var viewer *cdpdirect.Session
	for deadline := time.Now().Add(20 * time.Second); viewer == nil; {
		targets, err := cdp.Call(ctx, c.direct.Browser(), target.GetTargets, target.GetTargetsParams{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ti := range targets.TargetInfos {
			if ti.Type == "page" && !before[ti.TargetID] && strings.HasPrefix(ti.URL, "blob:chrome-extension://") {
				if viewer, err = c.direct.Attach(ctx, ti.TargetID); err != nil {
					t.Fatal(err)
				}
			}
		}
		if viewer == nil {
			if time.Now().After(deadline) {
				t.Fatal("the popup's trace button opened no blob: tab")
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	viewerPage := &ui{t: t, s: viewer}
	viewerPage.waitFor(ctx, "the viewer's steps in the new tab", `document.querySelectorAll('section.step').length >= 4 && document.querySelectorAll('section.step img').length >= 6 && !!document.querySelector('.box')`)

	out, errOut, code = runCLI(env, "trace", "stop")
	if code != 0 || !strings.Contains(out, file) {
		t.Fatalf("trace stop: %d %s %s", code, out, errOut)
	}
	stopped = true
	path := filepath.Join(c.svc.stateDir, "traces", file)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Tracing off: the agent's next click records nothing.
	var untraced protocol.ActionResult
	if err := bot.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#go"}, &untraced); err != nil {
		t.Fatalf("click after the stop: %v", err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, raw) {
		t.Error("the trace changed after trace stop")
	}
	if out, _, _ := runCLI(env, "trace", "list"); strings.Contains(out, "recording") || !strings.Contains(out, file) {
		t.Errorf("trace list after the stop: %s", out)
	}

	if bytes.Contains(raw, []byte("hunter2")) {
		t.Error("the password the agent filled is in the trace")
	}
	tr, err := trace.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	steps := map[string][]trace.Step{}
	for _, s := range tr.Steps {
		if s.Call.Agent != name {
			t.Errorf("step %d is %s's, want only %s's", s.N, s.Call.Agent, name)
		}
		steps[s.Call.Method] = append(steps[s.Call.Method], s)
	}
	for _, m := range []string{protocol.MethodGoto, protocol.MethodFill, protocol.MethodClick} {
		if len(steps[m]) != 1 {
			t.Fatalf("got %d %s steps, want 1 (steps: %v)", len(steps[m]), m, steps)
		}
		s := steps[m][0]
		for i, sh := range []*trace.Shot{s.Before, s.After} {
			if sh == nil || len(sh.JPEG) == 0 || sh.Width > 800 || sh.Width < 100 {
				t.Errorf("%s: screenshot %d: got %+v, want a JPEG at most 800 px wide", m, i, sh)
			}
		}
	}
	fill, click := steps[protocol.MethodFill][0], steps[protocol.MethodClick][0]
	if fill.Call.Length == nil || *fill.Call.Length != len(secret) || fill.Call.Target != "#pw" {
		t.Errorf("fill: got %+v, want #pw and the text's length only", fill.Call)
	}
	if b := click.Box; b == nil || b.W < 150 || b.H < 40 || b.X < 50 {
		t.Errorf("click: got box %+v, want the button's (240×90, 60 px past the field)", b)
	}
	if !strings.Contains(strings.Join(click.Console, "\n"), "checkout failed") {
		t.Errorf("click: got console %q, want the page's error", click.Console)
	}
	if !strings.Contains(strings.Join(click.Failed, "\n"), "/missing: 404") {
		t.Errorf("click: got failed requests %q, want the 404", click.Failed)
	}
	for m, want := range map[string]string{protocol.MethodPress: "dialog"} {
		if got := steps[m]; len(got) != 1 || !strings.Contains(got[0].NoShot, want) || got[0].After != nil {
			t.Errorf("%s: got %+v, want no picture after it, saying %q", m, got, want)
		}
	}
	size, shots := 0, 0
	for _, s := range tr.Steps {
		for _, sh := range []*trace.Shot{s.Before, s.After} {
			if sh != nil {
				size += len(sh.JPEG)
				shots++
			}
		}
	}
	t.Logf("trace: %d steps in %d bytes; %d screenshots, %d bytes of JPEG on average; the traced click took %.1f ms in the service (two screenshots included), the untraced one %.1f ms in the runner", len(tr.Steps), len(raw), shots, size/max(shots, 1), click.Call.Duration, untraced.TookMs)
	if snaps := steps[protocol.MethodSnapshot]; len(snaps) != 2 || !strings.Contains(snaps[1].Diff, "Thanks") {
		t.Errorf("got snapshot steps %+v, want the second with its diff", snaps)
	}

	// The viewer.
	html := filepath.Join(t.TempDir(), "trace.html")
	if out, errOut, code := runCLI(env, "trace", "show", file, "--html", html); code != 0 {
		t.Fatalf("trace show: %d %s %s", code, out, errOut)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(page)
	if got := strings.Count(doc, `<section id="step-`); got != len(tr.Steps) {
		t.Errorf("got %d steps in the page, want %d", got, len(tr.Steps))
	}
	if got := strings.Count(doc, "<img "); got != shots || shots < 6 {
		t.Errorf("got %d images, want the trace's %d (two for each action: goto, fill, click, the space's first load)", got, shots)
	}
	if !strings.Contains(doc, `class="box"`) {
		t.Error("no element box drawn")
	}
	if strings.Contains(doc, "<script>window.pwned") || !strings.Contains(doc, "&lt;script&gt;window.pwned") {
		t.Error("the page's title is not escaped in the viewer")
	}
	if m := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:|//)`).FindString(doc); m != "" {
		t.Errorf("the viewer refers to elsewhere: %s", m)
	}
	// In the browser: the title's script did not run, the arrow keys step.
	s, _, err := c.direct.NewPage(ctx, "file://"+html)
	if err != nil {
		t.Fatal(err)
	}
	eval := func(expr string) string {
		t.Helper()
		yes := true
		for deadline := time.Now().Add(20 * time.Second); ; {
			res, err := cdp.Call(ctx, s, cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: expr, ReturnByValue: &yes})
			if err == nil && res.ExceptionDetails == nil {
				return string(res.Result.Value)
			}
			if time.Now().After(deadline) {
				t.Fatalf("evaluate %s: %v %+v", expr, err, res)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	on := `document.readyState === "complete" ? document.querySelector("section.on").id : "loading"`
	for deadline := time.Now().Add(20 * time.Second); eval(on) == `"loading"` && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	if got := eval(on); got != `"step-1"` {
		t.Errorf("got %s shown first, want step-1", got)
	}
	if got := eval(`String(window.pwned)`); got != `"undefined"` {
		t.Errorf("window.pwned is %s: the page title's script ran in the viewer", got)
	}
	for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeKeyDown, input.DispatchKeyEventTypeKeyUp} {
		if _, err := cdp.Call(ctx, s, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: typ, Key: "ArrowRight", Code: "ArrowRight", WindowsVirtualKeyCode: 39}); err != nil {
			t.Fatal(err)
		}
	}
	if got := eval(on); got != `"step-2"` {
		t.Errorf("after → got %s shown, want step-2", got)
	}
	var focused string
	json.Unmarshal([]byte(eval(`document.activeElement.dataset.step || ""`)), &focused)
	if focused != "2" {
		t.Errorf("after → the focus is on step %q, want 2", focused)
	}

	// EGOHOST_SCREENSHOTS=dir: docs/img/trace.png, the click's step
	// (scripts/trace-screenshot.sh).
	if os.Getenv("EGOHOST_SCREENSHOTS") != "" {
		if _, err := cdp.Call(ctx, s, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 1100, Height: 640, DeviceScaleFactor: 1}); err != nil {
			t.Fatal(err)
		}
		eval(fmt.Sprintf(`document.querySelector('nav a[data-step="%d"]').click()`, click.N))
		if got := eval(on); got != fmt.Sprintf(`"step-%d"`, click.N) {
			t.Fatalf("got %s shown, want the click's step %d", got, click.N)
		}
		eval(`document.activeElement.blur()`)
		(&ui{t: t, s: s}).screenshot(ctx, "trace")
	}
}
