package snapshot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/cdpcount"
)

// The page module and snapshot.js cross chrome.debugger once per
// document: the first snapshot of a document sends them in its one
// evaluation (no round trip to learn that the world lacks them), later
// snapshots send a few hundred bytes, and a new document gets them again.
func TestScriptsGoOncePerDocument(t *testing.T) {
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/a": form, "/b": form}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/a")
	ev := &cdpcount.Params[runtime.EvaluateParams]{Page: p}
	tab := snapshot.NewTab(ev)
	check := func(what string, wantModule bool) {
		t.Helper()
		if _, err := tab.Snapshot(ctx, snapshot.Options{}); err != nil {
			t.Fatal(err)
		}
		exprs := ev.Take()
		if len(exprs) != 1 {
			t.Fatalf("%s: %d evaluations, want 1", what, len(exprs))
		}
		if got := strings.Contains(exprs[0].Expression, aria.Source()); got != wantModule {
			t.Errorf("%s: sends the page module: %v, want %v (%d bytes)", what, got, wantModule, len(exprs[0].Expression))
		}
		if !wantModule && len(exprs[0].Expression) > 1000 {
			t.Errorf("%s: %d bytes evaluated, want a few hundred", what, len(exprs[0].Expression))
		}
	}
	check("first snapshot", true)
	check("second snapshot", false)
	check("third snapshot", false)
	if _, err := cdp.Call(ctx, p, page.Navigate, page.NavigateParams{URL: srv + "/b"}); err != nil {
		t.Fatal(err)
	}
	for {
		// The frame tree names the new document once it has committed.
		ft, err := cdp.Call(ctx, p, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(ft.FrameTree.Frame.URL, "/b") {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := browsertest.WaitLoaded(ctx, p); err != nil {
		t.Fatal(err)
	}
	check("first snapshot of a new document", true)
	check("second snapshot of it", false)
}
