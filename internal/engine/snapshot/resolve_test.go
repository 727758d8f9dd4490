package snapshot_test

import (
	"context"
	"errors"
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

// Preresolve finds several refs' elements in one round trip per frame;
// Lookup then answers them with no command of its own, the same elements
// as its own round trips give. A ref whose element went before, a locator
// and a ref of no snapshot are left to Lookup, which says what it always
// says.
func TestPreresolveAnswersLookupsAhead(t *testing.T) {
	base := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/": `<label>A <input id=a></label><label>B <input id=b></label><label>C <input id=c></label><button id=gone>Gone</button>`,
	}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := b.OpenTab(t, base+"/")
	calls := &allCalls{Page: p}
	tab := snapshot.NewTab(calls)
	snap, err := tab.Snapshot(ctx, snapshot.Options{Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	refs := []string{"@" + entry(t, snap, "textbox", "A").Ref, "@" + entry(t, snap, "textbox", "B").Ref, "@" + entry(t, snap, "textbox", "C").Ref}
	gone := "@" + entry(t, snap, "button", "Gone").Ref
	if _, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.getElementById('gone').remove()"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]cdp.BackendNodeID{}
	for _, r := range refs {
		e, err := tab.Lookup(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		want[r] = e.BackendNodeID
	}

	before := calls.n.Load()
	ahead := tab.Preresolve(ctx, append([]string{"label=A", gone, "@99999"}, refs...))
	if got := calls.n.Load() - before; got > 2 {
		t.Errorf("Preresolve sent %d commands for one frame, want at most 2 (its world, one evaluation)", got)
	}
	before = calls.n.Load()
	for _, r := range refs {
		e, err := tab.Lookup(ahead, r)
		if err != nil {
			t.Fatal(err)
		}
		if e.BackendNodeID == 0 || e.BackendNodeID != want[r] {
			t.Errorf("%s: got node %d, want %d", r, e.BackendNodeID, want[r])
		}
	}
	if got := calls.n.Load() - before; got != 0 {
		t.Errorf("Lookups of preresolved refs sent %d commands, want 0", got)
	}
	if _, err := tab.Lookup(ahead, gone); !errors.Is(err, snapshot.ErrGone) {
		t.Errorf("a ref whose element went: got %v, want ErrGone", err)
	}
	if _, err := tab.Lookup(ahead, "@99999"); !errors.Is(err, snapshot.ErrUnknownRef) {
		t.Errorf("a ref of no snapshot: got %v, want ErrUnknownRef", err)
	}
	// Another Tab, with refs of its own (the same names: its counter is
	// its own), does not answer from this one's: it resolves its ref.
	other := snapshot.NewTab(calls)
	if _, err := other.Snapshot(ctx, snapshot.Options{Interactive: true}); err != nil {
		t.Fatal(err)
	}
	before = calls.n.Load()
	if _, err := other.Lookup(ahead, refs[0]); err != nil {
		t.Fatalf("the other tab's %s: %v", refs[0], err)
	}
	if calls.n.Load() == before {
		t.Errorf("another tab answered %s from this tab's preresolved refs (no command sent)", refs[0])
	}
}
