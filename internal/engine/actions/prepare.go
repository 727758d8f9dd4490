package actions

import (
	"context"
	"time"
)

// prepareTimeout bounds Options.Prepare.
const prepareTimeout = 2 * time.Second

// preparing is one run of Options.Prepare in the background.
type preparing struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the run has returned
}

// prepare starts Options.Prepare in the background (nil when there is
// none). It is not waited for: it outlives the call (within
// prepareTimeout), and the next call's resolution waits for it where it
// needs what it makes.
func (r *Runner) prepare(ctx context.Context) *preparing {
	if r.opts.Prepare == nil {
		return nil
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), prepareTimeout)
	p := &preparing{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer cancel()
		_ = r.opts.Prepare(pctx) // best effort: the next call does it otherwise
	}()
	return p
}

// stop ends the preparation (a later document replaces it) and waits for
// it to return, so that one started next prepares the later document:
// one still running would make the next return at once (one runs at a
// time). Cancelled, it returns as soon as its CDP call does.
func (p *preparing) stop() {
	if p == nil {
		return
	}
	p.cancel()
	select {
	case <-p.done:
	case <-time.After(prepareTimeout):
	}
}
