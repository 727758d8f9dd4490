package actions_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/resolver"
)

// browsers is the one Chromium the package's tests share, each test in a
// browser context of its own (browsertest.Shared).
var browsers browsertest.Shared

func TestMain(m *testing.M) {
	os.Exit(browsers.Run(m))
}

// openPage serves h, opens path in a new tab of the shared browser and
// returns the tab's page, a context that ends after d (or with the test)
// and the server's base URL.
func openPage(t *testing.T, h http.Handler, path string, d time.Duration) (*cdptab.Page, context.Context, string) {
	t.Helper()
	b := browsers.Launch(t)
	base := browsertest.Serve(t, h)
	s := b.NewPage(t, base+path)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	p, err := cdptab.Open(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p, ctx, base
}

// tab is a test's page: the Runner, the page, and a direct session.
type tab struct {
	t    *testing.T
	r    *actions.Runner
	p    *cdptab.Page
	ctx  context.Context
	base string
}

// open serves pages, opens path in a new tab and returns a Runner on it
// that finds elements with the real resolver.
func open(t *testing.T, pages map[string]string, path string) *tab {
	t.Helper()
	return openWith(t, browsertest.Pages(pages), path, actions.Options{})
}

func openWith(t *testing.T, h http.Handler, path string, opts actions.Options) *tab {
	t.Helper()
	p, ctx, base := openPage(t, h, path, 90*time.Second)
	safe := safeTab{p}
	res := resolver.New(safe, nil)
	find := actions.FindCallers(res.Object, res.ObjectCall)
	if opts.Transient == nil {
		opts.Transient = resolver.IsTransient
	}
	return &tab{t: t, r: actions.New(safe, find, opts), p: p, ctx: ctx, base: base}
}

// safeTab gives the Runner a page whose calls never abort a write on the
// shared direct connection: cdpdirect passes the caller's context to the
// WebSocket write, and a context that ends there closes the whole
// connection (the extension relay in production writes without one). A
// call whose context ends returns at once; its reply is read and dropped.
type safeTab struct{ *cdptab.Page }

func (s safeTab) Call(ctx context.Context, method string, params, result any) error {
	return safeCall(ctx, s.Page, method, params, result)
}

func (s safeTab) Child(id target.SessionID) cdp.Session { return safeSession{s.Page.Child(id)} }

type safeSession struct{ cdp.Session }

func (s safeSession) Call(ctx context.Context, method string, params, result any) error {
	return safeCall(ctx, s.Session, method, params, result)
}

func safeCall(ctx context.Context, s cdp.Session, method string, params, result any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	type reply struct {
		raw jsonv2.Value
		err error
	}
	done := make(chan reply, 1)
	go func() {
		var raw jsonv2.Value
		err := s.Call(context.WithoutCancel(ctx), method, params, &raw)
		done <- reply{raw, err}
	}()
	select {
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case r := <-done:
		if r.err != nil || result == nil || len(r.raw) == 0 {
			return r.err
		}
		return jsonv2.Unmarshal(r.raw, result)
	}
}

// eval evaluates expr in the page (awaiting promises) and returns its JSON.
func (tb *tab) eval(expr string) string {
	tb.t.Helper()
	yes := true
	res, err := cdp.Call(tb.ctx, tb.p, cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: expr, ReturnByValue: &yes, AwaitPromise: &yes})
	if err != nil {
		tb.t.Fatalf("eval %s: %v", expr, err)
	}
	if res.ExceptionDetails != nil {
		tb.t.Fatalf("eval %s: threw %s", expr, res.ExceptionDetails.Text)
	}
	return string(res.Result.Value)
}

// want fails the test unless expr evaluates to the JSON want.
func (tb *tab) want(expr, want string) {
	tb.t.Helper()
	if got := tb.eval(expr); got != want {
		tb.t.Errorf("%s: got %s, want %s", expr, got, want)
	}
}

// children lists the tab's out-of-process frames' sessions.
func (tb *tab) children() []target.SessionID {
	var ids []target.SessionID
	for _, c := range tb.p.Children() {
		ids = append(ids, c.SessionID)
	}
	return ids
}

// html wraps a body in a page with a log the tests read.
func html(body string) string {
	return `<!doctype html><html><head><meta charset=utf-8><style>body{margin:0;font:16px sans-serif}</style>
<script>window.events = []; function log(s) { window.events.push(s); }</script></head><body>` + body + `</body></html>`
}

// ok fails the test at once on an action's error.
func (tb *tab) ok(res *actions.Result, err error) *actions.Result {
	tb.t.Helper()
	if err != nil {
		tb.t.Fatal(err)
	}
	return res
}

func contains(t *testing.T, what, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Errorf("%s: got %q, want it to contain %q", what, got, want)
	}
}

var _ = fmt.Sprint
