// Package backoff is Playwright's auto-wait schedule and the retry loop
// that follows it: the resolver's waits and the actions' auto-wait both
// use them, each with its own timeout error.
package backoff

import (
	"context"
	"errors"
	"time"
)

// Playwright returns the pause after failed attempt n (from 0):
// Playwright's actionability backoff, 0, 20, 100, 100, 500 ms, then
// 500 ms again and again.
func Playwright(n int) time.Duration {
	switch n {
	case 0:
		return 0
	case 1:
		return 20 * time.Millisecond
	case 2, 3:
		return 100 * time.Millisecond
	}
	return 500 * time.Millisecond
}

// ErrStopped is Loop's error when ctx ended before an attempt succeeded.
var ErrStopped = errors.New("backoff: stopped before an attempt succeeded")

// Loop calls attempt(n) for n = 0, 1, … until it returns nil, or an error
// retry rejects (Loop returns that error), pausing pause(n) after failed
// attempt n. It stops with ErrStopped when ctx ends during a pause, or
// after an attempt whose error cutShort says ctx's end cut short.
// attempts is how many attempts ran; last is the error of the last one
// that was retried, or the cut-short attempt's when none was (it says why
// the loop was still waiting).
func Loop(ctx context.Context, pause func(n int) time.Duration, attempt func(n int) error, retry, cutShort func(error) bool) (attempts int, last, err error) {
	for n := 0; ; n++ {
		err := attempt(n)
		if err == nil {
			return n + 1, last, nil
		}
		if cutShort(err) {
			if last == nil {
				last = err
			}
			return n + 1, last, ErrStopped
		}
		if !retry(err) {
			return n + 1, last, err
		}
		last = err
		if d := pause(n); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
				t.Stop()
				return n + 1, last, ErrStopped
			case <-t.C:
			}
		} else if ctx.Err() != nil {
			return n + 1, last, ErrStopped
		}
	}
}
