package actions_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// A pinned Runner's page-world evaluations run only in documents its
// reach allows: after the page moved to a refused origin, eval runs
// nothing there and fails with a WithheldError; after it moved to an
// allowed one, eval follows it.
func TestPinHoldsEvaluationsToReachableDocuments(t *testing.T) {
	pages := browsertest.Pages(map[string]string{"/": `<title>a</title><p>page</p>`})
	noLocalhost := func(url, origin string) (bool, string) {
		if strings.Contains(url, "//localhost") || strings.Contains(origin, "//localhost") {
			return false, "deny localhost"
		}
		return true, ""
	}
	var pin *actions.Pin
	tb := openWith(t, pages, "/", actions.Options{})
	pin = actions.NewPin(tb.base+"/", noLocalhost)
	pinned := actions.New(safeTab{tb.p}, nil, actions.Options{Pin: pin})

	if res, err := pinned.Evaluate(tb.ctx, "document.title", 0); err != nil || string(res.Value) != `"a"` {
		t.Fatalf("eval on the expected page: got %+v, %v", res, err)
	}
	// The page's own exceptions say where they are in the expression.
	_, err := pinned.Evaluate(tb.ctx, "1 + nothingHere", 0)
	var je *actions.JSError
	if !errors.As(err, &je) || je.Line != 0 || je.Column != 4 {
		t.Errorf("an exception of the expression: got %v (%+v), want it at line 0, column 4", err, je)
	}
	other := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<title>other</title>`))
	}))
	navigate := func(url string) {
		t.Helper()
		if _, err := cdp.Call(tb.ctx, tb.p, page.Navigate, page.NavigateParams{URL: url}); err != nil {
			t.Fatal(err)
		}
		for tb.ctx.Err() == nil {
			if res, err := tb.r.Evaluate(tb.ctx, "location.href + ' ' + document.readyState", 0); err == nil && string(res.Value) == `"`+url+` complete"` {
				return
			}
		}
	}
	// Another port of 127.0.0.1: another origin the reach allows.
	navigate(other + "/")
	if res, err := pinned.Evaluate(tb.ctx, "document.title", 0); err != nil || string(res.Value) != `"other"` {
		t.Errorf("eval after the page moved to an allowed origin: got %+v, %v, want it to follow", res, err)
	}
	denied := strings.Replace(other, "127.0.0.1", "localhost", 1) + "/"
	navigate(denied)
	_, err = pinned.Evaluate(tb.ctx, "window.reached = true; document.title", 0)
	var we *cdptab.WithheldError
	if !errors.As(err, &we) || !strings.Contains(we.Why, "deny localhost") {
		t.Errorf("eval after the page moved to a refused origin: got %v, want a *cdptab.WithheldError", err)
	}
	if res, err := tb.r.Evaluate(tb.ctx, "window.reached === true", 0); err != nil || string(res.Value) != "false" {
		t.Errorf("the refused eval ran in the page: %+v, %v", res, err)
	}
	if _, err := pinned.Wait(tb.ctx, actions.WaitOptions{Function: "window.reached = 1"}); !errors.As(err, &we) {
		t.Errorf("wait for a function on the refused origin: got %v, want a *cdptab.WithheldError", err)
	}
	if _, err := pinned.Press(tb.ctx, "a", actions.PressOptions{}); !errors.As(err, &we) {
		t.Errorf("keys to the refused origin: got %v, want a *cdptab.WithheldError", err)
	}
}
