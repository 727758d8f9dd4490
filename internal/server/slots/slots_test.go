package slots

import (
	"context"
	"testing"
	"time"
)

// Two slots: the third Acquire waits, gives up at its wait and stalls;
// stalled, the next Acquire answers at once; Admit takes a slot that freed
// and ends the stall.
func TestSlots(t *testing.T) {
	ctx := context.Background()
	s := New(2, 10*time.Millisecond)
	for i := range 2 {
		if ok, err := s.Acquire(ctx); !ok || err != nil {
			t.Fatalf("slot %d: got %v, %v, want a slot", i, ok, err)
		}
	}
	if ok, err := s.Acquire(ctx); ok || err != nil {
		t.Fatalf("all busy: got %v, %v, want no slot and no error", ok, err)
	}
	done := make(chan bool)
	go func() {
		ok, _ := s.Acquire(ctx) // stalled: at once, whatever the wait
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Error("stalled and all busy: got a slot")
		}
	case <-time.After(time.Minute):
		t.Fatal("a stalled Acquire waited")
	}
	s.Release(true)
	if !s.Admit(ctx) {
		t.Fatal("Admit with a slot free: got none")
	}
	s.Release(false) // a message refused held no slot: nothing to give back
	s.Release(true)
	if ok, err := s.Acquire(ctx); !ok || err != nil {
		t.Fatalf("after the stall ended: got %v, %v, want a slot", ok, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := New(0, time.Hour).Acquire(cctx); err == nil {
		t.Error("Acquire with its context ended: got no error")
	}
}
