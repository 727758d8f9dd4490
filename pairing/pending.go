package pairing

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
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

// ErrBusy refuses a request over the caps: too many waiting, too many
// lately, or one for the same name already waiting.
var ErrBusy = errors.New("pairing busy")

// ErrDenied is Ask's error when the person said no.
var ErrDenied = errors.New("pairing denied")

// ErrExpired is Ask's error when nobody answered in time.
var ErrExpired = errors.New("pairing request expired")

// ErrNoRequest is Decide's error for a name with no request waiting.
var ErrNoRequest = errors.New("no pairing request waiting")

// Limits bound the pairing requests.
type Limits struct {
	MaxPending int           // requests waiting at once
	Burst      int           // requests accepted back to back
	Every      time.Duration // one more allowed per Every after the burst
}

// DefaultLimits: 4 waiting; 5 back to back, then one every 10 seconds.
var DefaultLimits = Limits{MaxPending: 4, Burst: 5, Every: 10 * time.Second}

// Pending holds the requests waiting for the person's answer. It is safe
// for concurrent use.
type Pending struct {
	lim     Limits
	now     func() time.Time
	changed func() // called (without locks held) when the list changes

	mu     sync.Mutex
	reqs   []*waiting
	tokens float64
	last   time.Time
}

type waiting struct {
	Request
	answer chan bool // buffered 1: the decision
	shown  bool      // described: List shows it, Decide answers it
}

// NewPending makes an empty list; changed (may be nil) is called whenever
// a request comes or goes.
func NewPending(lim Limits, now func() time.Time, changed func()) *Pending {
	return &Pending{lim: lim, now: now, changed: changed, tokens: float64(lim.Burst), last: now()}
}

// Ask adds a request and waits for the answer, at most wait (and within
// ctx). It returns the request as the person saw it, and nil when
// approved. describe (may be nil) names the process that asked; it runs
// only once the request passed the caps, as it may be slow.
func (p *Pending) Ask(ctx context.Context, req Request, wait time.Duration, describe func() *Process) (Request, error) {
	var id [8]byte
	_, _ = rand.Read(id[:])
	now := p.now()
	req.ID, req.Asked, req.Expires = hex.EncodeToString(id[:]), now.UTC(), now.Add(wait).UTC()
	w := &waiting{Request: req, answer: make(chan bool, 1)}
	if err := p.add(w); err != nil {
		return req, err
	}
	if describe != nil {
		req.Process = describe()
	}
	p.mu.Lock()
	w.Process, w.shown = req.Process, true
	p.mu.Unlock()
	p.notify()
	defer func() {
		p.remove(w)
		p.notify()
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case ok := <-w.answer:
		if !ok {
			return req, fmt.Errorf("pair %s: %w by the person", req.Name, ErrDenied)
		}
		return req, nil
	case <-t.C:
		return req, fmt.Errorf("pair %s: %w: nobody approved it within %v (the extension's popup, or `egohost agents approve %s`)", req.Name, ErrExpired, wait, req.Name)
	case <-ctx.Done():
		return req, fmt.Errorf("pair %s: %w", req.Name, ctx.Err())
	}
}

func (p *Pending) add(w *waiting) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.lim.Every > 0 {
		p.tokens = min(float64(p.lim.Burst), p.tokens+now.Sub(p.last).Seconds()/p.lim.Every.Seconds())
	}
	p.last = now
	if p.tokens < 1 {
		return fmt.Errorf("pair %s: %w: too many pairing requests lately, try again in %v", w.Name, ErrBusy, p.lim.Every)
	}
	p.tokens-- // every attempt counts, refused or not: a flood stays a trickle
	if len(p.reqs) >= p.lim.MaxPending {
		return fmt.Errorf("pair %s: %w: %d requests already wait for the person", w.Name, ErrBusy, len(p.reqs))
	}
	for _, o := range p.reqs {
		if o.Name == w.Name {
			return fmt.Errorf("pair %s: %w: a request for this name already waits", w.Name, ErrBusy)
		}
	}
	p.reqs = append(p.reqs, w)
	return nil
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

// Decide answers the request waiting for name (or with that request ID).
func (p *Pending) Decide(nameOrID string, approve bool) (Request, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, w := range p.reqs {
		if w.shown && (w.Name == nameOrID || w.ID == nameOrID) {
			select {
			case w.answer <- approve:
			default:
				return w.Request, fmt.Errorf("decide %s: already answered", nameOrID)
			}
			return w.Request, nil
		}
	}
	return Request{}, fmt.Errorf("decide %q: %w", nameOrID, ErrNoRequest)
}

// List returns the requests waiting, oldest first.
func (p *Pending) List() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Request, 0, len(p.reqs))
	for _, w := range p.reqs {
		if !w.shown {
			continue
		}
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
