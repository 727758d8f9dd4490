package service

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/egohost/egohost/resolver"
)

func TestWaitIf(t *testing.T) {
	notYet := &resolver.Error{Kind: resolver.Transient, Op: "resolve", Target: "#late", Err: resolver.ErrNotFound}
	tests := []struct {
		name      string
		wait      bool
		failFirst int // calls that fail with a transient error before one succeeds
		timeout   time.Duration
		wantCalls int
		wantErr   error
	}{
		{name: "once succeeds", wait: false, wantCalls: 1},
		{name: "once does not retry", wait: false, failFirst: 1, wantCalls: 1, wantErr: resolver.ErrNotFound},
		{name: "wait retries until it succeeds", wait: true, failFirst: 2, timeout: 10 * time.Second, wantCalls: 3},
		{name: "wait gives up at the timeout", wait: true, failFirst: 1 << 30, timeout: time.Millisecond, wantErr: context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			got, err := waitIf(context.Background(), tt.wait, tt.timeout, func(context.Context) (int, error) {
				calls++
				if calls <= tt.failFirst {
					return 0, notYet
				}
				return 42, nil
			})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("got error %v, want one matching %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != 42 {
				t.Fatalf("got %d, %v, want 42, nil", got, err)
			}
			if calls != tt.wantCalls {
				t.Errorf("got %d calls, want %d", calls, tt.wantCalls)
			}
		})
	}
}
