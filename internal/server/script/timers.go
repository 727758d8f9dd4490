package script

import (
	"container/heap"
	"context"
	"fmt"
	"sync"
	"time"
)

// A run's timers and calls cost what the memory guard sees. The guard
// measures the heap, and a goroutine's stack is not in it: a goroutine
// per setTimeout let 100,000 timers take 86 MiB with a 32 MiB limit. So
// every timer of a run waits on one goroutine (the run's clock), a run
// holds at most maxTimers at once, and at most maxCallsRunning of its
// calls run at a time (the others wait their turn in the heap).
const (
	maxTimers       = 10000
	maxCallsRunning = 32
)

// timer is one pending setTimeout or sleep.
type timer struct {
	due   time.Time
	seq   uint64 // ties keep the order timers were set in
	fn    func() error
	index int // in the clock's heap; -1 once fired or cleared
}

// clock fires a run's timers, in order, on one goroutine: it posts each
// timer's fn to the VM when it is due.
type clock struct {
	mu     sync.Mutex
	timers timerHeap
	seq    uint64
	wake   chan struct{} // the earliest timer changed
}

func newClock() *clock { return &clock{wake: make(chan struct{}, 1)} }

// add sets a timer d from now, unless maxTimers are pending.
func (c *clock) add(d time.Duration, fn func() error) (*timer, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) >= maxTimers {
		return nil, fmt.Errorf("timer limit: %d timers (setTimeout, waitForTimeout) are pending at once", maxTimers)
	}
	c.seq++
	t := &timer{due: time.Now().Add(d), seq: c.seq, fn: fn}
	heap.Push(&c.timers, t)
	if t.index == 0 {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
	return t, nil
}

// remove clears t; false when it already fired (its fn is posted).
func (c *clock) remove(t *timer) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.index < 0 {
		return false
	}
	heap.Remove(&c.timers, t.index)
	return true
}

// run posts the timers' fns as they fall due, until ctx ends.
func (c *clock) run(ctx context.Context, post func(func() error)) {
	wait := time.NewTimer(time.Hour)
	defer wait.Stop()
	for {
		c.mu.Lock()
		now := time.Now()
		var due []*timer
		for len(c.timers) > 0 && !c.timers[0].due.After(now) {
			due = append(due, heap.Pop(&c.timers).(*timer))
		}
		next := time.Hour
		if len(c.timers) > 0 {
			next = c.timers[0].due.Sub(now)
		}
		c.mu.Unlock()
		for _, t := range due {
			post(t.fn)
		}
		wait.Reset(next)
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		case <-wait.C:
		}
	}
}

// timerHeap orders timers by due time, then by when they were set.
type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if !h[i].due.Equal(h[j].due) {
		return h[i].due.Before(h[j].due)
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*timer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.index = -1
	return t
}

// after sets fn to run on the VM's goroutine after ms milliseconds. Past
// maxTimers the run ends with script_limit. It runs on the VM's goroutine.
func (r *run) after(ms float64, fn func() error) (*timer, bool) {
	d := time.Duration(max(ms, 0) * float64(time.Millisecond))
	t, err := r.clock.add(d, fn)
	if err != nil {
		r.limit(err.Error())
		return nil, false
	}
	r.pending++
	return t, true
}

// clear clears a timer set by after. It runs on the VM's goroutine.
func (r *run) clear(t *timer) {
	if r.clock.remove(t) {
		r.pending-- // it will never be posted
	}
}

// spawn runs work (a call to the service) on a goroutine of its own, or
// queues it while maxCallsRunning run; work's result, handled on the
// VM's goroutine, calls callDone to let the next one go. It runs on the
// VM's goroutine.
func (r *run) spawn(work func()) {
	if r.running >= maxCallsRunning {
		r.queued = append(r.queued, work)
		return
	}
	r.running++
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		work()
	}()
}

// callDone ends a spawned call: the next queued one starts. It runs on
// the VM's goroutine.
func (r *run) callDone() {
	r.running--
	if len(r.queued) > 0 {
		next := r.queued[0]
		r.queued[0] = nil
		r.queued = r.queued[1:]
		r.spawn(next)
	}
}

// limit ends the run with script_limit (msg says which guard).
func (r *run) limit(msg string) {
	r.stop(&limitError{msg: msg})
	r.vm.Interrupt(msg)
}
