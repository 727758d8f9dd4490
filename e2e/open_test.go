package e2e

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/protocol"
)

// run runs the egohost binary against the chain's service without --tab.
func (c *chain) run(args ...string) (stdout, stderr string, code int) {
	return runEgohost(chainEnv(c.svc.stateDir), nil, args...)
}

// slowTail is how long the /slow page holds the end of its HTML: its
// button arrives, and DOMContentLoaded fires, only then.
const slowTail = 1500 * time.Millisecond

// serveOpenPages serves /page, /second and /slow (a document whose second
// half, with its button, arrives slowTail after the first).
func serveOpenPages(t *testing.T) string {
	pages := browsertest.Pages(map[string]string{
		"/page":   `<!doctype html><title>first</title><h1>First page</h1><button>Go</button>`,
		"/second": `<!doctype html><title>second</title><h1>Second page</h1>`,
	})
	return browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/slow" {
			pages.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		// Enough bytes for Chromium to start parsing before the tail.
		w.Write([]byte(`<!doctype html><title>slow</title><h1>Slow page</h1>` + strings.Repeat("<!-- padding -->", 512)))
		w.(http.Flusher).Flush()
		select {
		case <-time.After(slowTail):
		case <-r.Context().Done():
			return
		}
		w.Write([]byte(`<button>Arrived late</button>`))
	}))
}

func tabOf(t *testing.T, openOut string) protocol.Target {
	t.Helper()
	var r protocol.TabResult
	if err := json.Unmarshal([]byte(openOut), &r); err != nil || r.Tab.ID == 0 {
		t.Fatalf("open --json: %v: %q", err, openOut)
	}
	return protocol.Target{Tab: r.Tab.ID}
}

// `egohost open URL` then `egohost snapshot`, every agent's first two
// moves: open waits for the page's load, so the snapshot shows the page.
func TestOpenWaitsForLoadThenSnapshot(t *testing.T) {
	c := useSharedChain(t)
	base := serveOpenPages(t)

	out, errOut, code := c.run("open", base+"/slow", "--json")
	if code != 0 {
		t.Fatalf("open: exit %d\n%s%s", code, out, errOut)
	}
	var r protocol.TabResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Nav == nil {
		t.Fatalf("open --json: got %q (%v), want a tab with nav", out, err)
	}
	if r.Nav.Reached != "load" || r.Tab.URL != base+"/slow" || r.Tab.Title != "slow" {
		t.Errorf("open: got reached %q, url %q, title %q; want load, %s/slow, slow", r.Nav.Reached, r.Tab.URL, r.Tab.Title, base)
	}
	out, errOut, code = c.cli(protocol.Target{Tab: r.Tab.ID}, "snapshot")
	if code != 0 || !strings.Contains(out, `button "Arrived late"`) {
		t.Errorf("snapshot after open: exit %d, got %q%s, want the whole page", code, out, errOut)
	}

	// The human output says what was reached.
	out, errOut, code = c.run("open", base+"/page", "--until", "domcontentloaded")
	if code != 0 || !strings.HasPrefix(out, "opened tab ") || !strings.Contains(out, base+`/page "first": domcontentloaded in `) {
		t.Errorf("open --until domcontentloaded: exit %d, got %q%s", code, out, errOut)
	}
	if _, errOut, code = c.run("open", base+"/page", "--until", "soon"); code != 1 || !strings.Contains(errOut, `unknown load state "soon"`) {
		t.Errorf("open --until soon: exit %d, stderr %q; want 1 and the load states", code, errOut)
	}
}

// A snapshot of a document that has not reached DOMContentLoaded waits
// for it (here: open --no-wait returns while the page is still arriving).
func TestSnapshotWaitsForParsedDocument(t *testing.T) {
	c := useSharedChain(t)
	base := serveOpenPages(t)
	out, errOut, code := c.run("open", base+"/slow", "--no-wait", "--json")
	if code != 0 {
		t.Fatalf("open --no-wait: exit %d\n%s%s", code, out, errOut)
	}
	tab := tabOf(t, out)
	if v, err := c.eval(t.Context(), tab, "document.readyState"); err != nil || string(v) != `"loading"` {
		t.Fatalf("right after open --no-wait: readyState %s (%v), want loading (the fixture holds the page's tail for %v)", v, err, slowTail)
	}
	out, errOut, code = c.cli(tab, "snapshot", "--timeout", "20s")
	if code != 0 || !strings.Contains(out, `button "Arrived late"`) {
		t.Errorf("snapshot of a loading page: exit %d, got %q%s, want it to wait for the whole document", code, out, errOut)
	}
}

// A snapshot that finds nothing to show says so in one line.
func TestSnapshotOfEmptyPageSaysSo(t *testing.T) {
	c := useSharedChain(t)
	out, errOut, code := c.run("open", "about:blank", "--json")
	if code != 0 {
		t.Fatalf("open about:blank: exit %d\n%s%s", code, out, errOut)
	}
	tab := tabOf(t, out)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"snapshot"}, "(empty page: about:blank)\n"},
		{[]string{"snapshot", "-i"}, "(no interactive elements: about:blank)\n"},
	} {
		out, errOut, code := c.cli(tab, tt.args...)
		if code != 0 || out != tt.want {
			t.Errorf("egohost %s on about:blank: exit %d, got %q%s, want %q", strings.Join(tt.args, " "), code, out, errOut, tt.want)
		}
	}
}

// open and goto take a bare host as browsers do (a loopback one gets
// http://), and refuse what cannot be a URL; so do the RPC methods.
func TestOpenAndGotoBareHost(t *testing.T) {
	c := useSharedChain(t)
	base := serveOpenPages(t) // http://127.0.0.1:PORT
	bare := strings.TrimPrefix(base, "http://")
	port := bare[strings.LastIndexByte(bare, ':')+1:]

	out, errOut, code := c.run("open", bare+"/page", "--json")
	if code != 0 {
		t.Fatalf("open %s/page: exit %d\n%s%s", bare, code, out, errOut)
	}
	tab := tabOf(t, out)
	if v, err := c.eval(t.Context(), tab, "location.href"); err != nil || string(v) != strconv.Quote(base+"/page") {
		t.Errorf("open %s/page: the tab is at %s (%v), want %s/page", bare, v, err, base)
	}
	out, errOut, code = c.cli(tab, "goto", "localhost:"+port+"/second")
	if want := "http://localhost:" + port + `/second "second": load`; code != 0 || !strings.Contains(out, want) {
		t.Errorf("goto localhost:%s/second: exit %d, got %q%s, want %q", port, code, out, errOut, want)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"open", "not a url"}, `tabs.open: "not a url" cannot be a URL: it contains white space`},
		{[]string{"open", "intranet"}, `"intranet" cannot be a URL: it has no scheme and is not a host name`},
		{[]string{"goto", "javascript:alert(1)", "--tab", itoa(tab.Tab)}, `goto: "javascript:alert(1)" cannot be a URL: egohost does not navigate to javascript: URLs`},
		{[]string{"goto", "/second", "--tab", itoa(tab.Tab)}, `cannot be a URL: a relative address`},
	} {
		out, errOut, code := c.run(tt.args...)
		if code != 1 || !strings.Contains(errOut, tt.want) || !strings.Contains(errOut, "invalid_params") {
			t.Errorf("egohost %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", strings.Join(tt.args, " "), code, out, errOut, tt.want)
		}
	}
	// The tab did not move.
	if v, err := c.eval(t.Context(), tab, "location.href"); err != nil || string(v) != strconv.Quote("http://localhost:"+port+"/second") {
		t.Errorf("after the refusals the tab is at %s (%v)", v, err)
	}

	// The RPC methods normalise the same way.
	var r protocol.TabResult
	if err := c.agent.Call(t.Context(), protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: bare + "/second"}, &r); err != nil || r.Tab.URL != base+"/second" {
		t.Errorf("tabs.open %s/second: got %+v, %v", bare, r.Tab, err)
	}
	err := c.agent.Call(t.Context(), protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: "ex ample.com"}, nil)
	if protocol.CodeOf(err) != protocol.CodeInvalidParams {
		t.Errorf("goto ex ample.com over RPC: got %v, want invalid_params", err)
	}
}
