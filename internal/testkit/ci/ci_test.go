package ci

import (
	"errors"
	"runtime"
	"testing"
)

func TestNeed(t *testing.T) {
	tests := []struct {
		name, ci           string
		err                error
		wantFail, wantSkip bool
	}{
		{"nothing missing", "true", nil, false, false},
		{"missing in CI", "true", errors.New("no browser"), true, false},
		{"missing elsewhere", "", errors.New("no browser"), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CI", tt.ci)
			var got recorder
			done := make(chan struct{})
			go func() { // Fatal and Skip end the goroutine that calls them
				defer close(done)
				Need(&got, tt.err)
			}()
			<-done
			if got.failed != tt.wantFail || got.skipped != tt.wantSkip {
				t.Errorf("Need(%v) with CI=%q: got failed %v, skipped %v; want failed %v, skipped %v", tt.err, tt.ci, got.failed, got.skipped, tt.wantFail, tt.wantSkip)
			}
		})
	}
}

// recorder is a testing.TB that notes a failure or a skip and ends its
// goroutine, as a test's would.
type recorder struct {
	testing.TB
	failed, skipped bool
}

func (r *recorder) Helper() {}

func (r *recorder) Fatal(...any) {
	r.failed = true
	runtime.Goexit()
}

func (r *recorder) Skip(...any) {
	r.skipped = true
	runtime.Goexit()
}
