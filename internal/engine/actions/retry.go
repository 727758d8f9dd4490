package actions

import (
	"context"
	"errors"
	"time"

	"github.com/egohost/egohost/internal/backoff"
)

// waitLog is what a retry loop waited for: how long, how many attempts,
// and the distinct reasons it saw, in order.
type waitLog struct {
	attempts int
	took     time.Duration
	reasons  []string
}

func (w *waitLog) saw(err error) {
	s := err.Error()
	for _, r := range w.reasons {
		if r == s {
			return
		}
	}
	if len(w.reasons) < 8 {
		w.reasons = append(w.reasons, s)
	}
}

// retry runs attempt until it succeeds, fails with an error that is not
// transient, or the timeout passes. A timeout returns a *TimeoutError with
// the last attempt's error; the end of ctx returns its cause.
func (r *Runner) retry(ctx context.Context, op, target string, d time.Duration, log *waitLog, attempt func(ctx context.Context, n int) error) error {
	return r.retryEvery(ctx, op, target, d, log, backoff.Playwright, attempt)
}

// poll is the schedule of waits (a page condition, not an action): 0, 20,
// 50, 100 ms, then every 100 ms.
func poll(n int) time.Duration {
	switch n {
	case 0:
		return 0
	case 1:
		return 20 * time.Millisecond
	case 2:
		return 50 * time.Millisecond
	}
	return 100 * time.Millisecond
}

// retryEvery is retry with a pause schedule.
func (r *Runner) retryEvery(ctx context.Context, op, target string, d time.Duration, log *waitLog, sched func(int) time.Duration, attempt func(ctx context.Context, n int) error) error {
	start := time.Now()
	tctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	attempts, last, err := backoff.Loop(tctx, sched,
		func(n int) error {
			err := attempt(tctx, n)
			if log != nil {
				log.attempts = n + 1
				log.took = time.Since(start)
			}
			return err
		},
		func(err error) bool {
			if !r.transient(err) {
				return false
			}
			if log != nil {
				log.saw(err)
			}
			return true
		},
		// The deadline passed inside the attempt, which was cut short (its
		// error is the context's, however the transport words it): the
		// attempt before says why we were still waiting.
		func(error) bool { return tctx.Err() != nil })
	switch {
	case !errors.Is(err, backoff.ErrStopped):
		return err
	case ctx.Err() != nil:
		return ctxErr(ctx)
	}
	return &TimeoutError{Op: op, Target: target, Timeout: d, Attempts: attempts, Last: last}
}

func isCtxErr(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}
