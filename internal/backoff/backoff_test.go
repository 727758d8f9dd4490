package backoff

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestPlaywright(t *testing.T) {
	ms := time.Millisecond
	want := []time.Duration{0, 20 * ms, 100 * ms, 100 * ms, 500 * ms, 500 * ms, 500 * ms}
	for n, w := range want {
		if got := Playwright(n); got != w {
			t.Errorf("Playwright(%d): got %v, want %v", n, got, w)
		}
	}
}

var (
	errTransient = errors.New("transient")
	errFinal     = errors.New("final")
)

func never(error) bool          { return false }
func always(error) bool         { return true }
func noPause(int) time.Duration { return 0 }

func TestLoop(t *testing.T) {
	tests := []struct {
		name         string
		results      []error // attempt n returns results[n]
		wantAttempts int
		wantLast     error
		wantErr      error
	}{
		{"first attempt succeeds", []error{nil}, 1, nil, nil},
		{"succeeds after transient errors", []error{errTransient, errTransient, nil}, 3, errTransient, nil},
		{"a final error ends it", []error{errTransient, errFinal}, 2, errTransient, errFinal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			attempts, last, err := Loop(context.Background(), noPause,
				func(n int) error { return tt.results[n] },
				func(err error) bool { return err == errTransient }, never)
			if attempts != tt.wantAttempts || last != tt.wantLast || err != tt.wantErr {
				t.Errorf("got %d, %v, %v; want %d, %v, %v", attempts, last, err, tt.wantAttempts, tt.wantLast, tt.wantErr)
			}
		})
	}
}

func TestLoopStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	// The context ends during the second attempt, which it cuts short.
	attempts, last, err := Loop(ctx, Playwright, func(n int) error {
		if n == 1 {
			cancel()
			return context.Canceled
		}
		return errTransient
	}, always, func(err error) bool { return ctx.Err() != nil && errors.Is(err, context.Canceled) })
	if attempts != 2 || last != errTransient || !errors.Is(err, ErrStopped) {
		t.Errorf("cut short: got %d, %v, %v; want 2, the transient error, ErrStopped", attempts, last, err)
	}

	// The context ends during a pause.
	ctx, cancel = context.WithCancel(context.Background())
	attempts, last, err = Loop(ctx, func(int) time.Duration { return time.Hour }, func(n int) error {
		cancel()
		return errTransient
	}, always, never)
	if attempts != 1 || last != errTransient || !errors.Is(err, ErrStopped) {
		t.Errorf("in a pause: got %d, %v, %v; want 1, the transient error, ErrStopped", attempts, last, err)
	}
}
