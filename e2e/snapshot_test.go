package e2e

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"

	"github.com/egohost/egohost/protocol"
)

// refRE finds the ref of an element line: after the role, the quoted name
// and the [states], before any ": value" (a "- " bullet or a diff's "+ "
// may come first). An "@N" in a name, a value or a text line is not one.
var refRE = regexp.MustCompile(`(?m)^[ +-]*[A-Za-z]+(?: "(?:[^"\\]|\\.)*")?(?: \[[^\]]*\])? @(\d+)(?:: |$)`)

// Snapshots through the whole chain: refs reach into a cross-origin iframe
// (a second 127.0.0.1 port) and an open shadow root, resolve to the right
// backendNodeIds (checked over a direct DevTools connection), hidden
// elements get none, and a ref fails closed after a navigation.
func TestSnapshotThroughChain(t *testing.T) {
	c := useSharedChain(t)
	inner := serve(t, map[string]string{"/inner": `<button>Inner button</button><a href="/x">Inner link</a>`})
	base := serve(t, map[string]string{
		"/": `<title>snap</title>
<h1>Shop</h1>
<button id="buy">Buy now</button>
<button style="display:none">Hidden button</button>
<div id="host"></div>
<iframe src="` + inner + `/inner" title="Other origin"></iframe>
<script>
document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<button>Shadow button</button>';
</script>`,
		"/next": `<title>next</title><button>Other page</button>`,
	})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 30*time.Second)

	var snap protocol.SnapshotResult
	var err error
	for i := 0; i < 50; i++ { // the iframe may still be loading
		if err = c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Refs: true}, &snap); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(snap.Text, "Inner link") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, want := range []string{`heading "Shop"`, `button "Buy now"`, `button "Shadow button"`, `button "Inner button"`, `link "Inner link"`} {
		if !strings.Contains(snap.Text, want) {
			t.Errorf("snapshot lacks %s:\n%s", want, snap.Text)
		}
	}
	if strings.Contains(snap.Text, "Hidden button") {
		t.Errorf("snapshot shows a display:none button:\n%s", snap.Text)
	}
	// Link URLs only when asked (urls), in every frame.
	if strings.Contains(snap.Text, "url=") {
		t.Errorf("snapshot without urls shows a link's URL:\n%s", snap.Text)
	}
	var withURLs protocol.SnapshotResult
	if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, URLs: true}, &withURLs); err != nil {
		t.Fatal(err)
	}
	if want := `link "Inner link" [url=/x]`; !strings.Contains(withURLs.Text, want) {
		t.Errorf("snapshot with urls lacks %s:\n%s", want, withURLs.Text)
	}
	seen := map[string]bool{}
	for _, m := range refRE.FindAllStringSubmatch(snap.Text, -1) {
		if seen[m[1]] {
			t.Errorf("ref %s appears twice", m[1])
		}
		seen[m[1]] = true
	}
	if len(snap.Refs) != len(seen) || len(seen) < 4 {
		t.Fatalf("got %d refs in the result and %d in the text, want the same, at least 4", len(snap.Refs), len(seen))
	}

	// Every ref names the node it says, checked over a direct connection.
	direct := c.directTab(t, base+"/")
	for _, r := range snap.Refs {
		if r.BackendNodeID == 0 {
			t.Errorf("ref %s has no backendNodeId", r.Ref)
			continue
		}
		s := cdp.Session(direct)
		if r.SessionID != "" {
			continue // an out-of-process frame: its session belongs to the relay's client
		}
		d, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: cdp.BackendNodeID(r.BackendNodeID)})
		if err != nil {
			t.Errorf("ref %s (%s %q): describeNode: %v", r.Ref, r.Role, r.Name, err)
			continue
		}
		if wantTag := map[string]string{"button": "BUTTON", "link": "A"}[r.Role]; wantTag != "" && d.Node.NodeName != wantTag {
			t.Errorf("ref %s (%s %q): got node %s, want %s", r.Ref, r.Role, r.Name, d.Node.NodeName, wantTag)
		}
	}

	// A ref of this tab is unknown on another tab.
	other := c.openTab(t, base+"/next")
	err = c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: other, Scope: "@" + snap.Refs[0].Ref}, nil)
	if code := protocol.CodeOf(err); code != protocol.CodeUnknownRef && code != protocol.CodeStaleRef {
		t.Errorf("ref of tab A on tab B: got %v, want unknown_ref", err)
	}

	// After a navigation, the old refs fail closed.
	if _, err := c.eval(ctx, tab, `location.href = "/next"`); err != nil {
		t.Fatal(err)
	}
	for {
		v, err := c.eval(ctx, tab, `document.title`)
		if err == nil && string(v) == `"next"` {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("navigation did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	err = c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Scope: "@" + snap.Refs[0].Ref}, nil)
	pe := wantCode(t, err, protocol.CodeStaleRef)
	if !strings.Contains(pe.Message, "navigated") {
		t.Errorf("stale ref message %q does not say the page navigated", pe.Message)
	}
}

// The CLI prints the snapshot; --json gives the refs with backendNodeIds.
func TestSnapshotCLI(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>cli</title><h1>CLI</h1><button>Press me</button><p>Some text</p>`})
	tab := c.openTab(t, base+"/")
	out, errOut, code := c.cli(tab, "snapshot")
	if code != 0 {
		t.Fatalf("egohost snapshot: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(out, `button "Press me"`) || !strings.Contains(out, "Some text") {
		t.Errorf("egohost snapshot printed:\n%s", out)
	}
	out, _, code = c.cli(tab, "snapshot", "-i")
	if code != 0 || strings.Contains(out, "Some text") || !strings.Contains(out, "Press me") {
		t.Errorf("egohost snapshot -i: exit %d\n%s", code, out)
	}
	out, _, code = c.cli(tab, "snapshot", "--json")
	var res protocol.SnapshotResult
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Refs) != 1 || res.Refs[0].BackendNodeID == 0 {
		t.Errorf("egohost snapshot --json: exit %d\n%s", code, out)
	}
	_, errOut, code = c.cli(tab, "snapshot", "--max", "x")
	if code != 2 || !strings.Contains(errOut, "--max") {
		t.Errorf("bad flag value: got exit %d %q, want exit 2 naming --max", code, errOut)
	}
	_, errOut, code = runEgohost(chainEnv(c.svc.stateDir), nil, "snapshot", "--tab", "424242")
	if code == 0 || !strings.Contains(errOut, "tab_not_found") {
		t.Errorf("unknown tab: got exit %d %q, want tab_not_found", code, errOut)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
