package resolver_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/resolver"
)

// A page that would notice egohost's token set in its own world: the
// setter of the token's global marks the document.
const tokenTrap = `<script>Object.defineProperty(window, '__egohostWorld1', {set() { document.documentElement.dataset.trapped = 'yes'; }});</script>`

// With FollowNewDocuments, a document that starts after it has egohost's
// world made by Chrome: a preparation right after the commit and the
// resolutions after it (in the main frame and in a same-process iframe)
// make no world; the world is egohost's isolated one, not the page's
// (whose trap for the token stays untouched); a document that was there
// before gets its world made as before; and after Stop, worlds are made
// again.
func TestNewDocumentsHaveTheirWorldMadeByChrome(t *testing.T) {
	b := browsers.Launch(t)
	base := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/one":   `<!doctype html><button>One</button>`,
		"/two":   `<!doctype html>` + tokenTrap + `<button>Two</button><iframe src="/inner"></iframe><script>let t = Date.now(); while (Date.now() - t < 30);</script>`,
		"/inner": `<!doctype html>` + tokenTrap + `<button id=inner>Inner</button>`,
		"/three": `<!doctype html><button>Three</button>`,
	}))
	p, ctx := tab0(t, b, base+"/one")
	// What page.Tab does before it follows new documents: Chrome runs
	// their scripts only with Page on, and tells of contexts with Runtime.
	if _, err := cdp.Call(ctx, p, page.Enable, page.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cdp.Call(ctx, p, runtime.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	counted := &worldsMade{Page: p}
	st := snapshot.NewTab(counted)
	r := resolver.New(counted, st)
	st.UseMainWorld(r.MainWorld)
	nd, err := resolver.FollowNewDocuments(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer nd.Stop()
	r.UseNewDocuments(nd)
	r.KeepOnPrepare(snapshot.Walker())

	// /one was loaded before: its world is made.
	if n, err := r.Count(ctx, "role=button[name=One]"); err != nil || n != 1 {
		t.Fatalf("count on the document from before: got %d, %v; want 1", n, err)
	}
	if got := counted.n.Load(); got != 1 {
		t.Fatalf("worlds made for the document from before: got %d, want 1", got)
	}

	counted.n.Store(0)
	counted.big.Store(0)
	if _, err := cdp.Call(ctx, p, page.Navigate, page.NavigateParams{URL: base + "/two"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Prepare(ctx); err != nil {
		t.Fatalf("prepare at the commit: %v", err)
	}
	if got := counted.big.Load(); got != 1 {
		t.Fatalf("the preparation's evaluations that sent the module: got %d, want 1 (with the token)", got)
	}
	w, ok := r.MainWorld(ctx)
	if !ok || !w.Module || w.Loader == "" || !w.Kept[snapshot.Walker().Key()] {
		t.Fatalf("the prepared world: got %+v, %v; want one with the module and the snapshot's walk, of a known document", w, ok)
	}
	yes := true
	kept, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{
		Expression: "typeof globalThis." + snapshot.Walker().Key(), ContextID: w.Context, ReturnByValue: &yes,
	})
	if err != nil || string(kept.Result.Value) != `"function"` {
		t.Fatalf("the snapshot's walk in the prepared world: got %v, %v; want a function", kept, err)
	}
	if err := countOne(ctx, r, "role=button[name=Two]"); err != nil {
		t.Fatalf("on the new document: %v", err)
	}
	if got := counted.n.Load(); got != 0 {
		t.Fatalf("worlds made in the new document: got %d, want 0 (Chrome made it)", got)
	}
	// The iframe, once its document is there (before, its first document
	// is the initial empty one, which Chrome makes no world in).
	if _, err := resolver.Wait(ctx, func(ctx context.Context) (bool, error) {
		res, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{Expression: `document.querySelector('iframe').contentDocument?.getElementById('inner') != null`})
		if err == nil && string(res.Result.Value) == "true" {
			return true, nil
		}
		return false, &resolver.Error{Kind: resolver.Transient, Op: "test", Err: fmt.Errorf("no iframe yet (%v)", err)}
	}); err != nil {
		t.Fatal(err)
	}
	if err := countOne(ctx, r, "#inner"); err != nil {
		t.Fatalf("in the iframe: %v", err)
	}
	if got := counted.n.Load(); got != 0 {
		t.Fatalf("worlds made in the new document's iframe: got %d, want 0 (Chrome made it)", got)
	}
	for _, expr := range []string{
		`document.documentElement.dataset.trapped || 'no'`,
		`document.querySelector('iframe').contentDocument.documentElement.dataset.trapped || 'no'`,
	} {
		res, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(res.Result.Value); got != `"no"` {
			t.Fatalf("%s in the page's world: got %s, want \"no\" (egohost's token reached the page's own world)", expr, got)
		}
	}

	// A snapshot walks the main frame with what the preparation sent: no
	// source of its own (an evaluation under 10,000 characters).
	big := counted.big.Load()
	snap, err := st.Snapshot(ctx, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(snap.Text, `button "Two"`) {
		t.Fatalf("snapshot of the new document: got %q, want its button", snap.Text)
	}
	if got := counted.big.Load() - big; got > 1 {
		t.Fatalf("evaluations that sent sources in the snapshot: got %d, want at most 1 (the iframe's walk)", got)
	}
	nd.Stop()
	if _, err := cdp.Call(ctx, p, page.Navigate, page.NavigateParams{URL: base + "/three"}); err != nil {
		t.Fatal(err)
	}
	if err := countOne(ctx, r, "role=button[name=Three]"); err != nil {
		t.Fatalf("after Stop: %v", err)
	}
	if got := counted.n.Load(); got == 0 {
		t.Fatal("after Stop: no world made, want the Resolver to make its own")
	}
}

// countOne waits until target matches one element.
func countOne(ctx context.Context, r *resolver.Resolver, target string) error {
	_, err := resolver.Wait(ctx, func(ctx context.Context) (bool, error) {
		n, err := r.Count(ctx, target)
		if err == nil && n == 1 {
			return true, nil
		}
		return false, &resolver.Error{Kind: resolver.Transient, Op: "test", Err: fmt.Errorf("%d matches (%v)", n, err)}
	})
	return err
}
