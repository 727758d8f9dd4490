package snapshot_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// Resolve gives every ref the backendNodeId Lookup gives it, in one round
// trip per frame, across same-origin and out-of-process frames.
func TestResolveMatchesLookup(t *testing.T) {
	inner := browsertest.Serve(t, browsertest.Pages(map[string]string{"/in": `<button>In A</button><button>In B</button>`}))
	oop := strings.Replace(inner, "127.0.0.1", "localhost", 1)
	base := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/":     `<button>One</button><a href="/x">Two</a><iframe src="/same"></iframe><iframe src="` + oop + `/in"></iframe>`,
		"/same": `<button>Same frame</button>`,
	}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := b.OpenTab(t, base+"/")
	tab := snapshot.NewTab(p)
	var snap *snapshot.Snapshot
	for ctx.Err() == nil { // wait for both frames' content
		var err error
		if snap, err = tab.Snapshot(ctx, snapshot.Options{}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(snap.Text, "In B") && strings.Contains(snap.Text, "Same frame") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	got, err := tab.Resolve(ctx, snap.Entries)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(snap.Entries) || len(got) < 5 {
		t.Fatalf("got %d resolved refs of %d:\n%s", len(got), len(snap.Entries), snap.Text)
	}
	for _, e := range got {
		want, err := tab.Lookup(ctx, "@"+e.Ref)
		if err != nil {
			t.Fatal(err)
		}
		if e.BackendNodeID == 0 || e.BackendNodeID != want.BackendNodeID {
			t.Errorf("@%s (%s %q): Resolve gave node %d, Lookup %d", e.Ref, e.Role, e.Name, e.BackendNodeID, want.BackendNodeID)
		}
	}
}

// allCalls counts every CDP command a Tab sends.
type allCalls struct {
	*cdptab.Page
	n atomic.Int64
}

func (c *allCalls) Call(ctx context.Context, method string, params, result any) error {
	c.n.Add(1)
	return c.Page.Call(ctx, method, params, result)
}

// Local names a ref's element with no command sent: its expression,
// evaluated in egohost's world of the ref's document, is the element
// Lookup finds; null for a ref whose element went. A ref of no snapshot
// has no Local.
func TestLocalNamesTheRefsElement(t *testing.T) {
	base := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/": `<label>A <input id=a></label><label>B <input id=b></label><button id=gone>Gone</button>`,
	}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := b.OpenTab(t, base+"/")
	calls := &allCalls{Page: p}
	tab := snapshot.NewTab(calls)
	snap := snap(t, ctx, tab, snapshot.Options{Interactive: true})
	world := browsertest.MainWorld(ctx, t, p, "egohost")
	eval := func(expr string) *runtime.RemoteObject {
		t.Helper()
		res, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: world, SerializationOptions: cdptab.DeepNodes()})
		if err != nil || res.ExceptionDetails != nil {
			t.Fatalf("evaluate: %v %+v", err, res.ExceptionDetails)
		}
		return res.Result
	}
	for _, name := range []string{"A", "B"} {
		ref := "@" + entry(t, snap, "textbox", name).Ref
		want, err := tab.Lookup(ctx, ref)
		if err != nil {
			t.Fatal(err)
		}
		before := calls.n.Load()
		e, expr, ok := tab.Local(ref)
		if !ok || e.Ref != want.Ref || e.LoaderID == "" {
			t.Fatalf("Local(%s): got %+v, %t; want its entry", ref, e, ok)
		}
		if n := calls.n.Load() - before; n != 0 {
			t.Errorf("Local(%s) sent %d commands, want 0", ref, n)
		}
		got := eval(expr)
		var node struct {
			BackendNodeID cdp.BackendNodeID `json:"backendNodeId"`
		}
		if got.Subtype != "node" || got.DeepSerializedValue == nil || json.Unmarshal(got.DeepSerializedValue.Value, &node) != nil || node.BackendNodeID != want.BackendNodeID {
			t.Errorf("%s: the expression gave %+v, want node %d", ref, got, want.BackendNodeID)
		}
	}
	gone := "@" + entry(t, snap, "button", "Gone").Ref
	if _, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.getElementById('gone').remove()"}); err != nil {
		t.Fatal(err)
	}
	_, expr, ok := tab.Local(gone)
	if !ok {
		t.Fatalf("Local(%s): no expression", gone)
	}
	if got := eval(expr); got.Type != "object" || got.Subtype != "null" {
		t.Errorf("a ref whose element went: got %+v, want null", got)
	}
	if _, _, ok := tab.Local("@99999"); ok {
		t.Error("a ref of no snapshot: got ok, want none")
	}
}
