package spaces

import (
	"sync"
	"time"
)

// Presence counts the named agents' connections, and when each one's
// last connection ended: an agent with none for a while is gone, and its
// working spaces become idle (MarkIdle). It is safe for concurrent use.
type Presence struct {
	mu    sync.Mutex
	conns map[string]int       // agent → connections open now
	left  map[string]time.Time // agent → when its last connection ended
}

// NewPresence returns a Presence with no agent connected.
func NewPresence() *Presence {
	return &Presence{conns: make(map[string]int), left: make(map[string]time.Time)}
}

// Join counts a connection of the named agent.
func (p *Presence) Join(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns[name]++
}

// Leave counts a connection of the named agent as ended at now.
func (p *Presence) Leave(name string, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns[name]--
	if p.conns[name] <= 0 {
		delete(p.conns, name)
		p.left[name] = now
	}
}

// Connected reports whether the named agent has a connection open.
func (p *Presence) Connected(name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conns[name] > 0
}

// Gone returns the agents that have had no connection for grace at now,
// each once: an agent that left is reported by one call only.
func (p *Presence) Gone(now time.Time, grace time.Duration) map[string]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	gone := make(map[string]bool)
	for name, at := range p.left {
		if p.conns[name] == 0 && now.Sub(at) >= grace {
			gone[name] = true
			delete(p.left, name)
		}
	}
	return gone
}
