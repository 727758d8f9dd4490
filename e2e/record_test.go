package e2e

import (
	"strings"
	"testing"
	"time"
)

// egohost console, network and cookies through the whole chain. The page
// logs before anything of egohost followed its tab: Runtime.enable replays
// those messages, so nothing has to subscribe first.
func TestRecordCLI(t *testing.T) {
	c := useSharedChain(t)
	base := serveMCP(t)
	tab := c.openTab(t, base+"/console")
	ctx := ctxT(t, 60*time.Second)
	for {
		v, err := c.eval(ctx, tab, "document.getElementById('st').textContent")
		if err == nil && string(v) == `"data loaded: 7"` {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the page never loaded its data: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	run := func(wantCode int, args ...string) string {
		t.Helper()
		out, errOut, code := c.cli(tab, args...)
		if code != wantCode {
			t.Fatalf("egohost %s: exit %d, want %d; stdout %q stderr %q", strings.Join(args, " "), code, wantCode, out, errOut)
		}
		return out + errOut
	}
	contains := func(got string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("got\n%s\nwant it to contain %q", got, w)
			}
		}
	}

	contains(run(0, "console"), "[info] hello 42", "[warning] careful", "[error] bad thing", "[error] Uncaught Error: boom")
	errs := run(0, "console", "--level", "error")
	contains(errs, "[error] bad thing")
	if strings.Contains(errs, "hello") {
		t.Errorf("--level error kept an info message:\n%s", errs)
	}
	contains(run(1, "console", "--level", "loud"), "invalid_params")

	// Requests are recorded from when the tab is followed on: reload it.
	run(0, "reload")
	for deadline := time.Now().Add(10 * time.Second); ; {
		out := run(0, "network")
		if strings.Contains(out, base+"/api/data") && strings.Contains(out, "200") {
			contains(out, "GET", base+"/console")
			if strings.Contains(out, "pixel.png") {
				t.Errorf("network listed a static resource without --static:\n%s", out)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("egohost network never showed /api/data:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	contains(run(0, "network", "--static"), base+"/pixel.png")
	contains(run(0, "network", "--json"), `"requests":[`)

	contains(run(0, "cookies"), "no cookies for "+base+"/console")
	contains(run(0, "cookies", "set", "flavour", "oat", "--path", "/"), "flavour=oat\tdomain=127.0.0.1 path=/")
	if v, err := c.eval(ctx, tab, "document.cookie"); err != nil || string(v) != `"flavour=oat"` {
		t.Errorf("document.cookie: got %s (%v), want flavour=oat", v, err)
	}
	contains(run(0, "cookies", "get", "flavour"), "flavour=oat")
	contains(run(0, "cookies", "clear"), "deleted 1 cookie(s)")
	contains(run(1, "cookies", "set", "x", "y", "--same-site", "Sometimes"), "invalid_params")
	contains(run(2, "cookies", "set", "only-a-name"), "usage")

	run(0, "goto", "about:blank")
	contains(run(1, "cookies"), "unsupported", "navigate to an http(s) page first")
}
