package resolver_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/resolver"
)

// worldsMade counts the isolated worlds a page is asked to make.
type worldsMade struct {
	*cdptab.Page
	n atomic.Int64
}

func (w *worldsMade) Call(ctx context.Context, method string, params, result any) error {
	if method == page.CommandCreateIsolatedWorld {
		w.n.Add(1)
	}
	return w.Page.Call(ctx, method, params, result)
}

// MainWorld gives the world a Prepare made in the main frame's document,
// and nothing before; a snapshot that walks there makes no world of its
// own; after a navigation the world given is the old document's, and the
// snapshot shows the new one all the same.
func TestMainWorldServesTheSnapshot(t *testing.T) {
	b := browsers.Launch(t)
	base := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/one": `<!doctype html><title>one</title><button>One</button>`,
		"/two": `<!doctype html><title>two</title><button>Two</button>`,
	}))
	p, ctx := tab0(t, b, base+"/one")
	counted := &worldsMade{Page: p}
	st := snapshot.NewTab(counted)
	r := resolver.New(p, st)
	st.UseMainWorld(func(ctx context.Context) (snapshot.World, bool) {
		w, ok := r.MainWorld(ctx)
		return snapshot.World{Frame: w.Frame, Context: w.Context, Loader: w.Loader, URL: w.URL, Origin: w.Origin, Guard: w.Guard, Wrong: resolver.WrongWorld}, ok
	})
	if _, ok := r.MainWorld(ctx); ok {
		t.Fatal("MainWorld before any world was made: got one")
	}
	if err := r.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	w, ok := r.MainWorld(ctx)
	if !ok || w.Context == 0 || w.Loader == "" || w.Frame == "" {
		t.Fatalf("MainWorld after Prepare: got %+v, %v", w, ok)
	}
	s, err := st.Snapshot(ctx, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Text, `button "One"`) || counted.n.Load() != 0 {
		t.Errorf("snapshot after Prepare (%d worlds made, want 0):\n%s", counted.n.Load(), s.Text)
	}

	if err := p.Call(ctx, page.CommandNavigate, page.NavigateParams{URL: base + "/two"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.WaitLoaded(ctx, p); err != nil {
		t.Fatal(err)
	}
	if w2, ok := r.MainWorld(ctx); !ok || w2.Loader != w.Loader {
		t.Errorf("MainWorld after a navigation nobody prepared: got %+v, %v; want the old document's", w2, ok)
	}
	s, err = st.Snapshot(ctx, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Text, `button "Two"`) || s.Title != "two" {
		t.Errorf("snapshot after the navigation:\n%s", s.Text)
	}
}
