package browsertest

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
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
