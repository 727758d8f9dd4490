package actions

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	cdppage "github.com/chromedp/cdproto/page"
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
	events, stop := r.tab.Subscribe(cdppage.JavascriptDialogOpening.Method)
	defer stop()
	// Events flow only with the Page domain on; turning it on blocks while
	// a dialog is open, so it runs aside and the answer is tried at once.
	var wg sync.WaitGroup
	wg.Add(1)
	ectx, ecancel := context.WithCancel(ctx)
	defer func() { ecancel(); wg.Wait() }()
	go func() {
		defer wg.Done()
		_, _ = cdp.Call(ectx, r.tab, cdppage.Enable, cdppage.EnableParams{})
	}()
	var seen *Dialog
	for {
		_, err := cdp.Call(ctx, r.tab, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: accept, PromptText: promptText})
		if err == nil {
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
			var ev cdppage.EventJavascriptDialogOpening
			if ok && jsonv2.Unmarshal(v, &ev) == nil {
				seen = &Dialog{Type: string(ev.Type), Message: ev.Message, DefaultPrompt: ev.DefaultPrompt, URL: ev.URL}
			}
		case <-t.C:
		}
	}
}

// chromeNoDialog reports whether err is Chrome saying no dialog is open.
func chromeNoDialog(err error) bool {
	return err != nil && strings.Contains(err.Error(), "No dialog is showing")
}
