package actions

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"
)

// DialogResult says which dialog was answered and how.
type DialogResult struct {
	// Dialog is the dialog answered; nil when it opened before the call
	// and Chrome did not say again what it was (the action that opened it
	// reported it).
	Dialog   *Dialog
	Accepted bool
	Took     time.Duration
}

// HandleDialog accepts (with promptText for a prompt) or dismisses the
// JavaScript dialog that is open, or the next one to open within d.
func (r *Runner) HandleDialog(ctx context.Context, accept bool, promptText string, d time.Duration) (*DialogResult, error) {
	start := time.Now()
	d = timeout(d, r.opts.Timeout)
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	events, stop := r.tab.Subscribe(page.JavascriptDialogOpening.Method)
	defer stop()
	// Events flow only with the Page domain on; turning it on blocks while
	// a dialog is open, so it runs aside and the answer is tried at once.
	var wg sync.WaitGroup
	wg.Add(1)
	ectx, ecancel := context.WithCancel(ctx)
	defer func() { ecancel(); wg.Wait() }()
	go func() {
		defer wg.Done()
		_, _ = cdp.Call(ectx, r.tab, page.Enable, page.EnableParams{})
	}()
	var seen *Dialog
	for {
		_, err := cdp.Call(ctx, r.tab, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept, PromptText: promptText})
		if err == nil {
			if seen == nil {
				// The opening event reaches the channel before the reply
				// that closed the dialog; the wait below may have woken
				// on its timer with the event already there.
				seen = pendingDialog(events)
			}
			return &DialogResult{Dialog: seen, Accepted: accept, Took: time.Since(start)}, nil
		}
		if !chromeNoDialog(err) {
			if parent.Err() != nil {
				return nil, ctxErr(parent)
			}
			if ctx.Err() != nil {
				return nil, &TimeoutError{Op: "dialog", Timeout: d, Last: err}
			}
			return nil, fmt.Errorf("dialog: %w", err)
		}
		t := time.NewTimer(250 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			if parent.Err() != nil {
				return nil, ctxErr(parent)
			}
			return nil, &TimeoutError{Op: "dialog", Timeout: d, Last: fmt.Errorf("no JavaScript dialog opened")}
		case v, ok := <-events:
			t.Stop()
			if d, good := dialogOf(v); ok && good {
				seen = d
			}
		case <-t.C:
		}
	}
}

// pendingDialog returns the last dialog event already buffered, if any.
func pendingDialog(events <-chan jsonv2.Value) *Dialog {
	var seen *Dialog
	for {
		select {
		case v, ok := <-events:
			if !ok {
				return seen
			}
			if d, good := dialogOf(v); good {
				seen = d
			}
		default:
			return seen
		}
	}
}

// chromeNoDialog reports whether err is Chrome saying no dialog is open.
func chromeNoDialog(err error) bool {
	return err != nil && strings.Contains(err.Error(), "No dialog is showing")
}

// DismissUnreported closes a JavaScript dialog that Chrome never reported:
// one that opened before the debugger attached. Page.handleJavaScriptDialog
// does not know such a dialog, but Chrome closes a tab's dialog (dismissed:
// confirm returns false, prompt null) when a navigation starts, so a
// same-document navigation to the page's own URL closes it without a
// reload: the page keeps its state, and its URL gains "#" when it had no
// fragment. It fails when no dialog closed within d (the tab was busy, not
// blocked by a dialog; the "#" then lands when the page is free).
func DismissUnreported(ctx context.Context, s cdp.Session, d time.Duration) (*DialogResult, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	closed, stop := s.Subscribe(page.JavascriptDialogClosed.Method)
	defer stop()
	// Chrome reports the close only to a client with the Page domain on;
	// the part of Page.enable that does so answers in the browser, the
	// rest waits for the blocked page: run it aside.
	var wg sync.WaitGroup
	ectx, ecancel := context.WithCancel(ctx)
	defer func() { ecancel(); wg.Wait() }()
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = cdp.Call(ectx, s, page.Enable, page.EnableParams{})
	}()
	hist, err := cdp.Call(ctx, s, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return nil, fmt.Errorf("dialog: page's URL: %w", err)
	}
	if hist.CurrentIndex < 0 || hist.CurrentIndex >= int64(len(hist.Entries)) {
		return nil, fmt.Errorf("dialog: page's URL: no current history entry")
	}
	u, err := sameDocumentURL(hist.Entries[hist.CurrentIndex].URL)
	if err != nil {
		return nil, fmt.Errorf("dialog: %w", err)
	}
	if aboutWithFragment(u) {
		// That navigation crashes Chromium on a tab's initial about:blank
		// (AboutFragment): the person's whole browser would go with it.
		return nil, fmt.Errorf("dialog: %w", unsupported("the dialog blocks %s, where the navigation that closes it would crash the browser: close the tab", hist.Entries[hist.CurrentIndex].URL))
	}
	if _, err := cdp.Call(ctx, s, page.Navigate, page.NavigateParams{URL: u}); err != nil {
		return nil, fmt.Errorf("dialog: close by navigating to %s: %w", u, err)
	}
	select {
	case _, ok := <-closed:
		if !ok {
			return nil, fmt.Errorf("dialog: the tab went away")
		}
		return &DialogResult{Dialog: &Dialog{Type: "unknown"}, Accepted: false, Took: time.Since(start)}, nil
	case <-ctx.Done():
		return nil, &TimeoutError{Op: "dialog", Timeout: d, Last: fmt.Errorf("no JavaScript dialog closed: the page is busy, not blocked by a dialog")}
	}
}

// sameDocumentURL returns a URL whose navigation stays in the document at
// raw: raw itself when it has a fragment, else raw with an empty one.
func sameDocumentURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("page URL %q cannot take a fragment", raw)
	}
	if strings.Contains(raw, "#") {
		return raw, nil
	}
	return raw + "#", nil
}

// dialogOf decodes a Page.javascriptDialogOpening event's params.
func dialogOf(params jsonv2.Value) (*Dialog, bool) {
	var ev page.EventJavascriptDialogOpening
	if jsonv2.Unmarshal(params, &ev) != nil {
		return nil, false
	}
	return &Dialog{Type: string(ev.Type), Message: ev.Message, DefaultPrompt: ev.DefaultPrompt, URL: ev.URL}, true
}
