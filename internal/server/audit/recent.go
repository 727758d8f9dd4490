package audit

import (
	"log/slog"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/ring"
)

// Recent keeps each agent's last calls (by audit name) in memory, so
// the popup, which asks every second, never rereads the audit log. It is
// safe for concurrent use. Each
// entry is capped as the log keeps it, and the rings are fixed: adding a
// call copies nothing.
type Recent struct {
	n   int
	mu  sync.Mutex
	by  map[string]*ring.Ring[Entry]
	all ring.Ring[Entry] // the last recentAll calls of every agent
}

// recentAll is how many calls of all agents together it keeps: popup.agents'
// largest limit. maxRecentAgents is how many names it keeps calls of.
const (
	recentAll       = 200
	maxRecentAgents = 256
)

// NewRecent keeps the last n calls of each agent.
func NewRecent(n int) *Recent {
	return &Recent{n: n, by: make(map[string]*ring.Ring[Entry]), all: ring.New[Entry](recentAll)}
}

// PerAgent is how many calls of each agent it keeps.
func (r *Recent) PerAgent() int { return r.n }

// LoadRecent starts from the audit log at path: the last n calls of
// each agent in it.
func LoadRecent(path string, n int, log *slog.Logger) *Recent {
	r := NewRecent(n)
	entries, err := Read(path, Filter{})
	if err != nil {
		log.Warn("the popup's last calls start empty", "err", err)
	}
	for _, e := range entries {
		r.Add(e)
	}
	return r
}

// Add keeps e, capped as the log keeps it (Sanitise).
func (r *Recent) Add(e Entry) {
	e = Sanitise(e)
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := r.by[e.Agent]
	if calls == nil {
		if len(r.by) >= maxRecentAgents {
			r.forgetOldest()
		}
		c := ring.New[Entry](r.n)
		calls = &c
		r.by[e.Agent] = calls
	}
	calls.Put(e)
	r.all.Put(e)
}

// forgetOldest drops the calls of the name whose last call is the
// oldest. r.mu is held.
func (r *Recent) forgetOldest() {
	var oldest string
	var at time.Time
	for name, calls := range r.by {
		all := calls.All()
		if t := all[len(all)-1].Time; oldest == "" || t.Before(at) {
			oldest, at = name, t
		}
	}
	delete(r.by, oldest)
}

// Tail returns the last n calls of every agent, oldest first.
func (r *Recent) Tail(n int) []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := r.all.All()
	return all[max(0, len(all)-n):]
}

// Last returns each agent's last n calls, oldest first.
func (r *Recent) Last(n int) map[string][]Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string][]Entry, len(r.by))
	for name, calls := range r.by {
		all := calls.All()
		out[name] = all[max(0, len(all)-n):]
	}
	return out
}
