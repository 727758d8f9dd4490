package browserlink

import (
	"context"
	"log/slog"
	"sync"

	cdpruntime "github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/link/extwire"
)

// Attempt records what became of the requests one call sent through the
// links (Track): whether any of them may have reached the page. A request
// reached nowhere when it was never sent (the link was down, or its write
// failed) or when Chrome refused it because the tab's debugger session was
// already gone (the extension's detached error with refused). A call none
// of whose requests reached the page changed nothing, so it may run again.
// Requests that change nothing in any case (listing tabs or groups, echo,
// attach) are not counted.
type Attempt struct {
	mu                 sync.Mutex
	unreached, reached int
}

type attemptKey struct{}

// Track returns a context whose calls through a link record into a new
// Attempt (a call nested in it gets its own when it calls Track again).
func Track(ctx context.Context) (context.Context, *Attempt) {
	a := &Attempt{}
	return context.WithValue(ctx, attemptKey{}, a), a
}

// attemptOf returns the Attempt ctx records into, nil when none, or when
// op changes nothing whatever becomes of it.
func attemptOf(ctx context.Context, op extwire.Op) *Attempt {
	switch o := op.(type) {
	case extwire.TabsList, extwire.TabsFocused, extwire.GroupsList, extwire.Echo, extwire.Attach:
		return nil
	case extwire.CDP:
		switch o.Method {
		case cdpruntime.CommandReleaseObject, cdpruntime.CommandReleaseObjectGroup:
			return nil // what a call lets go of when it ends, whatever became of it
		}
	}
	a, _ := ctx.Value(attemptKey{}).(*Attempt)
	return a
}

// Again runs a page-level call (raw CDP, the page engine's actions,
// snapshots, resolution), and once more when it failed and nothing it sent
// reached the page (Attempt): Chrome refused every command because the
// tab's debugger session was gone without a detach event (something else
// ended it), or none was sent because the browser link dropped first. The
// tab's state was dropped with the detach, so the second run attaches the
// tab again, or waits for the browser to be back: the agent gets its
// answer, not an error for something that never happened. A call that
// may have done anything in the page is never run twice; run must change
// nothing outside the page before its first command. log says when it
// runs again, naming the call op.
func Again(ctx context.Context, log *slog.Logger, op string, run func(context.Context) (any, error)) (any, error) {
	tctx, att := Track(ctx)
	res, err := run(tctx)
	if err == nil || ctx.Err() != nil || !att.Unreached() {
		return res, err
	}
	log.Info("nothing the call sent reached the page (its tab's debugger session was gone, or the browser link down): running it again", "op", op, "err", err)
	return run(ctx)
}

// Unreached reports whether the call sent at least one request and none
// of them reached the page.
func (a *Attempt) Unreached() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.unreached > 0 && a.reached == 0
}

// note records one request's fate: reached is false only when it surely
// did not reach the page. A nil Attempt records nothing.
func (a *Attempt) note(reached bool) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if reached {
		a.reached++
	} else {
		a.unreached++
	}
}
