// Package agentlive keeps the live agent connections: it numbers each as
// it connects, keeps the calls each is running now (the popup's Agents
// panel shows them; a takeover ends those that reached the person's
// space), and cuts the connections its user picks: those of a revoked
// token, those the person disconnects at the popup.
//
// Who a connection is (its token, its name, what it may do) and what a
// call is are not the registry's business: it is generic over both, C a
// connection, which it can only cut, and K a call in flight, and its user
// picks connections by their value.
package agentlive

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Conn is a live connection as the registry needs it.
type Conn interface {
	comparable
	// Cut closes the connection at once; its calls in flight end.
	Cut()
}

// Registry is the set of live connections of type C, each with its calls
// of type K in flight. The zero Registry is empty and ready; it is safe
// for concurrent use, and must not be copied once used.
type Registry[C Conn, K comparable] struct {
	mu    sync.Mutex
	seq   uint64 // the last number given, to a connection or a call
	conns map[C]*entry[K]
}

// entry is what the registry keeps of a live connection.
type entry[K comparable] struct {
	id    uint64
	since time.Time
	calls map[K]running
}

// running is a call in flight: its number orders the calls.
type running struct {
	seq   uint64
	since time.Time
}

// Live is a live connection as List shows it.
type Live[C any] struct {
	Conn  C
	ID    uint64    // its number: from 1, in the order the connections were added
	Since time.Time // when it was added
}

// Call is a call in flight as Calls shows it.
type Call[K any] struct {
	Call  K
	Since time.Time // when it started (Track)
}

// Add lists c as live, with the next number.
func (r *Registry[C, K]) Add(c C) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conns == nil {
		r.conns = make(map[C]*entry[K])
	}
	r.seq++
	r.conns[c] = &entry[K]{id: r.seq, since: time.Now(), calls: make(map[K]running)}
}

// Drop takes c off the list, with its calls.
func (r *Registry[C, K]) Drop(c C) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.conns, c)
}

// Track notes k as running on c until the returned func is called. The
// calls of a connection that is not live (never added, or dropped) are
// not tracked.
func (r *Registry[C, K]) Track(c C, k K) (done func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.conns[c]
	if e == nil {
		return func() {}
	}
	r.seq++
	e.calls[k] = running{seq: r.seq, since: time.Now()}
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(e.calls, k)
	}
}

// List returns the live connections, oldest first.
func (r *Registry[C, K]) List() []Live[C] {
	r.mu.Lock()
	out := make([]Live[C], 0, len(r.conns))
	for c, e := range r.conns {
		out = append(out, Live[C]{Conn: c, ID: e.id, Since: e.since})
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(x, y Live[C]) int { return cmp.Compare(x.ID, y.ID) })
	return out
}

// Calls returns c's calls in flight, oldest first (none when c is not
// live).
func (r *Registry[C, K]) Calls(c C) []Call[K] {
	type numbered struct {
		Call[K]
		seq uint64
	}
	r.mu.Lock()
	var calls []numbered
	if e := r.conns[c]; e != nil {
		calls = make([]numbered, 0, len(e.calls))
		for k, run := range e.calls {
			calls = append(calls, numbered{Call[K]{Call: k, Since: run.since}, run.seq})
		}
	}
	r.mu.Unlock()
	slices.SortFunc(calls, func(x, y numbered) int { return cmp.Compare(x.seq, y.seq) })
	out := make([]Call[K], len(calls))
	for i, n := range calls {
		out[i] = n.Call
	}
	return out
}

// Cut closes at once the live connections pick picks, and returns how
// many it closed. pick runs under the registry's lock, so it must not
// call the registry; the connections are cut after the lock is released.
// A cut connection stays listed until its user drops it.
func (r *Registry[C, K]) Cut(pick func(Live[C]) bool) int {
	r.mu.Lock()
	var cut []C
	for c, e := range r.conns {
		if pick(Live[C]{Conn: c, ID: e.id, Since: e.since}) {
			cut = append(cut, c)
		}
	}
	r.mu.Unlock()
	for _, c := range cut {
		c.Cut()
	}
	return len(cut)
}
