package snapshot_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// calls counts a page's calls by method.
type calls struct {
	*cdptab.Page
	worlds, evals atomic.Int64
}

func (c *calls) Call(ctx context.Context, method string, params, result any) error {
	switch method {
	case page.CommandCreateIsolatedWorld:
		c.worlds.Add(1)
	case runtime.CommandEvaluate:
		c.evals.Add(1)
	}
	return c.Page.Call(ctx, method, params, result)
}

// guardedBy is a World guard on a token no world holds unless set.
func guardedBy(token string) func(string) string {
	return func(expr string) string {
		return "(globalThis.__earlyTestToken !== " + token + " ? 'wrong world' : " + expr + ")"
	}
}

// mainFrame is the tab's main frame and its document's loader.
func mainFrame(t *testing.T, ctx context.Context, p *cdptab.Page) (cdp.FrameID, cdp.LoaderID) {
	t.Helper()
	ft, err := cdp.Call(ctx, p, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	return ft.FrameTree.Frame.ID, ft.FrameTree.Frame.LoaderID
}

// A snapshot given the main frame's world (made by another part of the
// engine) walks there beside its read of the frame tree: it makes no
// world and evaluates once, and shows what a snapshot that makes its own
// world shows.
func TestSnapshotWalksInTheGivenWorld(t *testing.T) {
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": form}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/")
	want, err := snapshot.NewTab(p).Snapshot(ctx, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	frame, loader := mainFrame(t, ctx, p)
	made, err := cdp.Call(ctx, p, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: "egohost"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{Expression: "globalThis.__earlyTestToken = 'T'", ContextID: made.ExecutionContextID}); err != nil {
		t.Fatal(err)
	}
	c := &calls{Page: p}
	tab := snapshot.NewTab(c)
	var asked atomic.Int64
	tab.UseMainWorld(func(context.Context) (snapshot.World, bool) {
		asked.Add(1)
		return snapshot.World{Frame: frame, Context: made.ExecutionContextID, Loader: loader, Guard: guardedBy("'T'"), Wrong: "wrong world"}, true
	})
	got, err := tab.Snapshot(ctx, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != want.Text {
		t.Errorf("snapshot in the given world:\n%s\nwant what a snapshot in its own world shows:\n%s", got.Text, want.Text)
	}
	if asked.Load() != 1 || c.worlds.Load() != 0 || c.evals.Load() != 1 {
		t.Errorf("asked for the world %d times, made %d worlds, evaluated %d times: want 1, 0, 1", asked.Load(), c.worlds.Load(), c.evals.Load())
	}
}

// A given world that is not egohost's (its context ID now names the
// page's own world: a new renderer hands IDs out again) is refused by its
// guard: nothing runs there, and the snapshot walks in its own world.
func TestSnapshotRefusesAWorldNotOurs(t *testing.T) {
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": form}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/")
	want, err := snapshot.NewTab(p).Snapshot(ctx, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	frame, loader := mainFrame(t, ctx, p)
	pageWorld := pageContext(t, ctx, p, frame)
	tab := snapshot.NewTab(p)
	tab.UseMainWorld(func(context.Context) (snapshot.World, bool) {
		return snapshot.World{Frame: frame, Context: pageWorld, Loader: loader, Guard: guardedBy("'T'"), Wrong: "wrong world"}, true
	})
	got, err := tab.Snapshot(ctx, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
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
