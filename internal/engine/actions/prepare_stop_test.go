package actions

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// A preparation a later document replaces has returned when stop does:
// the one started next for the later document then runs, instead of
// finding the first still running and returning at once (one runs at a
// time), which left a redirect's final document unprepared.
func TestStopWaitsForThePreparationToReturn(t *testing.T) {
	var returned atomic.Bool
	started := make(chan struct{})
	r := &Runner{opts: Options{Prepare: func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond) // the cancelled CDP call returning
		returned.Store(true)
		return ctx.Err()
	}}}
	p := r.prepare(context.Background())
	<-started
	p.stop()
	if !returned.Load() {
		t.Fatal("stop returned before the preparation did")
	}
	var none *preparing
	none.stop() // no Prepare: nothing to stop
}
