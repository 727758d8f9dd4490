// Package ring is a bounded buffer that keeps the newest values put into
// it and counts the ones it dropped.
package ring

// Ring keeps the last n values put into it. Not safe for concurrent use.
type Ring[T any] struct {
	buf     []T
	next    int // where the next value goes once buf is full
	dropped int
	n       int
}

// New returns a ring of capacity n (n > 0).
func New[T any](n int) Ring[T] { return Ring[T]{n: n} }

// Put adds v, dropping the oldest value when the ring is full; it returns
// the value dropped, if any.
func (r *Ring[T]) Put(v T) (old T, evicted bool) {
	if len(r.buf) < r.n {
		r.buf = append(r.buf, v)
		return old, false
	}
	old = r.buf[r.next]
	r.buf[r.next] = v
	r.next = (r.next + 1) % r.n
	r.dropped++
	return old, true
}

// All returns the values, oldest first.
func (r *Ring[T]) All() []T {
	out := make([]T, 0, len(r.buf))
	out = append(out, r.buf[r.next:]...)
	return append(out, r.buf[:r.next]...)
}

// Dropped is how many values were dropped since the ring was made or
// reset.
func (r *Ring[T]) Dropped() int { return r.dropped }

// Reset empties the ring.
func (r *Ring[T]) Reset() { *r = New[T](r.n) }
