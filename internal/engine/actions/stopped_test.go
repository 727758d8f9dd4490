package actions

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A settle whose ctx ended says why: its cap, or what ended the call
// under it (a closed tab's error), which the answer names.
func TestStoppedSaysWhatEndedTheSettle(t *testing.T) {
	closed := errors.New("click: tab 7 was closed")
	tests := []struct {
		name       string
		ctx        func() context.Context
		wantCapped bool
		wantEnded  error
	}{
		{"the cap", func() context.Context {
			ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
			t.Cleanup(cancel)
			<-ctx.Done()
			return ctx
		}, true, nil},
		{"a plain cancel", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, true, nil},
		{"a dialog that opened", func() context.Context {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(&DialogOpenError{Op: "click", Dialog: Dialog{Type: "alert"}})
			return ctx
		}, true, nil},
		{"the tab closed, under the settle's own cap", func() context.Context {
			parent, cancel := context.WithCancelCause(context.Background())
			ctx, stop := context.WithTimeout(parent, time.Minute)
			t.Cleanup(stop)
			cancel(closed)
			return ctx
		}, false, closed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out Settled
			stopped(tt.ctx(), &out)
			if out.Capped != tt.wantCapped || out.Ended != tt.wantEnded {
				t.Errorf("got capped %v, ended %v; want capped %v, ended %v", out.Capped, out.Ended, tt.wantCapped, tt.wantEnded)
			}
		})
	}
}
