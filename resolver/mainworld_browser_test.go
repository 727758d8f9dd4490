package resolver_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/resolver"
)

// worldsMade counts the isolated worlds a page is asked to make, and its
// evaluations.
type worldsMade struct {
	*cdptab.Page
	n     atomic.Int64
	evals atomic.Int64
	last  atomic.Int64 // the length of the last evaluation's expression
	big   atomic.Int64 // evaluations that sent the module (over 10,000 characters)
}

func (w *worldsMade) Call(ctx context.Context, method string, params, result any) error {
	switch method {
	case page.CommandCreateIsolatedWorld:
		w.n.Add(1)
	case runtime.CommandEvaluate:
		w.evals.Add(1)
		if p, ok := params.(runtime.EvaluateParams); ok {
			w.last.Store(int64(len(p.Expression)))
			if len(p.Expression) > 10_000 {
				w.big.Add(1)
			}
		}
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
	st.UseMainWorld(r.MainWorld)
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

// The first evaluation of the engine in a world that has none sends the
// page module and the engine with it, not after a miss; MainWorld says
// whether the module is there: not in a world made and left before its
// first evaluation (as a preparation a snapshot stopped leaves it), and
// after an evaluation of the engine ran there.
func TestMainWorldSaysWhetherTheModuleIsThere(t *testing.T) {
	b := browsers.Launch(t)
	base := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/": `<!doctype html><title>one</title><button>One</button>`,
	}))
	p, ctx := tab0(t, b, base+"/")
	counted := &worldsMade{Page: p}
	r := resolver.New(counted, nil)
	refused := r.Within(func(url, origin string) (bool, string) { return false, "a test refuses it" })
	if _, err := refused.Count(ctx, "css=button"); err == nil {
		t.Fatal("a resolution its reach refuses: got no error")
	}
	w, ok := r.MainWorld(ctx)
	if !ok || w.Module {
		t.Fatalf("MainWorld of a world made and left before its first evaluation: got %+v, %v; want one without the module", w, ok)
	}
	if counted.n.Load() != 1 || counted.evals.Load() != 1 {
		t.Fatalf("made %d worlds, evaluated %d times before the first resolution: want 1, 1 (its token)", counted.n.Load(), counted.evals.Load())
	}
	// A resolution whose context has ended sends nothing: the world still
	// has no module.
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Count(ended, "css=button"); err == nil {
		t.Fatal("a resolution whose context has ended: got no error")
	}
	if w, ok := r.MainWorld(ctx); !ok || w.Module {
		t.Fatalf("MainWorld after a resolution whose context had ended: got %+v, %v; want no module", w, ok)
	}
	var sent [2]int64
	for i := range sent {
		before := counted.evals.Load()
		n, err := r.Count(ctx, "css=button")
		if err != nil || n != 1 {
			t.Fatalf("resolution %d: got %d, %v; want 1 match", i, n, err)
		}
		if got := counted.evals.Load() - before; got != 1 {
			t.Errorf("resolution %d evaluated %d times, want 1 (the module and the engine sent with the first)", i, got)
		}
		sent[i] = counted.last.Load()
	}
	if sent[1]*4 > sent[0] {
		t.Errorf("the second resolution's expression has %d characters, the first's %d: want the second to send neither the module nor the engine again", sent[1], sent[0])
	}
	if w, ok := r.MainWorld(ctx); !ok || !w.Module {
		t.Errorf("MainWorld after an evaluation of the engine: got %+v, %v; want the module there", w, ok)
	}
	if counted.n.Load() != 1 {
		t.Errorf("made %d worlds, want 1", counted.n.Load())
	}

	// A navigation egohost did not start: the remembered world is gone
	// (one evaluation learns it), the new one is made (its token) and
	// gets the module and the engine with its first evaluation.
	if err := p.Call(ctx, page.CommandNavigate, page.NavigateParams{URL: base + "/?again"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.WaitLoaded(ctx, p); err != nil {
		t.Fatal(err)
	}
	before := counted.evals.Load()
	if n, err := r.Count(ctx, "css=button"); err != nil || n != 1 {
		t.Fatalf("resolution after a navigation: got %d, %v; want 1 match", n, err)
	}
	if got := counted.evals.Load() - before; got != 3 || counted.n.Load() != 2 {
		t.Errorf("after a navigation: evaluated %d times, made %d worlds in all; want 3 (the gone world's, the new one's token, the resolution) and 2", got, counted.n.Load())
	}
}
