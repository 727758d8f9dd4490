package actions_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/resolver"
)

// TestFirstActionOnANewDocumentIsPrepared: after goto, and after a click
// that navigates, the first action on the new document finds egohost's
// world ready (Options.Prepare ran from the commit, beside the wait):
// no isolated world is made and no module is installed on its reply's
// path.
func TestFirstActionOnANewDocumentIsPrepared(t *testing.T) {
	pages := map[string]string{
		"/":     html(`<form action="/next"><label>Name <input name=name></label><button id=go>Go</button></form>`),
		"/next": html(`<label>City <input name=city></label>`),
	}
	p, ctx, base := openPage(t, browsertest.Pages(pages), "/next", 90*time.Second)
	rec := &recorder{safeTab: safeTab{p}}
	res := resolver.New(rec, nil)
	// The preparation runs in the background, past the call: the test
	// lets it end before it records the first fill's calls.
	prepared := make(chan struct{}, 8)
	prepare := func(ctx context.Context) error {
		defer func() { prepared <- struct{}{} }()
		return res.Prepare(ctx)
	}
	r := actions.New(rec, actions.FindCallers(res.Object, res.ObjectCall), actions.Options{
		Transient: resolver.IsTransient, Setup: &actions.TabSetup{}, Prepare: prepare,
	})
	firstFill := func(what, target string) {
		t.Helper()
		select {
		case <-prepared:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no preparation of the new document", what)
		}
		rec.reset()
		if _, err := r.Fill(ctx, target, "Ada", actions.FillOptions{}); err != nil {
			t.Fatalf("%s: fill %s: %v", what, target, err)
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		var worlds, resolves int
		var calls []string
		for _, c := range rec.calls {
			calls = append(calls, c.step)
			if strings.Contains(c.step, page.CreateIsolatedWorld.Method) {
				worlds++
			}
			if strings.HasPrefix(c.step, "resolve") {
				resolves++
			}
		}
		// Two evaluations at most: the resolution, and the same again when
		// the document lacks the action's own function (kept in the world
		// after its first call); never the world and the module (before
		// Prepare: a world and 4-5 evaluations).
		if worlds != 0 || resolves > 2 {
			t.Errorf("%s: the first fill made %d isolated worlds and %d resolving calls, want 0 and at most 2 (prepared during the wait); its calls:\n%s",
				what, worlds, resolves, strings.Join(calls, "\n"))
		}
	}
	for i := range 2 {
		if _, err := r.Goto(ctx, base+"/", actions.NavOptions{}); err != nil {
			t.Fatal(err)
		}
		firstFill("after goto", "label=Name")
		s, err := r.Click(ctx, "#go", actions.ClickOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !s.Settled.Navigated {
			t.Fatalf("click %d: settled %+v, want a navigation", i, s.Settled)
		}
		firstFill("after a click that navigated", "label=City")
	}
}

// A goto with NoPrepare (its caller snapshots the page at once, which
// makes the world itself) starts no preparation of the new document.
func TestGotoNoPrepareLeavesTheDocumentUnprepared(t *testing.T) {
	pages := map[string]string{"/": html(`<button>Go</button>`), "/start": html(`start`)}
	p, ctx, base := openPage(t, browsertest.Pages(pages), "/start", 60*time.Second)
	prepared := make(chan struct{}, 8)
	r := actions.New(p, nil, actions.Options{Setup: &actions.TabSetup{}, Prepare: func(context.Context) error {
		prepared <- struct{}{}
		return nil
	}})
	if _, err := r.Goto(ctx, base+"/", actions.NavOptions{NoPrepare: true}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-prepared:
		t.Fatal("goto with NoPrepare prepared the new document")
	case <-time.After(300 * time.Millisecond): // it starts at the commit, before goto returns
	}
	if _, err := r.Goto(ctx, base+"/?again", actions.NavOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-prepared:
	case <-time.After(30 * time.Second):
		t.Fatal("goto without NoPrepare did not prepare the new document")
	}
}
