package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// The resolution pipeline through the whole chain: every answer crosses
// the extension, and the CLI prints counts, matches and classified errors.
func TestResolveThroughChain(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>resolve</title>
<form aria-label="Profile">
  <label>Email <input id="email" placeholder="you@example.com"></label>
  <button id="save">Save</button>
  <button class="item">Item</button><button class="item">Item</button><button class="item">Item</button>
</form>
<div id="host"></div>
<script>
document.getElementById('host').attachShadow({mode:'open'}).innerHTML = '<button>Deep</button>';
setTimeout(() => { const b = document.createElement('button'); b.textContent = 'Late'; document.body.append(b); }, 500);
</script>`})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 30*time.Second)
	resolve := func(target string, wait bool) (protocol.ResolveResult, error) {
		var r protocol.ResolveResult
		err := c.agent.Call(ctx, protocol.MethodResolve, protocol.ResolveParams{Target: tab, Element: target, Wait: wait}, &r)
		return r, err
	}
	tests := []struct {
		target    string
		wantCount int
		wantRole  string
		wantName  string
	}{
		{`role=button[name="Save"]`, 1, "button", "Save"},
		{`role:button[name="Save"]`, 1, "button", "Save"},
		{`#save`, 1, "button", "Save"},
		{`css=button.item`, 3, "button", "Item"},
		{`text=Item`, 3, "button", "Item"},
		{`label=Email`, 1, "textbox", "Email"},
		{`placeholder=you@example.com`, 1, "textbox", "Email"},
		{`xpath=//button[@id="save"]`, 1, "button", "Save"},
		{`css=button.item >> nth=1`, 1, "button", "Item"},
		{`text=Deep`, 1, "button", "Deep"},
		{`role=button[name="Nope"]`, 0, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			r, err := resolve(tt.target, false)
			if err != nil {
				t.Fatal(err)
			}
			if r.Count != tt.wantCount || len(r.Matches) != tt.wantCount {
				t.Fatalf("got %d matches (%+v), want %d", r.Count, r.Matches, tt.wantCount)
			}
			if tt.wantCount == 0 {
				return
			}
			if m := r.Matches[0]; m.Role != tt.wantRole || m.Name != tt.wantName || m.BackendNodeID == 0 || m.Box == nil {
				t.Errorf("got %+v, want %s %q with a node and a box", m, tt.wantRole, tt.wantName)
			}
			if (tt.wantCount == 1) != (r.Center != nil) {
				t.Errorf("centre: got %v for %d matches", r.Center, tt.wantCount)
			}
		})
	}

	// The centre is where the page says the element is.
	r, err := resolve("#save", false)
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.eval(ctx, tab, `(() => { const b = document.getElementById('save').getBoundingClientRect(); return [b.x + b.width/2, b.y + b.height/2]; })()`)
	if err != nil {
		t.Fatal(err)
	}
	var want [2]float64
	json.Unmarshal(v, &want)
	if d := r.Center.X - want[0] + r.Center.Y - want[1]; d > 2 || d < -2 {
		t.Errorf("centre: got (%.1f, %.1f), the page says (%.1f, %.1f)", r.Center.X, r.Center.Y, want[0], want[1])
	}

	// The seed's return modes: one element's centre, or a remote object.
	var one protocol.ResolveResult
	if err := c.agent.Call(ctx, protocol.MethodResolve, protocol.ResolveParams{Target: tab, Element: "#save", Mode: protocol.ResolveCenter}, &one); err != nil || one.Center == nil || *one.Center != *r.Center {
		t.Errorf("mode center: got %+v, %v; want %+v", one.Center, err, r.Center)
	}
	if err := c.agent.Call(ctx, protocol.MethodResolve, protocol.ResolveParams{Target: tab, Element: "#save", Mode: protocol.ResolveObject}, &one); err != nil || one.Object == nil || one.Object.ObjectID == "" {
		t.Errorf("mode object: got %+v, %v", one.Object, err)
	}
	err = c.agent.Call(ctx, protocol.MethodResolve, protocol.ResolveParams{Target: tab, Element: "css=button.item", Mode: protocol.ResolveCenter}, nil)
	if pe := wantCode(t, err, protocol.CodeAmbiguous); !strings.Contains(pe.Message, "3") || pe.Data["kind"] != "permanent" {
		t.Errorf("strict centre of 3 elements: %v %v, want ambiguous naming 3, permanent", pe, pe.Data)
	}
	err = c.agent.Call(ctx, protocol.MethodResolve, protocol.ResolveParams{Target: tab, Element: "#nope", Mode: protocol.ResolveCenter, Wait: true, TimeoutMs: 300}, nil)
	if pe := wantCode(t, err, protocol.CodeTimeout); !strings.Contains(pe.Message, "#nope") {
		t.Errorf("wait for a missing element: %v, want a timeout naming the target and its last cause", pe)
	}

	// Waiting: an element that appears after 500 ms.
	r, err = resolve("text=Late", true)
	if err != nil || r.Count != 1 {
		t.Errorf("wait for a late element: got %+v, %v", r, err)
	}

	// A syntax error is permanent and names the offset.
	_, err = resolve(`role=button[name="Save"`, false)
	pe := wantCode(t, err, protocol.CodeSyntax)
	if _, ok := pe.Data["offset"]; !ok || pe.Data["kind"] != "permanent" {
		t.Errorf("syntax error data: got %v, want offset and kind permanent", pe.Data)
	}

	// A ref from a snapshot resolves to the same node.
	var snap protocol.SnapshotResult
	if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Interactive: true, Refs: true}, &snap); err != nil {
		t.Fatal(err)
	}
	var saveRef protocol.Ref
	for _, rf := range snap.Refs {
		if rf.Name == "Save" {
			saveRef = rf
		}
	}
	r, err = resolve("@"+saveRef.Ref, false)
	if err != nil || r.Count != 1 || r.Matches[0].BackendNodeID != saveRef.BackendNodeID {
		t.Errorf("resolve @%s: got %+v, %v; want backendNodeId %d", saveRef.Ref, r, err, saveRef.BackendNodeID)
	}

	// A snapshot scoped by a locator.
	var scoped protocol.SnapshotResult
	if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Scope: `role=form`}, &scoped); err != nil {
		t.Fatalf("scoped snapshot: %v", err)
	}
	if !strings.Contains(scoped.Text, `"Save"`) || strings.Contains(scoped.Text, "Deep") {
		t.Errorf("scoped snapshot:\n%s", scoped.Text)
	}

	// The CLI.
	out, errOut, code := c.cli(tab, "resolve", "css=button.item")
	if code != 0 || !strings.HasPrefix(out, "3 elements") || strings.Count(out, `"Item"`) != 3 {
		t.Errorf("egohost resolve css=button.item: exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = c.cli(tab, "resolve", `role=button[name="Save"]`, "--json")
	var rr protocol.ResolveResult
	if code != 0 || json.Unmarshal([]byte(out), &rr) != nil || rr.Count != 1 || rr.Center == nil {
		t.Errorf("egohost resolve --json: exit %d\n%s", code, out)
	}
	// A locator that does not parse is a usage error, found before the
	// CLI dials the service (the service's own syntax_error, for a CSS
	// selector only the browser rejects, is in TestRefSafetyThroughChain).
	_, errOut, code = c.cli(tab, "resolve", `role=button[name=`)
	if code != 2 || !strings.Contains(errOut, "invalid locator") || !strings.Contains(errOut, "unclosed [") {
		t.Errorf("egohost resolve with a syntax error: exit %d, stderr %q; want exit 2 naming the locator's mistake", code, errOut)
	}
}
