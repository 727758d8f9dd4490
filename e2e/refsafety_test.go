package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// Issue 17 through the whole chain and the CLI: a removed twin's ref is
// stale instead of clicking the other twin; an invalid selector is a
// syntax error at once in list mode and with --wait; a button that is all
// padding has a centre for its ref; snapshot --json gives each ref's nth;
// a failed call with --json prints the error object with its kind.
func TestRefSafetyThroughChain(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>safety</title><body style="margin:0">
<script>window.events = [];</script>
<button id=del1 onclick="events.push('del1')">Delete</button>
<button id=del2 onclick="events.push('del2')">Delete</button>
<button id=pad aria-label="Pad" onclick="events.push('pad')" style="box-sizing:border-box;width:34px;height:34px;padding:17px;border:2px solid"></button>`})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 60*time.Second)

	out, errOut, code := c.cli(tab, "snapshot", "--json")
	var snap protocol.SnapshotResult
	if code != 0 || json.Unmarshal([]byte(out), &snap) != nil {
		t.Fatalf("egohost snapshot --json: exit %d\n%s%s", code, out, errOut)
	}
	refs := map[string]protocol.Ref{}
	for _, r := range snap.Refs {
		refs[fmt.Sprintf("%s %d", r.Name, r.Nth)] = r
	}
	del2, ok := refs["Delete 1"]
	if _, ok0 := refs["Delete 0"]; !ok || !ok0 {
		t.Fatalf("snapshot --json refs: got %+v, want the two Delete buttons with nth 0 and 1", snap.Refs)
	}
	pad, ok := refs["Pad 0"]
	if !ok {
		t.Fatalf("no ref for the padded button in %+v", snap.Refs)
	}

	// The padded button's centre, through its ref, is its border box's.
	out, errOut, code = c.cli(tab, "resolve", "@"+pad.Ref, "--center", "--json")
	var rr protocol.ResolveResult
	if code != 0 || json.Unmarshal([]byte(out), &rr) != nil || rr.Center == nil {
		t.Fatalf("egohost resolve @%s --center: exit %d\n%s%s", pad.Ref, code, out, errOut)
	}
	v, err := c.eval(ctx, tab, `(() => { const r = document.getElementById('pad').getBoundingClientRect(); return [r.x + r.width/2, r.y + r.height/2, r.width]; })()`)
	if err != nil {
		t.Fatal(err)
	}
	var want [3]float64
	json.Unmarshal(v, &want)
	if want[2] != 38 || math.Abs(rr.Center.X-want[0]) > 0.5 || math.Abs(rr.Center.Y-want[1]) > 0.5 {
		t.Errorf("centre of @%s: got (%.1f, %.1f), want (%.1f, %.1f) of a 38 px wide box (%.0f)", pad.Ref, rr.Center.X, rr.Center.Y, want[0], want[1], want[2])
	}
	if _, errOut, code := c.cli(tab, "click", "@"+pad.Ref); code != 0 {
		t.Errorf("egohost click @%s: exit %d: %s", pad.Ref, code, errOut)
	}

	// The second twin removed: its ref is stale, and nothing is clicked.
	if _, err := c.eval(ctx, tab, `document.getElementById('del2').remove(); events.length = 0; true`); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = c.cli(tab, "click", "@"+del2.Ref)
	if code == 0 || !strings.Contains(errOut, "stale_ref") || !strings.Contains(errOut, "@"+del2.Ref) {
		t.Errorf("egohost click @%s after its element was removed: exit %d, want stale_ref naming the ref\n%s%s", del2.Ref, code, out, errOut)
	}
	if v, err := c.eval(ctx, tab, `JSON.stringify(events)`); err != nil || string(v) != `"[]"` {
		t.Errorf("clicked: %s (%v), want nothing", v, err)
	}

	// An invalid selector in list mode, and waited for: a syntax error at
	// once (a wait would end with a timeout after 30 s).
	for _, args := range [][]string{
		{"resolve", "div[", "--json"},
		{"resolve", "div[", "--wait", "--timeout", "30s"},
		{"resolve", "div[", "--center"},
	} {
		out, errOut, code := c.cli(tab, args...)
		if code != 1 || !strings.Contains(out+errOut, "syntax_error") { // --json: on stdout
			t.Errorf("egohost %s: exit %d, want 1 and syntax_error\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}

	// With --json, the error object is on stdout, with its kind.
	out, _, _ = c.cli(tab, "resolve", "div[", "--json")
	var failed struct{ Error protocol.Error }
	if err := json.Unmarshal([]byte(out), &failed); err != nil || failed.Error.Code != protocol.CodeSyntax || failed.Error.Data["kind"] != "permanent" {
		t.Errorf("egohost resolve div[ --json: stdout %q, want the error object with code 1104 and kind permanent", out)
	}
}
