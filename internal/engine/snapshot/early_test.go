package snapshot_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// guardedBy is a World guard on a token no world holds unless set.
func guardedBy(token string) func(string) string {
	return func(expr string) string {
		return "(globalThis.__earlyTestToken !== " + token + " ? 'wrong world' : " + expr + ")"
	}
}

// tokenWorld makes the isolated world named name in the main frame
// (browsertest.MainWorld), with the token guardedBy("'T'") checks, and
// returns its context.
func tokenWorld(ctx context.Context, t *testing.T, p *cdptab.Page, name string) runtime.ExecutionContextID {
	t.Helper()
	made := browsertest.MainWorld(ctx, t, p, name)
	if _, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{Expression: "globalThis.__earlyTestToken = 'T'", ContextID: made}); err != nil {
		t.Fatal(err)
	}
	return made
}

// formPage opens the form in a tab: its page, a snapshot of it taken in
// the snapshot's own world, its main frame and that document's loader.
func formPage(t *testing.T) (*cdptab.Page, context.Context, *snapshot.Snapshot, cdp.FrameID, cdp.LoaderID) {
	t.Helper()
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": form}))
	p, ctx := open(t, snapshot.SharedBrowsers.Launch(t), srv+"/")
	want := snap(t, ctx, snapshot.NewTab(p), snapshot.Options{})
	ft, err := cdp.Call(ctx, p, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	return p, ctx, want, ft.FrameTree.Frame.ID, ft.FrameTree.Frame.LoaderID
}

// A snapshot given the main frame's world (made by another part of the
// engine) walks there beside its read of the frame tree: it makes no
// world and evaluates once, and shows what a snapshot that makes its own
// world shows.
func TestSnapshotWalksInTheGivenWorld(t *testing.T) {
	p, ctx, want, frame, loader := formPage(t)
	made := tokenWorld(ctx, t, p, "egohost")
	c := &countingTarget{Page: p}
	tab := snapshot.NewTab(c)
	var asked atomic.Int64
	tab.UseMainWorld(func(context.Context) (aria.World, bool) {
		asked.Add(1)
		return aria.World{Frame: frame, Context: made, Loader: loader, Module: true, Guard: guardedBy("'T'"), Wrong: "wrong world"}, true
	})
	got := snap(t, ctx, tab, snapshot.Options{})
	if got.Text != want.Text {
		t.Errorf("snapshot in the given world:\n%s\nwant what a snapshot in its own world shows:\n%s", got.Text, want.Text)
	}
	if asked.Load() != 1 || c.worlds.Load() != 0 || c.evals.Load() != 1 {
		t.Errorf("asked for the world %d times, made %d worlds, evaluated %d times: want 1, 0, 1", asked.Load(), c.worlds.Load(), c.evals.Load())
	}
}

// A given world without the page module (a preparation stopped before its
// first evaluation leaves one) gets it with the walk: one evaluation. A
// world that says it has the module and has not costs a second, and shows
// the same.
func TestSnapshotSendsTheModuleWhereTheWorldHasNone(t *testing.T) {
	p, ctx, want, frame, loader := formPage(t)
	tests := []struct {
		name   string
		module bool
		evals  int64
	}{
		{"a world without the module", false, 1},
		{"a world that says it has the module and has not", true, 2},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A world of another name: nothing of the snapshots' own is in it.
			made := tokenWorld(ctx, t, p, "early-test-"+string(rune('a'+i)))
			c := &countingTarget{Page: p}
			tab := snapshot.NewTab(c)
			tab.UseMainWorld(func(context.Context) (aria.World, bool) {
				return aria.World{Frame: frame, Context: made, Loader: loader, Module: tt.module, Guard: guardedBy("'T'"), Wrong: "wrong world"}, true
			})
			got := snap(t, ctx, tab, snapshot.Options{})
			if got.Text != want.Text {
				t.Errorf("snapshot in the given world:\n%s\nwant what a snapshot in its own world shows:\n%s", got.Text, want.Text)
			}
			if c.worlds.Load() != 0 || c.evals.Load() != tt.evals {
				t.Errorf("made %d worlds, evaluated %d times: want 0, %d", c.worlds.Load(), c.evals.Load(), tt.evals)
			}
		})
	}
}

// A given world that is not egohost's (its context ID now names the
// page's own world: a new renderer hands IDs out again) is refused by its
// guard: nothing runs there, and the snapshot walks in its own world.
func TestSnapshotRefusesAWorldNotOurs(t *testing.T) {
	p, ctx, want, frame, loader := formPage(t)
	pageWorld := pageContext(t, ctx, p, frame)
	tab := snapshot.NewTab(p)
	tab.UseMainWorld(func(context.Context) (aria.World, bool) {
		return aria.World{Frame: frame, Context: pageWorld, Loader: loader, Guard: guardedBy("'T'"), Wrong: "wrong world"}, true
	})
	got := snap(t, ctx, tab, snapshot.Options{})
	if got.Text != want.Text {
		t.Errorf("snapshot:\n%s\nwant:\n%s", got.Text, want.Text)
	}
	res, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{
		Expression: "Object.getOwnPropertyNames(globalThis).filter((k) => k.startsWith('__egohost')).join()", ContextID: pageWorld,
	})
	if err != nil {
		t.Fatal(err)
	}
	if s := string(res.Result.Value); s != `""` {
		t.Errorf("egohost's globals in the page's own world: %s", s)
	}
}

// pageContext is the execution context of the page's own world in frame.
func pageContext(t *testing.T, ctx context.Context, p *cdptab.Page, frame cdp.FrameID) runtime.ExecutionContextID {
	t.Helper()
	created, stop := p.Subscribe(runtime.ExecutionContextCreated.Method)
	defer stop()
	if err := p.Call(ctx, runtime.CommandEnable, nil, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Call(context.WithoutCancel(ctx), runtime.CommandDisable, nil, nil) })
	for {
		select {
		case <-ctx.Done():
			t.Fatal("no execution context of the page's own world")
		case raw := <-created:
			var ev runtime.EventExecutionContextCreated
			if err := jsonv2.Unmarshal(raw, &ev); err != nil || ev.Context == nil {
				continue
			}
			var aux struct {
				FrameID   cdp.FrameID `json:"frameId"`
				IsDefault bool        `json:"isDefault"`
			}
			if json.Unmarshal(ev.Context.AuxData, &aux) == nil && aux.IsDefault && aux.FrameID == frame && !strings.HasPrefix(ev.Context.Origin, "chrome-extension:") {
				return ev.Context.ID
			}
		}
	}
}

// A snapshot whose Reach refuses the given world's document walks
// nowhere: not early in that world either (the walk's text would have
// been dropped, but the world's latest-snapshot map, which the refs of
// others read, would have changed).
func TestSnapshotWalksEarlyOnlyWhereItMayReach(t *testing.T) {
	p, ctx, _, frame, loader := formPage(t)
	c := &countingTarget{Page: p}
	tab := snapshot.NewTab(c)
	tab.UseMainWorld(func(context.Context) (aria.World, bool) {
		// A world the test does not make: only a walk that ignored the
		// reach would evaluate there.
		return aria.World{Frame: frame, Context: 1, Loader: loader, URL: "http://denied.example/", Origin: "http://denied.example", Guard: guardedBy("'T'"), Wrong: "wrong world"}, true
	})
	_, err := tab.Snapshot(ctx, snapshot.Options{Reach: func(url, origin string) (bool, string) {
		return false, "not this agent's" // called at once from several goroutines: keeps nothing
	}})
	var we *cdptab.WithheldError
	if !errors.As(err, &we) {
		t.Fatalf("snapshot: got %v, want a *cdptab.WithheldError", err)
	}
	if n := c.evals.Load(); n != 0 {
		t.Errorf("evaluations: got %d, want 0 (the reach refused the early walk's document)", n)
	}
}
