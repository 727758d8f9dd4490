package browserlink

import (
	"context"
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
	case extwire.TabsList, extwire.GroupsList, extwire.Echo, extwire.Attach:
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
