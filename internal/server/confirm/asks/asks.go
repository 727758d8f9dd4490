// Package asks keeps the acts of paired agents that wait for the person's
// yes (README "Confirmations"), and the person's "always" answers, which
// it keeps in the data dir. The service lists an ask, tells the person
// and waits on its answer; the CLI and the popup answer it here.
package asks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/privfile"
	"github.com/egohost/egohost/protocol"
)

// File keeps the person's "always" answers in the data dir.
const File = "confirm.json"

// Always is one "always for this agent on this origin" answer: acts of
// that kind go through unasked.
type Always struct {
	Agent  string `json:"agent"`
	Origin string `json:"origin"`
	Kind   string `json:"kind"`
}

// Ask is one act waiting for the person.
type Ask struct {
	protocol.Confirm
	expires time.Time
	// answer carries the person's answer (buffered: the first answer
	// wins); only Store.Answer sends on it.
	answer chan Answer
	// always are the "always" answers a yes with always keeps: every kind
	// the ask is about, each on its origin (the ask's own kind and origin
	// when empty).
	always []Always
}

// Wait waits for the person's answer to the ask (Store.Answer hands it
// over), wait at most, or for ctx's end. It returns what was decided in
// the audit log's words (Answer.Decision; "confirm_timeout" or
// "cancelled" when nobody answered), who decided ("nobody" then), and
// the call's error: nil for a yes, else denied_by_person,
// confirm_timeout, or ctx's cause.
func (a *Ask) Wait(ctx context.Context, wait time.Duration) (decision, who string, err error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case ans := <-a.answer:
		if !ans.Allow {
			err = protocol.Errorf(protocol.CodeDeniedByPerson, "the person denied: %s. Do not retry it: ask the person what they want instead", a.Action).
				With("kind", a.Kind).With("action", a.Action).With("id", a.ID)
		}
		return ans.Decision(), ans.Who, err
	case <-t.C:
		return "confirm_timeout", "nobody", protocol.Errorf(protocol.CodeConfirmTimeout, "nobody confirmed %s within %v: nothing was done (the person may be away: ask them, then try again)", a.Action, wait.Round(time.Millisecond)).
			With("kind", a.Kind).With("action", a.Action).With("id", a.ID).With("timeoutMs", wait.Milliseconds())
	case <-ctx.Done():
		return "cancelled", "nobody", context.Cause(ctx)
	}
}

// Answer is the person's answer to an ask.
type Answer struct {
	Allow, Always bool
	Who           string // "owner" (the CLI), "person" (the popup)
}

// Decision is the answer in the words of the audit log and of
// confirm.answer's result: "denied", "always" or "allowed".
func (a Answer) Decision() string {
	switch {
	case !a.Allow:
		return "denied"
	case a.Always:
		return "always"
	}
	return "allowed"
}

// Store holds the asks waiting and the "always" answers.
type Store struct {
	path string // File in the data dir

	mu      sync.Mutex
	seq     int
	pending map[string]*Ask
	always  []Always
}

// Load reads the "always" answers from dataDir; a file that does not read
// is logged and starts empty (the person is asked again: the safe side).
func Load(dataDir string, warn func(msg string, args ...any)) *Store {
	c := &Store{path: filepath.Join(dataDir, File), pending: make(map[string]*Ask)}
	b, err := os.ReadFile(c.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		warn("confirmations: the always answers are forgotten", "err", err)
	default:
		if err := json.Unmarshal(b, &c.always); err != nil {
			warn("confirmations: the always answers are forgotten", "err", err)
			c.always = nil
		}
	}
	return c
}

// AllowedAlways reports whether the person said "always" to acts of kind
// by agent on origin.
func (c *Store) AllowedAlways(agent, origin string, kind confirm.Kind) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.always, Always{Agent: agent, Origin: origin, Kind: string(kind)})
}

// Add lists an ask, waiting at most wait, and returns it with its id.
func (c *Store) Add(q protocol.Confirm, wait time.Duration, always []Always) *Ask {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	// Unique across restarts: a notification or a CLI line of an ask of
	// the service before never answers one of this one.
	var r [4]byte
	_, _ = rand.Read(r[:]) // crypto/rand.Read never fails
	q.ID = "c" + strconv.Itoa(c.seq) + "-" + hex.EncodeToString(r[:])
	now := time.Now()
	q.Since = now.UTC().Format(time.RFC3339)
	a := &Ask{Confirm: q, expires: now.Add(wait), answer: make(chan Answer, 1), always: always}
	c.pending[q.ID] = a
	return a
}

// Remove drops the ask id (answered, or its call ended).
func (c *Store) Remove(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.pending, id)
}

// List is the asks waiting, oldest first (on one browser when browser is
// not ""), with their pictures when pictures.
func (c *Store) List(browser string, pictures bool) []protocol.Confirm {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := []protocol.Confirm{}
	for _, a := range c.pending {
		if browser != "" && a.Browser != browser {
			continue
		}
		q := a.Confirm
		q.ExpiresMs = max(0, time.Until(a.expires).Milliseconds())
		if !pictures {
			q.Picture = nil
		}
		out = append(out, q)
	}
	slices.SortFunc(out, func(x, y protocol.Confirm) int { return askSeq(x.ID) - askSeq(y.ID) })
	return out
}

// askSeq is the sequence number of an ask id ("c12-0a1b2c3d": 12).
func askSeq(id string) int {
	seq, _, _ := strings.Cut(strings.TrimPrefix(id, "c"), "-")
	n, _ := strconv.Atoi(seq)
	return n
}

// Answer hands the person's answer to the ask id; the "always" answer
// is kept (and written) first.
func (c *Store) Answer(id string, ans Answer) (*Ask, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.pending[id]
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "confirm.answer: no act waits as %q (it was answered, or its call ended): see `egohost confirm list`", id)
	}
	select {
	case a.answer <- ans:
	default:
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "confirm.answer: %s was answered already", id)
	}
	rules := a.always
	if len(rules) == 0 {
		rules = []Always{{Agent: a.Agent, Origin: a.Origin, Kind: a.Kind}}
	}
	added := false
	for _, rule := range rules {
		if ans.Allow && ans.Always && !slices.Contains(c.always, rule) {
			c.always = append(c.always, rule)
			added = true
		}
	}
	if added {
		b, err := json.MarshalIndent(c.always, "", "  ")
		if err == nil {
			err = privfile.Write(c.path, b)
		}
		if err != nil {
			return a, protocol.Errorf(protocol.CodeInternal, "confirm.answer: allowed once; the always answer was not saved: %v", err)
		}
	}
	return a, nil
}
