package actions

import (
	"context"
	"time"
)

// prepareTimeout bounds Options.Prepare.
const prepareTimeout = 2 * time.Second

// preparing is one run of Options.Prepare in the background.
type preparing struct {
	done   chan struct{}
	cancel context.CancelFunc
}

// prepare starts Options.Prepare in the background (nil when there is
// none). Its context outlives ctx's cancellation (the caller waits for it
// or stops it), within prepareTimeout.
func (r *Runner) prepare(ctx context.Context) *preparing {
	if r.opts.Prepare == nil {
		return nil
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), prepareTimeout)
	p := &preparing{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(p.done)
		_ = r.opts.Prepare(pctx) // best effort: the next call does it otherwise
	}()
	return p
}

// wait waits for the preparation to end, or for ctx; then stops it.
func (p *preparing) wait(ctx context.Context) {
	if p == nil {
		return
	}
	select {
	case <-p.done:
	case <-ctx.Done():
	}
	p.cancel()
}

// stop ends the preparation without waiting for it.
func (p *preparing) stop() {
	if p != nil {
		p.cancel()
	}
}
