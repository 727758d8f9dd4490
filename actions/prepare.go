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
	go func() {
		defer cancel()
		_ = r.opts.Prepare(pctx) // best effort: the next call does it otherwise
	}()
	return &preparing{cancel: cancel}
}

// stop ends the preparation (a later document replaces it).
func (p *preparing) stop() {
	if p != nil {
		p.cancel()
	}
}
