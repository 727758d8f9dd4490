package pairing

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Process is the program that asked to pair, as far as the OS tells.
type Process struct {
	PID int    `json:"pid,omitempty"`
	Exe string `json:"exe,omitempty"`
	UID int    `json:"uid"`
}

// Request is a pairing request waiting for the person.
type Request struct {
	ID      string    `json:"id"`
	Name    string    `json:"name"`
	Scopes  []Scope   `json:"scopes"`
	Process *Process  `json:"process,omitempty"`
	Asked   time.Time `json:"asked"`
	Expires time.Time `json:"expires"`
}

// ErrBusy refuses a request over the caps: too many waiting (in all, or
// from its process), too many lately (from its process, or from all
// together), or one for the same name already waiting.
var ErrBusy = errors.New("pairing busy")

// ErrDenied is Ask's error when the person said no.
var ErrDenied = errors.New("pairing denied")

// ErrExpired is Ask's error when nobody answered in time.
var ErrExpired = errors.New("pairing request expired")

// ErrNoRequest is Decide's error for a name with no request waiting.
var ErrNoRequest = errors.New("no pairing request waiting")

// Limits bound the pairing requests. A process is known by its pid; one
// the OS does not show (another OS user's) by its uid; processes the OS
// says nothing of (outside Linux) count as one.
type Limits struct {
	MaxPending int           // requests waiting at once, from everyone
	PerProcess int           // requests one process may have waiting (0: no cap but MaxPending)
	Burst      int           // requests one process may make back to back
	Every      time.Duration // then one more per Every
	// AllBurst and AllEvery bound the requests of all processes together
	// before each is looked at (finding its process reads /proc): AllBurst
	// back to back, then one per AllEvery (0: no bound).
	AllBurst int
	AllEvery time.Duration
}

// DefaultLimits: 4 waiting, 1 of them per process; 5 back to back per
// process, then one every 10 seconds; 20 back to back from all, then one
// a second.
var DefaultLimits = Limits{MaxPending: 4, PerProcess: 1, Burst: 5, Every: 10 * time.Second, AllBurst: 20, AllEvery: time.Second}

// maxBuckets bounds how many processes' rates are kept at once.
const maxBuckets = 1024

// Pending holds the requests waiting for the person's answer. It is safe
// for concurrent use.
type Pending struct {
	lim     Limits
	now     func() time.Time
	changed func() // called (without locks held) when the list changes

	mu      sync.Mutex
	reqs    []*waiting
	all     bucket             // every request, before its process is known
	buckets map[string]*bucket // by process key
}

type waiting struct {
	Request
	key    string      // its process (processKey)
	answer chan Answer // buffered 1: the decision
}

// Answer is the person's answer to a request.
type Answer struct {
	Approve bool
	// Scopes, when approving, are the scopes granted: a subset of those
	// asked for (nil: all of them).
	Scopes []Scope
}

// bucket is a token bucket: burst tokens, one more per every.
type bucket struct {
	tokens float64
	last   time.Time
}

// take refills b for the time since its last take and takes a token, if
// there is one.
func (b *bucket) take(now time.Time, burst int, every time.Duration) bool {
	b.refill(now, burst, every)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

func (b *bucket) refill(now time.Time, burst int, every time.Duration) {
	if every > 0 {
		b.tokens = min(float64(burst), b.tokens+now.Sub(b.last).Seconds()/every.Seconds())
	}
	b.last = now
}

// NewPending makes an empty list; changed (may be nil) is called whenever
// a request comes or goes.
func NewPending(lim Limits, now func() time.Time, changed func()) *Pending {
	return &Pending{lim: lim, now: now, changed: changed, all: bucket{tokens: float64(lim.AllBurst), last: now()}, buckets: make(map[string]*bucket)}
}

// processKey is what the per-process caps count by.
func processKey(p *Process) string {
	switch {
	case p == nil:
		return "unknown"
	case p.PID != 0:
		return "pid " + strconv.Itoa(p.PID)
	case p.UID >= 0:
		return "uid " + strconv.Itoa(p.UID) // another user's process: not visible, its user is
	}
	return "unknown"
}

// Ask adds a request and waits for the answer, at most wait (and within
// ctx). It returns the request as the person saw it (with the scopes
// granted, when approved), and nil when approved. describe (may be nil)
// names the process that asked; it runs once the request passed the
// bound of all processes together, as it may be slow, and before the
// per-process caps, which count by it.
func (p *Pending) Ask(ctx context.Context, req Request, wait time.Duration, describe func() *Process) (Request, error) {
	var id [8]byte
	_, _ = rand.Read(id[:])
	now := p.now()
	req.ID, req.Asked, req.Expires = hex.EncodeToString(id[:]), now.UTC(), now.Add(wait).UTC()
	if err := p.admit(req.Name); err != nil {
		return req, err
	}
	if describe != nil {
		req.Process = describe()
	}
	w := &waiting{Request: req, key: processKey(req.Process), answer: make(chan Answer, 1)}
	if err := p.add(w); err != nil {
		return req, err
	}
	p.notify()
	defer func() {
		p.remove(w)
		p.notify()
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case a := <-w.answer:
		if !a.Approve {
			return req, fmt.Errorf("pair %s: %w by the person", req.Name, ErrDenied)
		}
		if a.Scopes != nil {
			req.Scopes = slices.Clone(a.Scopes)
		}
		return req, nil
	case <-t.C:
		return req, fmt.Errorf("pair %s: %w: nobody approved it within %v (the extension's popup, or `egohost agents approve %s`)", req.Name, ErrExpired, wait, req.Name)
	case <-ctx.Done():
		return req, fmt.Errorf("pair %s: %w", req.Name, ctx.Err())
	}
}

// admit applies the bound of all processes together.
func (p *Pending) admit(name string) error {
	if p.lim.AllBurst <= 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.all.take(p.now(), p.lim.AllBurst, p.lim.AllEvery) {
		return fmt.Errorf("pair %s: %w: too many pairing requests from all processes lately, try again in %v", name, ErrBusy, p.lim.AllEvery)
	}
	return nil
}

func (p *Pending) add(w *waiting) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	b := p.buckets[w.key]
	if b == nil {
		p.prune(now)
		if len(p.buckets) >= maxBuckets {
			return fmt.Errorf("pair %s: %w: too many processes asked lately", w.Name, ErrBusy)
		}
		b = &bucket{tokens: float64(p.lim.Burst), last: now}
		p.buckets[w.key] = b
	}
	if !b.take(now, p.lim.Burst, p.lim.Every) {
		return fmt.Errorf("pair %s: %w: too many pairing requests from this process lately, try again in %v", w.Name, ErrBusy, p.lim.Every)
	}
	if len(p.reqs) >= p.lim.MaxPending {
		return fmt.Errorf("pair %s: %w: %d requests already wait for the person", w.Name, ErrBusy, len(p.reqs))
	}
	mine := 0
	for _, o := range p.reqs {
		if o.Name == w.Name {
			return fmt.Errorf("pair %s: %w: a request for this name already waits", w.Name, ErrBusy)
		}
		if o.key == w.key {
			mine++
		}
	}
	if p.lim.PerProcess > 0 && w.key != "unknown" && mine >= p.lim.PerProcess {
		return fmt.Errorf("pair %s: %w: this process already has %d request(s) waiting for the person", w.Name, ErrBusy, mine)
	}
	p.reqs = append(p.reqs, w)
	return nil
}

// prune forgets the processes whose rate is back to a full burst and
// that have nothing waiting. p.mu is held.
func (p *Pending) prune(now time.Time) {
	if len(p.buckets) < maxBuckets/4 {
		return
	}
	for k, b := range p.buckets {
		b.refill(now, p.lim.Burst, p.lim.Every)
		if b.tokens >= float64(p.lim.Burst) && !slices.ContainsFunc(p.reqs, func(w *waiting) bool { return w.key == k }) {
			delete(p.buckets, k)
		}
	}
}

func (p *Pending) remove(w *waiting) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reqs = slices.DeleteFunc(p.reqs, func(o *waiting) bool { return o == w })
}

func (p *Pending) notify() {
	if p.changed != nil {
		p.changed()
	}
}

// Find returns the request waiting for name (or with that request ID).
func (p *Pending) Find(nameOrID string) (Request, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range p.reqs {
		if w.Name == nameOrID || w.ID == nameOrID {
			r := w.Request
			r.Scopes = slices.Clone(r.Scopes)
			return r, true
		}
	}
	return Request{}, false
}

// Decide answers the request waiting for name (or with that request ID).
// An approval's scopes must be among those the request asked for.
func (p *Pending) Decide(nameOrID string, a Answer) (Request, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range p.reqs {
		if w.Name != nameOrID && w.ID != nameOrID {
			continue
		}
		if a.Approve && a.Scopes != nil {
			if len(a.Scopes) == 0 {
				return w.Request, fmt.Errorf("decide %s: grant at least one scope (or deny)", nameOrID)
			}
			for _, sc := range a.Scopes {
				if !slices.Contains(w.Scopes, sc) {
					return w.Request, fmt.Errorf("decide %s: %s was not asked for (asked: %s): a grant can only narrow the request", nameOrID, sc, ScopeList(w.Scopes))
				}
			}
		}
		select {
		case w.answer <- a:
		default:
			return w.Request, fmt.Errorf("decide %s: already answered", nameOrID)
		}
		r := w.Request
		if a.Approve && a.Scopes != nil {
			r.Scopes = slices.Clone(a.Scopes)
		}
		return r, nil
	}
	return Request{}, fmt.Errorf("decide %q: %w", nameOrID, ErrNoRequest)
}

// List returns the requests waiting, oldest first.
func (p *Pending) List() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Request, 0, len(p.reqs))
	for _, w := range p.reqs {
		r := w.Request
		r.Scopes = slices.Clone(r.Scopes)
		out = append(out, r)
	}
	return out
}

// Summary is a one-line description of a request for logs and notices.
func (r Request) Summary() string {
	sc := make([]string, len(r.Scopes))
	for i, s := range r.Scopes {
		sc[i] = string(s)
	}
	who := "an unknown process"
	if r.Process != nil && r.Process.PID != 0 {
		who = fmt.Sprintf("%s (pid %d)", r.Process.Exe, r.Process.PID)
	}
	return fmt.Sprintf("%s asks for %s, from %s", r.Name, strings.Join(sc, ", "), who)
}
