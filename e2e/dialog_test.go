package e2e

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/protocol"
)

// A dialog that opened before egohost attached to the tab: Chrome never
// reports it and the tab answers nothing. The first action fails within
// its own timeout with dialog_open, `egohost dialog dismiss` closes the
// dialog without reloading the page, and the tab works again.
func TestDialogOpenBeforeAttach(t *testing.T) {
	c := useSharedChain(t)
	shown := make(chan struct{})
	var once sync.Once
	pages := browsertest.Pages(map[string]string{"/": `<title>alert on load</title><button id=x onclick="window.clicked = true">x</button>
<script>window.before = 42; navigator.sendBeacon('/shown'); alert('hello from load'); window.after = 1</script>`,
		"/confirm": `<title>confirm on load</title><script>navigator.sendBeacon('/shown'); window.answer = confirm('sure?')</script>`})
	confirmShown := make(chan struct{})
	var confirmOnce sync.Once
	base := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/shown" {
			if strings.HasSuffix(r.Referer(), "/confirm") {
				confirmOnce.Do(func() { close(confirmShown) })
			} else {
				once.Do(func() { close(shown) })
			}
			return
		}
		pages.ServeHTTP(w, r)
	}))
	ctx := ctxT(t, 90*time.Second)
	var opened protocol.TabResult
	// tabs.open with noWait does not attach the debugger: the alert opens unseen.
	if err := c.agent.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: base + "/", NoWait: true}, &opened); err != nil {
		t.Fatal(err)
	}
	tab := protocol.Target{Tab: opened.Tab.ID}
	select {
	case <-shown:
	case <-ctx.Done():
		t.Fatal("the page never reached its alert")
	}
	time.Sleep(300 * time.Millisecond) // the beacon goes just before alert(): let the dialog show

	// The repro, through the CLI: an error naming the dialog, not
	// the request deadline's "context deadline exceeded".
	out, errOut, code := c.cli(tab, "click", "#x", "--timeout", "4s")
	if code == 0 || !strings.Contains(errOut, "dialog") || strings.Contains(errOut, "deadline exceeded") {
		t.Errorf("egohost click under an unreported dialog: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#x", ActionOptions: protocol.ActionOptions{TimeoutMs: 4000}}, nil)
	pe := wantCode(t, err, protocol.CodeDialogOpen)
	if pe.Data["unreported"] != true {
		t.Errorf("click: got data %v, want unreported: true", pe.Data)
	}

	out, errOut, code = c.cli(tab, "dialog", "dismiss")
	if code != 0 || !strings.Contains(out, "dismissed") {
		t.Fatalf("egohost dialog dismiss: exit %d\nstdout: %s\nstderr: %s\nservice log:\n%s", code, out, errOut, c.svc.logs)
	}
	// The script went on after alert() returned, in the same document.
	var ev protocol.EvalResult
	if err := c.agent.Call(ctx, protocol.MethodEval, protocol.EvalParams{Target: tab, Expression: "[window.before, window.after]"}, &ev); err != nil {
		t.Fatalf("eval after the dismiss: %v", err)
	}
	if got := fmt.Sprint(ev.Value); got != "[42 1]" {
		t.Errorf("page state after the dismiss: got %s, want [42,1] (no reload)", ev.Value)
	}
	if err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#x"}, nil); err != nil {
		t.Fatalf("click after the dismiss: %v", err)
	}
	v, err := c.eval(ctx, tab, "window.clicked === true")
	if err != nil || string(v) != "true" {
		t.Errorf("the click did not reach the page: %s, %v", v, err)
	}

	// A confirm() open before the attach: Chrome lets egohost only dismiss
	// it, even when asked to accept, and says so.
	if err := c.agent.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: base + "/confirm", NoWait: true}, &opened); err != nil {
		t.Fatal(err)
	}
	tab = protocol.Target{Tab: opened.Tab.ID}
	select {
	case <-confirmShown:
	case <-ctx.Done():
		t.Fatal("the page never reached its confirm")
	}
	time.Sleep(300 * time.Millisecond)
	var dr protocol.DialogResult
	if err := c.agent.Call(ctx, protocol.MethodDialog, protocol.DialogParams{Target: tab, Accept: true}, &dr); err != nil {
		t.Fatalf("dialog accept on an unreported confirm: %v", err)
	}
	if !dr.Unreported || dr.Accepted {
		t.Errorf("dialog accept: got %+v, want unreported and not accepted", dr)
	}
	v, err = c.eval(ctx, tab, "window.answer")
	if err != nil || string(v) != "false" {
		t.Errorf("confirm() returned %s (%v), want false (dismissed)", v, err)
	}
}

// Closing a tab whose page asks whether to leave (a beforeunload handler,
// after the page was used): the close fails at once with dialog_open
// naming the question, not at the request's deadline; dismissing the
// dialog keeps the tab with its page as it was, accepting it closes the
// tab.
func TestCloseATabThatAsksBeforeLeaving(t *testing.T) {
	c := useSharedChain(t)
	base := serveHandler(t, browsertest.Pages(map[string]string{"/": `<title>draft</title><textarea id=draft></textarea>
<script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = '' })</script>`}))
	ctx := ctxT(t, 60*time.Second)
	tab := c.openTab(t, base+"/")
	// Chrome asks only on a page the person (here egohost's input) used.
	c.cliOK(t, tab, "click", "#draft")
	c.cliOK(t, tab, "type", "#draft", "unsaved")

	open := func() bool {
		t.Helper()
		var l protocol.TabsListResult
		if err := c.agent.Call(ctx, protocol.MethodTabsList, nil, &l); err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(l.Tabs, func(x protocol.Tab) bool { return x.ID == tab.Tab })
	}
	closeHeld := func() {
		t.Helper()
		start := time.Now()
		out, errOut, code := c.cli(tab, "close")
		// Well under the request's 30 s: the dialog is seen as it opens.
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("egohost close took %v: it waited for a deadline, not for the dialog", took)
		}
		if code != 1 || !strings.Contains(errOut, "beforeunload") || !strings.Contains(errOut, "dialog_open") {
			t.Fatalf("egohost close of a page that asks: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
		}
	}

	closeHeld()
	var dr protocol.DialogResult
	if err := c.agent.Call(ctx, protocol.MethodDialog, protocol.DialogParams{Target: tab}, &dr); err != nil {
		t.Fatalf("dialog dismiss: %v", err)
	}
	if dr.Dialog == nil || dr.Dialog.Type != "beforeunload" {
		t.Errorf("dismissed %+v, want the beforeunload dialog", dr.Dialog)
	}
	if !open() {
		t.Fatal("the tab closed though its dialog was dismissed")
	}
	if v, err := c.eval(ctx, tab, "document.querySelector('#draft').value"); err != nil || string(v) != `"unsaved"` {
		t.Errorf("the page after the dismiss: got %s (%v), want its draft", v, err)
	}

	closeHeld()
	c.cliOK(t, tab, "dialog", "accept")
	for deadline := time.Now().Add(5 * time.Second); open(); {
		if time.Now().After(deadline) {
			t.Fatal("the tab is still open 5 s after its dialog was accepted")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
