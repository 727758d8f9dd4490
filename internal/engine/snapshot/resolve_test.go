package snapshot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/engine/snapshot"
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
