// Package pending is the table of requests in flight that wait for their
// replies, by request ID: the one correlator the browser link, the agents'
// client and the test CDP connection share.
package pending

import "sync"

// Table holds the requests in flight. Its zero value is empty and open;
// it is safe for concurrent use.
type Table[K comparable, V any] struct {
	mu    sync.Mutex
	calls map[K]V
	err   error
}

// Add registers a request; once the table is closed it refuses with
// Close's error.
func (t *Table[K, V]) Add(id K, v V) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return t.err
	}
	if t.calls == nil {
		t.calls = make(map[K]V)
	}
	t.calls[id] = v
	return nil
}

// Take removes a request and returns it; ok is false when it is not in
// flight (answered, given up, or never there).
func (t *Table[K, V]) Take(id K) (v V, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok = t.calls[id]
	delete(t.calls, id)
	return v, ok
}

// TakeIf removes the requests match reports and returns them.
func (t *Table[K, V]) TakeIf(match func(V) bool) []V {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []V
	for id, v := range t.calls {
		if match(v) {
			delete(t.calls, id)
			out = append(out, v)
		}
	}
	return out
}

// Close refuses every later Add with err (the first Close's error stays)
// and removes and returns the requests in flight, for the caller to fail.
func (t *Table[K, V]) Close(err error) []V {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		t.err = err
	}
	out := make([]V, 0, len(t.calls))
	for _, v := range t.calls {
		out = append(out, v)
	}
	clear(t.calls)
	return out
}

// Err is the error the table was closed with, nil while it is open.
func (t *Table[K, V]) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}
