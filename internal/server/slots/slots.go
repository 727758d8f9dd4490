// Package slots caps the requests a connection has in flight: its reader
// takes a slot before it reads the next message (the backpressure), and a
// connection whose slots stay busy is read anyway and its message refused
// unless a slot frees within a short grace.
package slots

import (
	"context"
	"time"
)

// Slots cap the requests one connection has in flight. One goroutine
// (the connection's reader) acquires and admits; any may release.
type Slots struct {
	ch      chan struct{}
	wait    time.Duration // longest wait for a free slot before reading
	stalled bool          // the last wait ran out: read without waiting, then admit
}

// stalledGrace is how long a message read while stalled waits for a slot
// before it is refused. It covers a reply that overtook the release of its
// own slot (a slot is given back just after its reply is sent), and it
// paces a stuck connection's refusals.
const stalledGrace = time.Second

// New returns n slots; Acquire waits at most wait for a free one.
func New(n int, wait time.Duration) *Slots {
	return &Slots{ch: make(chan struct{}, n), wait: wait}
}

// Acquire takes a slot before the next message is read, waiting while all
// are busy: the backpressure. It reports false (without a slot) when none
// freed within the wait, and, once stalled, at once; Admit then decides
// about the message read. It fails only when ctx ends.
func (s *Slots) Acquire(ctx context.Context) (bool, error) {
	select {
	case s.ch <- struct{}{}:
		s.stalled = false
		return true, nil
	default:
	}
	if s.stalled {
		return false, ctx.Err()
	}
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case s.ch <- struct{}{}:
		return true, nil
	case <-t.C:
		s.stalled = true
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// Admit takes a slot for a message read without one, waiting at most
// stalledGrace: slots may have freed while the message was awaited.
func (s *Slots) Admit(ctx context.Context) bool {
	t := time.NewTimer(stalledGrace)
	defer t.Stop()
	select {
	case s.ch <- struct{}{}:
		s.stalled = false
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// Release gives back a slot that Acquire or Admit took (admitted).
func (s *Slots) Release(admitted bool) {
	if admitted {
		<-s.ch
	}
}
