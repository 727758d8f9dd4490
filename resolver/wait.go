package resolver

import (
	"context"
	"errors"
	"time"

	"github.com/egohost/egohost/internal/backoff"
)

// Wait calls fn until it succeeds, fails with an error that is not
// transient (see IsTransient), or ctx ends, pausing on Playwright's
// schedule (0, 20, 100, 100, 500 ms, then every 500 ms). When ctx ends
// first, the error is a permanent *Error (Op "wait") that matches both
// ctx.Err() and the last attempt's error with errors.Is.
//
//	pt, err := resolver.Wait(ctx, func(ctx context.Context) (resolver.Point, error) {
//		return r.Center(ctx, `role=button[name="Save"]`)
//	})
func Wait[T any](ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	start := time.Now()
	var zero, v T
	if ctx.Err() != nil {
		return zero, timedOut(ctx, nil, start, 0)
	}
	attempts, last, err := backoff.Loop(ctx,
		func(n int) time.Duration { return backoff.Playwright(n + 1) }, // Playwright's pause before attempt n+1
		func(int) error {
			var err error
			v, err = fn(ctx)
			return err
		},
		IsTransient,
		// The attempt was cut short by the deadline: the cause of the one
		// before says why we were still waiting.
		func(err error) bool {
			return ctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled))
		})
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, backoff.ErrStopped):
		return zero, timedOut(ctx, last, start, attempts)
	}
	return zero, err
}

func timedOut(ctx context.Context, last error, start time.Time, attempts int) error {
	if last == nil {
		last = ctx.Err()
	}
	e := &Error{Kind: Permanent, Op: "wait", Err: &timeoutError{ctxErr: ctx.Err(), last: last, elapsed: time.Since(start), attempts: attempts}}
	var re *Error
	if errors.As(last, &re) {
		e.Target, e.Count = re.Target, re.Count
	}
	return e
}
