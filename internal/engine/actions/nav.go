package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/aria"
)

// Load states, as Playwright names them.
const (
	LoadCommit           = "commit"
	LoadDOMContentLoaded = "domcontentloaded"
	LoadLoad             = "load"
	LoadNetworkIdle      = "networkidle"
)

// lifecycleName returns Chrome's lifecycle event for a load state ("" for
// commit).
func lifecycleName(state string) (string, error) {
	switch state {
	case "", LoadLoad:
		return "load", nil
	case LoadDOMContentLoaded:
		return "DOMContentLoaded", nil
	case LoadNetworkIdle:
		return "networkIdle", nil
	case LoadCommit:
		return "", nil
	}
	return "", invalid("unknown load state %q: want load, domcontentloaded, networkidle or commit", state)
}

// NavOptions tune Goto, Back, Forward and Reload.
type NavOptions struct {
	// Until is the load state to wait for: load (default),
	// domcontentloaded, networkidle (no request for 500 ms) or commit.
	Until   string
	Timeout time.Duration
	// Destination, when set, judges the URL that Back, Forward or Reload
	// would load (the history entry) before it loads: its error stops
	// the navigation. (Goto's caller judges its URL itself.)
	Destination func(url string) error
	// NoPrepare leaves the new document unprepared (Options.Prepare): for
	// a caller that reads the page at once (a snapshot, which makes the
	// world and installs the module itself), so that the preparation does
	// not hold up its first evaluation in a renderer still busy loading.
	NoPrepare bool
}

// NavResult says where a navigation went and what it waited for.
type NavResult struct {
	URL   string
	Title string
	// Reached is the load state reached ("" when a dialog stopped the
	// load before it).
	Reached string
	// SameDocument is set for a navigation within the document (a
	// fragment, history.pushState).
	SameDocument bool
	// Download is set when the URL started a download instead of a page.
	Download bool
	Took     time.Duration
	// Dialog is a JavaScript dialog the new page opened while loading.
	Dialog *Dialog
}

// Goto navigates the main frame to url and waits for the load state of
// the new document (the one Page.navigate's loaderId names, not the old
// document's readyState).
func (r *Runner) Goto(ctx context.Context, url string, o NavOptions) (*NavResult, error) {
	return r.navigate(ctx, "goto", url, o, true, func(ctx context.Context) (cdp.FrameID, cdp.LoaderID, *NavResult, error) {
		same, _, err := AboutFragment(ctx, r.tab, url, "")
		if err != nil {
			return "", "", nil, fmt.Errorf("goto: %w", err)
		}
		if same {
			// Page.navigate would crash the browser (AboutFragment): the
			// page makes the same fragment navigation itself.
			if err := r.assignLocation(ctx, url); err != nil {
				return "", "", nil, fmt.Errorf("goto: %w", err)
			}
			return "", "", &NavResult{SameDocument: true}, nil
		}
		nav, err := cdp.Call(ctx, r.tab, page.Navigate, page.NavigateParams{URL: url})
		if err != nil {
			if ctx.Err() != nil || isCtxErr(err) {
				return "", "", nil, err
			}
			return "", "", nil, &NavigationError{Op: "goto", URL: url, Text: err.Error(), Err: err}
		}
		if nav.IsDownload {
			return "", "", &NavResult{URL: url, Download: true}, nil
		}
		if nav.ErrorText != "" {
			return "", "", nil, &NavigationError{Op: "goto", URL: url, Text: nav.ErrorText}
		}
		if nav.LoaderID == "" {
			return "", "", &NavResult{SameDocument: true}, nil
		}
		return nav.FrameID, nav.LoaderID, nil, nil
	})
}

// AboutFragment reports whether Page.navigate to rawURL, in the frame
// frameID ("" or the main frame's ID: the main frame), would be a
// same-document (fragment) navigation of the main frame's about: document,
// and returns the main frame's ID. Through chrome.debugger, Chromium 156
// crashes the whole browser — every tab of the person's profile — on
// such a navigation of a tab's initial about:blank document (`open
// about:blank#x`; issue 22), so nobody may send it: goto makes it in the
// page instead, and raw cdp.send refuses it. Other URLs cost nothing (no
// call is made).
func AboutFragment(ctx context.Context, s cdp.Session, rawURL string, frameID cdp.FrameID) (bool, cdp.FrameID, error) {
	if !aboutWithFragment(rawURL) {
		return false, "", nil
	}
	tree, err := cdp.Call(ctx, s, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return false, "", fmt.Errorf("main frame: %w", err)
	}
	if tree.FrameTree == nil || tree.FrameTree.Frame == nil {
		return false, "", nil
	}
	main := tree.FrameTree.Frame
	if frameID != "" && frameID != main.ID {
		return false, main.ID, nil // a child frame's about:blank takes it (checked in Chromium 156)
	}
	return sameDocument(main.URL, rawURL), main.ID, nil
}

// aboutWithFragment reports whether raw, read as Chrome reads a URL (tabs
// and newlines dropped, leading and trailing spaces and control
// characters trimmed, the scheme in any case), is an about: URL with a
// fragment.
func aboutWithFragment(raw string) bool {
	u := chromeURL(raw)
	return len(u) >= len("about:") && strings.EqualFold(u[:len("about:")], "about:") && strings.Contains(u, "#")
}

// sameDocument reports whether navigating from the document at current to
// dest stays in the document: they differ at most in the fragment and dest
// has one. It errs towards yes (case and percent-escapes ignored).
func sameDocument(current, dest string) bool {
	dest = chromeURL(dest)
	base, _, hasFragment := strings.Cut(dest, "#")
	cur, _, _ := strings.Cut(chromeURL(current), "#")
	norm := func(s string) string {
		if u, err := url.PathUnescape(s); err == nil {
			s = u
		}
		return strings.ToLower(s)
	}
	return hasFragment && norm(base) == norm(cur)
}

// chromeURL is raw as the URL standard's parser first cleans it: every
// ASCII tab and newline removed, leading and trailing C0 controls and
// spaces trimmed.
func chromeURL(raw string) string {
	raw = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, raw)
	return strings.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
}

// assignJS sets the location of the page's document, in its own world.
var assignJS = aria.Page("(document, ns, u) => { location.href = u; }")

// assignLocation makes the main frame's page navigate itself to u (a
// same-document navigation: it returns once it is done).
func (r *Runner) assignLocation(ctx context.Context, u string) error {
	q, err := json.Marshal(u)
	if err != nil {
		return err
	}
	res, err := cdp.Call(ctx, r.tab, cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: assignJS.Expr(aria.InstallNone, q)})
	if err != nil {
		return fmt.Errorf("set location: %w", err)
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("set location: %s", res.ExceptionDetails.Text)
	}
	return nil
}

// Back goes one page back in the tab's history.
func (r *Runner) Back(ctx context.Context, o NavOptions) (*NavResult, error) {
	return r.history(ctx, "back", -1, o)
}

// Forward goes one page forward in the tab's history.
func (r *Runner) Forward(ctx context.Context, o NavOptions) (*NavResult, error) {
	return r.history(ctx, "forward", +1, o)
}

// Reload reloads the page.
func (r *Runner) Reload(ctx context.Context, o NavOptions) (*NavResult, error) {
	return r.navigate(ctx, "reload", "", o, false, func(ctx context.Context) (cdp.FrameID, cdp.LoaderID, *NavResult, error) {
		if o.Destination != nil {
			h, err := cdp.Call(ctx, r.tab, page.GetNavigationHistory, cdp.Empty{})
			if err != nil {
				return "", "", nil, fmt.Errorf("reload: history: %w", err)
			}
			if i := h.CurrentIndex; i >= 0 && i < int64(len(h.Entries)) && h.Entries[i] != nil {
				if err := o.Destination(h.Entries[i].URL); err != nil {
					return "", "", nil, err
				}
			}
		}
		if _, err := cdp.Call(ctx, r.tab, page.Reload, page.ReloadParams{}); err != nil {
			return "", "", nil, fmt.Errorf("reload: %w", err)
		}
		return "", "", nil, nil
	})
}

func (r *Runner) history(ctx context.Context, op string, delta int64, o NavOptions) (*NavResult, error) {
	return r.navigate(ctx, op, "", o, false, func(ctx context.Context) (cdp.FrameID, cdp.LoaderID, *NavResult, error) {
		h, err := cdp.Call(ctx, r.tab, page.GetNavigationHistory, cdp.Empty{})
		if err != nil {
			return "", "", nil, fmt.Errorf("%s: history: %w", op, err)
		}
		i := h.CurrentIndex + delta
		if i < 0 || i >= int64(len(h.Entries)) || h.Entries[i] == nil {
			where := "previous"
			if delta > 0 {
				where = "next"
			}
			return "", "", nil, &NavigationError{Op: op, Text: "there is no " + where + " page in the tab's history"}
		}
		if o.Destination != nil {
			if err := o.Destination(h.Entries[i].URL); err != nil {
				return "", "", nil, err
			}
		}
		if _, err := cdp.Call(ctx, r.tab, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID}); err != nil {
			return "", "", nil, fmt.Errorf("%s: %w", op, err)
		}
		return "", "", nil, nil
	})
}

// navigate runs start (which makes the navigation) inside a page watch
// and waits for the load state of the document it commits. start returns
// the frame and loader of the new document when it knows them, or a final
// result (a same-document navigation, a download). named says it always
// knows them (Page.navigate names the new document): the watch then needs
// nothing of the current document.
func (r *Runner) navigate(ctx context.Context, op, url string, o NavOptions, named bool, start func(ctx context.Context) (cdp.FrameID, cdp.LoaderID, *NavResult, error)) (*NavResult, error) {
	begin := time.Now()
	want, err := lifecycleName(o.Until)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	until := o.Until
	if until == "" {
		until = LoadLoad
	}
	d := timeout(o.Timeout, r.opts.NavigationTimeout)
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var w *watch
	if named {
		w = r.pageWatch(tctx, op)
	} else {
		w = r.watch(tctx, op)
	}
	defer w.close()
	fail := func(err error, reached []string) (*NavResult, error) {
		if dl := w.opened(); dl != nil {
			res := r.where(ctx, &NavResult{Dialog: dl, Took: time.Since(begin)})
			if len(reached) > 0 {
				res.Reached = reached[len(reached)-1]
			}
			return res, nil
		}
		if ctx.Err() != nil {
			return nil, ctxErr(ctx)
		}
		if tctx.Err() != nil {
			var last error
			if len(reached) > 0 {
				last = fmt.Errorf("the page reached %s but not %s", strings.Join(reached, ", "), until)
			}
			return nil, &TimeoutError{Op: op, Target: url, Timeout: d, Last: last}
		}
		return nil, err
	}
	if err := w.waitReady(); err != nil {
		return fail(fmt.Errorf("%s: %w", op, err), nil)
	}
	w.drain()
	frame, loader, done, err := start(w.ctx)
	if err != nil {
		return fail(err, nil)
	}
	if done != nil {
		done.Reached = until
		done.Took = time.Since(begin)
		return r.where(ctx, done), nil
	}
	res := &NavResult{}
	// The new document's preparation (Options.Prepare) runs from its
	// commit, in parallel with the wait for its load (and after it).
	var prep *preparing
	committed := func() {
		if want != "" && !o.NoPrepare {
			prep.stop() // a later commit (a redirect by script): prepare that one
			prep = r.prepare(ctx)
		}
	}
	reached, err := r.waitLoaded(w, frame, loader, want, res, committed)
	if err != nil {
		return fail(err, reached)
	}
	res.Reached = until
	res.Took = time.Since(begin)
	return r.where(ctx, res), nil
}

// waitLoaded waits for the lifecycle event want of the main frame's new
// document: loader when the caller knows it, else the next one to commit.
// A later commit of the main frame (a redirect by script) is followed.
// It returns the lifecycle events the document reached. committed, when
// not nil, is called at each commit of the main frame it sees.
func (r *Runner) waitLoaded(w *watch, frame cdp.FrameID, loader cdp.LoaderID, want string, res *NavResult, committed func()) ([]string, error) {
	if frame == "" {
		frame = w.mainFrame
	}
	seen := make(map[cdp.LoaderID][]string)
	reached := func() []string { return seen[loader] }
	if loader != "" && want == "" {
		return nil, nil
	}
	for {
		select {
		case <-w.ctx.Done():
			return reached(), ctxErr(w.ctx)
		case ev := <-w.nav:
			switch ev.kind {
			case navCommitted:
				if ev.frameID != frame && frame != "" {
					continue
				}
				loader = ev.loaderID
				if committed != nil {
					committed()
				}
				if ev.bfcache || want == "" {
					return reached(), nil
				}
			case navSameDoc:
				if ev.frameID == frame && loader == "" {
					res.SameDocument = true
					return nil, nil
				}
			case navLifecycle:
				if ev.frameID != frame {
					continue
				}
				seen[ev.loaderID] = appendOnce(seen[ev.loaderID], ev.name)
			default:
				continue
			}
			if loader != "" {
				for _, n := range seen[loader] {
					if n == want {
						return reached(), nil
					}
				}
			}
		}
	}
}

// where fills in the tab's current URL and title (from the browser's
// history, which answers even while the page is busy).
func (r *Runner) where(ctx context.Context, res *NavResult) *NavResult {
	hctx, cancel := context.WithTimeout(ctx, releaseTimeout)
	defer cancel()
	h, err := cdp.Call(hctx, r.tab, page.GetNavigationHistory, cdp.Empty{})
	if err == nil && h.CurrentIndex >= 0 && h.CurrentIndex < int64(len(h.Entries)) && h.Entries[h.CurrentIndex] != nil {
		e := h.Entries[h.CurrentIndex]
		res.URL, res.Title = e.URL, e.Title
	}
	return res
}

// WaitLoad waits until the current document of the main frame (or the
// next one, when a navigation commits meanwhile) reaches a load state.
func (r *Runner) WaitLoad(ctx context.Context, state string, d time.Duration) (*NavResult, error) {
	begin := time.Now()
	want, err := lifecycleName(state)
	if err != nil {
		return nil, fmt.Errorf("wait: %w", err)
	}
	if want == "" {
		return nil, fmt.Errorf("wait: %w", invalid("the load state commit is for navigations; want load, domcontentloaded or networkidle"))
	}
	d = timeout(d, r.opts.Timeout)
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	w := r.watch(tctx, "wait")
	defer w.close()
	if err := w.waitReady(); err != nil {
		if dl := w.opened(); dl != nil {
			return nil, &DialogOpenError{Op: "wait", Dialog: *dl}
		}
		if ctx.Err() != nil {
			return nil, ctxErr(ctx)
		}
		return nil, fmt.Errorf("wait for %s: %w", state, err)
	}
	res := &NavResult{}
	reached, err := r.waitLoaded(w, w.mainFrame, w.loaderID, want, res, nil)
	if err != nil {
		if dl := w.opened(); dl != nil {
			return nil, &DialogOpenError{Op: "wait", Dialog: *dl}
		}
		if ctx.Err() != nil {
			return nil, ctxErr(ctx)
		}
		var last error
		if len(reached) > 0 {
			last = fmt.Errorf("the page reached %s but not %s", strings.Join(reached, ", "), state)
		}
		return nil, &TimeoutError{Op: "wait", Target: "load state " + state, Timeout: d, Last: last}
	}
	res.Reached = state
	res.Took = time.Since(begin)
	return r.where(ctx, res), nil
}
