package cdpcount

import (
	"context"
	"sync"

	"github.com/egohost/egohost/internal/link/cdptab"
)

// Params is a page whose commands with params of type P (the
// Runtime.evaluate's, the Runtime.callFunctionOn's…) are recorded, for
// tests that say what crossed to the page.
type Params[P any] struct {
	*cdptab.Page
	mu  sync.Mutex
	got []P
}

// Call records params when they are a P, and sends the command.
func (r *Params[P]) Call(ctx context.Context, method string, params, result any) error {
	if p, ok := params.(P); ok {
		r.mu.Lock()
		r.got = append(r.got, p)
		r.mu.Unlock()
	}
	return r.Page.Call(ctx, method, params, result)
}

// Take returns the params recorded since the last Take.
func (r *Params[P]) Take() []P {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.got
	r.got = nil
	return out
}
