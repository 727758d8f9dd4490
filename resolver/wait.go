package resolver

import (
	"context"
	"errors"
	"time"
)

// backoff is the pause before attempt i (from 0): Playwright's auto-wait
// schedule, 0, 20, 100, 100, 500 ms, then 500 ms.
func backoff(i int) time.Duration {
	schedule := [...]time.Duration{0, 20 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond, 500 * time.Millisecond}
	if i < len(schedule) {
		return schedule[i]
	}
	return 500 * time.Millisecond
}

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
	var (
		zero T
		last error
	)
	for i := 0; ; i++ {
		if d := backoff(i); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return zero, timedOut(ctx, last, start, i)
			case <-t.C:
			}
		} else if ctx.Err() != nil {
			return zero, timedOut(ctx, last, start, i)
		}
		v, err := fn(ctx)
		if err == nil {
			return v, nil
		}
		if ctx.Err() != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) {
			// The attempt was cut short by the deadline: keep the cause
			// of the one before, which says why we were still waiting.
			if last == nil {
				last = err
			}
			return zero, timedOut(ctx, last, start, i+1)
		}
		if !IsTransient(err) {
			return zero, err
		}
		last = err
	}
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
