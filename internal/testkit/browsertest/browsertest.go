// Package browsertest launches real Chromium for tests: the binary is
// Debian's chromium (or whatever browser.Find finds), a test that needs it
// fails when CI=true and it is missing, and every process is ended at cleanup.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/setup/browser"
	"github.com/egohost/egohost/internal/testkit/cdpdirect"
	"github.com/egohost/egohost/internal/testkit/ci"
)

// Binary returns the browser binary, or ends the test: it fails when CI=true
// (a real-browser test must run in CI) and skips otherwise.
func Binary(tb testing.TB) string {
	tb.Helper()
	bin, err := FindBinary()
	if err != nil {
		ci.Need(tb, fmt.Errorf("no browser: %w", err))
	}
	return bin
}

// FindBinary finds the browser: $EGOHOST_BROWSER, else browser.Find.
func FindBinary() (string, error) { return browser.FindHere(os.Getenv("EGOHOST_BROWSER")) }

// Flags are the flags a test's headless browser gets beyond the product's
// (browser.Flags): --in-process-gpu runs the compositor's GPU side
// (software, headless) in the browser process instead of a process of its
// own, whose every frame crossed a process boundary. On the 2-core CI
// machine, where a syscall is dear, it took Chromium's CPU over four e2e
// tests from 38.9–40.2 s to 34.8–38.3 s (docs/testing.md). Nothing a test
// checks depends on the process model; egohost launch does not set it.
func Flags() []string { return []string{"--in-process-gpu"} }

// Browser is a launched headless browser with a direct DevTools connection.
// A Browser from Shared.Launch is one test's browser context in a shared
// browser: its pages open in that context.
type Browser struct {
	Process *browser.Process
	Conn    *cdpdirect.Conn
	context cdp.BrowserContextID // "" for the browser's default context
}

// Start launches a headless browser with opts (Binary, Headless and the
// test-only DevToolsPortForTests filled in: opts.UserDataDir must be
// empty) and connects to its DevTools endpoint. Close it when done.
func Start(ctx context.Context, opts browser.Options) (*Browser, error) {
	if opts.Binary == "" {
		bin, err := FindBinary()
		if err != nil {
			return nil, err
		}
		opts.Binary = bin
	}
	opts.Headless = true
	opts.DevToolsPortForTests = true
	opts.Args = append(Flags(), opts.Args...)
	p, err := browser.Launch(ctx, opts)
	if err != nil {
		return nil, err
	}
	url, err := p.DevToolsURL(ctx)
	if err != nil {
		p.Close()
		return nil, err
	}
	c, err := cdpdirect.Dial(ctx, url)
	if err != nil {
		p.Close()
		return nil, err
	}
	return &Browser{Process: p, Conn: c}, nil
}

// Close ends the connection and the browser.
func (b *Browser) Close() error {
	return errors.Join(b.Conn.Close(), b.Process.Close())
}

// Launch starts a headless browser for one test and closes it at cleanup.
func Launch(tb testing.TB, opts browser.Options) *Browser {
	tb.Helper()
	opts.Binary = Binary(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := Start(ctx, opts)
	if err != nil {
		tb.Fatalf("launch browser: %v", err)
	}
	tb.Cleanup(func() { b.Close() })
	return b
}

// DevToolsURL returns the DevTools endpoint of a browser launched with a
// DevTools port (Playwright's side of the benchmarks attaches there), or
// ends the test.
func DevToolsURL(ctx context.Context, tb testing.TB, p *browser.Process) string {
	tb.Helper()
	url, err := p.DevToolsURL(ctx)
	if err != nil {
		tb.Fatalf("devtools url: %v", err)
	}
	return url
}

// Shared is one headless browser for the tests of a package, started on
// first use and ended by the package's TestMain (Close after m.Run).
// Launching Chromium costs seconds of CPU; a browser context costs
// milliseconds, and gives each test what a fresh browser would: its own
// tabs, cookies, storage and cache.
type Shared struct {
	mu  sync.Mutex
	b   *Browser
	err error
}

// Launch returns a fresh browser context of the shared browser for one
// test, disposed (with its pages) at cleanup. It fails the test when the
// browser cannot start, and when CI=true and there is no browser.
func (s *Shared) Launch(tb testing.TB) *Browser {
	tb.Helper()
	bin := Binary(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s.mu.Lock()
	if s.b == nil && s.err == nil {
		s.b, s.err = Start(ctx, browser.Options{Binary: bin})
	}
	b, err := s.b, s.err
	s.mu.Unlock()
	if err != nil {
		tb.Fatalf("launch shared browser: %v", err)
	}
	created, err := cdp.Call(ctx, b.Conn.Browser(), target.CreateBrowserContext, target.CreateBrowserContextParams{})
	if err != nil {
		tb.Fatalf("new browser context: %v", err)
	}
	id := created.BrowserContextID
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := cdp.Call(ctx, b.Conn.Browser(), target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: id}); err != nil {
			tb.Errorf("dispose browser context: %v", err)
		}
	})
	return &Browser{Process: b.Process, Conn: b.Conn, context: id}
}

// Run runs a package's tests (from its TestMain) and ends the shared
// browser after them: it returns the code to exit with.
func (s *Shared) Run(m *testing.M) int {
	code := m.Run()
	s.Close()
	return code
}

// Close ends the shared browser, if it was started.
func (s *Shared) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b == nil {
		return nil
	}
	err := s.b.Close()
	s.b, s.err = nil, errors.New("shared browser closed")
	return err
}

// OpenTab opens url in a new page as a cdptab.Page, closed at cleanup,
// with a context that bounds the test's calls to it (60 s).
func (b *Browser) OpenTab(tb testing.TB, url string) (*cdptab.Page, context.Context) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	tb.Cleanup(cancel)
	p, err := cdptab.Open(ctx, b.NewPage(tb, url))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Close)
	return p, ctx
}

// Tab is one tab that the subtests of a test take turns on: Load loads
// each one's page in it. A tab costs a renderer process of its own (about
// 0.5 s of CPU to start and end it); a page loaded in the same tab from
// the same site reuses the tab's. Use it where a subtest needs its page
// loaded afresh, not a tab of its own. Its subtests take turns: not for
// subtests that run in parallel (t.Parallel).
type Tab struct {
	b      *Browser
	parent testing.TB
	p      *cdptab.Page
}

// Tab returns a Tab for tb's subtests; its tab opens on the first Load
// and closes at tb's cleanup.
func (b *Browser) Tab(tb testing.TB) *Tab { return &Tab{b: b, parent: tb} }

// oldDocument marks a document that Load navigates away from: the page
// after the navigation is loaded once a document without the mark is.
const oldDocument = "__browsertestOldDocument"

// Load loads url in the tab (the first call opens it) and waits until the
// new document has loaded. It returns the page and a context that bounds
// tb's calls to it (60 s).
func (t *Tab) Load(tb testing.TB, url string) (*cdptab.Page, context.Context) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	tb.Cleanup(cancel)
	if t.p == nil {
		p, err := cdptab.Open(ctx, t.b.NewPage(t.parent, url))
		if err != nil {
			tb.Fatal(err)
		}
		t.parent.Cleanup(p.Close)
		t.p = p
		return p, ctx
	}
	if err := navigate(ctx, t.p, url); err != nil {
		tb.Fatalf("load %s: %v", url, err)
	}
	return t.p, ctx
}

// navigate loads url in s's page: it marks the document there, navigates
// and waits for a loaded document without the mark (a navigation to the
// same URL loads a new document too).
func navigate(ctx context.Context, s cdp.Session, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	yes := true
	if _, err := cdp.Call(ctx, s, cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: "window." + oldDocument + " = true", ReturnByValue: &yes}); err != nil {
		return fmt.Errorf("mark the old document: %w", err)
	}
	nav, err := cdp.Call(ctx, s, page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		return fmt.Errorf("navigate: %w", err)
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("navigate: %s", nav.ErrorText)
	}
	return waitFor(ctx, s, "document.readyState === 'complete' && location.href !== 'about:blank' && !window."+oldDocument)
}

// QuerySelector returns the node of the first element of the page's
// document that matches sel (DOM.getDocument, then DOM.querySelector).
func QuerySelector(ctx context.Context, tb testing.TB, s cdp.Session, sel string) cdp.NodeID {
	tb.Helper()
	doc, err := cdp.Call(ctx, s, dom.GetDocument, dom.GetDocumentParams{})
	if err != nil {
		tb.Fatal(err)
	}
	q, err := cdp.Call(ctx, s, dom.QuerySelector, dom.QuerySelectorParams{NodeID: doc.Root.NodeID, Selector: sel})
	if err != nil {
		tb.Fatal(err)
	}
	return q.NodeID
}

// MainWorld makes an isolated world called name in the main frame of s's
// page (Page.getFrameTree, then Page.createIsolatedWorld) and returns its
// execution context.
func MainWorld(ctx context.Context, tb testing.TB, s cdp.Session, name string) cdpruntime.ExecutionContextID {
	tb.Helper()
	tree, err := cdp.Call(ctx, s, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		tb.Fatal(err)
	}
	w, err := cdp.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: tree.FrameTree.Frame.ID, WorldName: name})
	if err != nil {
		tb.Fatal(err)
	}
	return w.ExecutionContextID
}

// NewPage opens a page at url with a direct session and closes it at cleanup.
func (b *Browser) NewPage(tb testing.TB, url string) *cdpdirect.Session {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	s, id, err := b.newPage(ctx, url)
	if err != nil {
		tb.Fatalf("new page %s: %v", url, err)
	}
	if err := WaitLoaded(ctx, s); err != nil {
		tb.Fatalf("new page %s: %v", url, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = b.Conn.Browser().Call(ctx, "Target.closeTarget", map[string]any{"targetId": id}, nil)
	})
	return s
}

func (b *Browser) newPage(ctx context.Context, url string) (*cdpdirect.Session, target.ID, error) {
	if b.context == "" {
		return b.Conn.NewPage(ctx, url)
	}
	created, err := cdp.Call(ctx, b.Conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: url, BrowserContextID: b.context})
	if err != nil {
		return nil, "", fmt.Errorf("new page: %w", err)
	}
	s, err := b.Conn.Attach(ctx, created.TargetID)
	return s, created.TargetID, err
}

// WaitLoaded polls until the session's document has finished loading
// something other than about:blank.
func WaitLoaded(ctx context.Context, s cdp.Session) error {
	return waitFor(ctx, s, "document.readyState === 'complete' && location.href !== 'about:blank'")
}

// waitFor polls until expr is true in s's page.
func waitFor(ctx context.Context, s cdp.Session, expr string) error {
	yes := true
	for {
		res, err := cdp.Call(ctx, s, cdpruntime.Evaluate, cdpruntime.EvaluateParams{
			Expression:    expr,
			ReturnByValue: &yes,
		})
		if err == nil && string(res.Result.Value) == "true" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for load: %w (last error: %v)", ctx.Err(), err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Serve serves handler on a fresh 127.0.0.1 port and returns its base URL
// (http://127.0.0.1:PORT). The server stops at cleanup.
func Serve(tb testing.TB, handler http.Handler) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("listen: %v", err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	tb.Cleanup(func() { srv.Close() })
	return fmt.Sprintf("http://%s", ln.Addr())
}

// Pages serves a map of path → HTML (or other text; the type is sniffed).
func Pages(pages map[string]string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if len(body) > 0 && body[0] == '<' {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		w.Write([]byte(body))
	})
}
