package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/browsertest"
	"github.com/egohost/egohost/protocol"
)

// A dialog that opened before egohost attached to the tab: Chrome never
// reports it and the tab answers nothing. The first action fails within
// its own timeout with dialog_open, `egohost dialog dismiss` closes the
// dialog without reloading the page, and the tab works again.
func TestDialogOpenBeforeAttach(t *testing.T) {
	c := startChain(t)
	shown := make(chan struct{})
	var once sync.Once
	pages := browsertest.Pages(map[string]string{"/": `<title>alert on load</title><button id=x onclick="window.clicked = true">x</button>
<script>window.before = 42; navigator.sendBeacon('/shown'); alert('hello from load'); window.after = 1</script>`})
	base := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/shown" {
			once.Do(func() { close(shown) })
			return
		}
		pages.ServeHTTP(w, r)
	}))
	ctx := ctxT(t, 90*time.Second)
	var opened protocol.TabResult
	// tabs.open does not attach the debugger: the alert opens unseen.
	if err := c.agent.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: base + "/"}, &opened); err != nil {
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
}
