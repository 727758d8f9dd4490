package browsertest

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/egohost/egohost/browser"
)

func TestDirectEvaluate(t *testing.T) {
	base := Serve(t, Pages(map[string]string{"/": "<title>hello direct</title><p>x</p>"}))
	b := Launch(t, browser.Options{})
	page := b.NewPage(t, base+"/")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	yes := true
	res, err := cdp.Call(ctx, page, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.title", ReturnByValue: &yes})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(res.Result.Value), `"hello direct"`; got != want {
		t.Errorf("document.title: got %s, want %s", got, want)
	}
}

// Two tests on a Shared browser see nothing of each other: a context's
// storage is its own, and its pages end with it.
func TestSharedGivesEachTestItsOwnContext(t *testing.T) {
	var shared Shared
	defer shared.Close()
	base := Serve(t, Pages(map[string]string{"/": "<title>shared</title>"}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	yes := true
	eval := func(t *testing.T, s cdp.Session, expr string) string {
		t.Helper()
		res, err := cdp.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes})
		if err != nil {
			t.Fatal(err)
		}
		return string(res.Result.Value)
	}
	var first *Browser
	t.Run("first", func(t *testing.T) {
		first = shared.Launch(t)
		page := first.NewPage(t, base+"/")
		eval(t, page, "localStorage.setItem('who', 'first')")
		if got := eval(t, page, "localStorage.getItem('who')"); got != `"first"` {
			t.Fatalf("localStorage in the first context: got %s, want \"first\"", got)
		}
	})
	t.Run("second", func(t *testing.T) {
		second := shared.Launch(t)
		if second.Process != first.Process {
			t.Fatal("the second test got another browser process")
		}
		page := second.NewPage(t, base+"/")
		if got := eval(t, page, "localStorage.getItem('who')"); got != "null" {
			t.Errorf("localStorage in the second context: got %s, want null (the first context's storage)", got)
		}
		targets, err := cdp.Call(ctx, second.Conn.Browser(), target.GetTargets, target.GetTargetsParams{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ti := range targets.TargetInfos {
			if ti.Type == "page" && ti.BrowserContextID == first.context {
				t.Errorf("a page of the first test's context outlived it: %+v", ti)
			}
		}
	})
}
