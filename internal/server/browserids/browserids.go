// Package browserids gives browser profiles stable IDs ("b1"): the key an
// extension sends in its hello maps to the same ID across relay
// reconnects and service restarts, kept in the data dir. It also says
// which browsers are reconnecting: seen recently, not linked now.
package browserids

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/server/privfile"
)

// File (in the data dir) remembers the browser profiles the
// service has seen: the ID each was given and when it was last connected.
const File = "browsers.json"

// MaxKnown bounds File: the profiles seen longest ago are
// forgotten first.
const MaxKnown = 256

// KeyPattern is the form of the key an extension sends in its hello
// (extension/identity.js).
var KeyPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{32}$`) }) // on first use, not at start

// Known is one browser profile the service has seen.
type Known struct {
	ID        string    `json:"id"`
	LastSeen  time.Time `json:"lastSeen"`  // when its link last dropped, or was last up
	Connected bool      `json:"connected"` // a link was up when this was written
}

// Registry gives browser profiles stable IDs: the extension's key maps to
// the same short ID ("b1") across relay reconnects and service restarts.
// It also says which browsers are reconnecting: seen recently, not linked
// now. It is not safe for concurrent use (its user guards it).
type Registry struct {
	path  string
	now   func() time.Time
	Next  int               `json:"next"`     // the last number handed out
	Known map[string]*Known `json:"browsers"` // by browser key
}

// Load reads path. A missing file is an empty registry; a broken
// one is reported and replaced by an empty one (IDs start over, nothing
// else breaks). Browsers that were connected when the previous service
// stopped count as seen now: their relays are on their way back.
func Load(path string, now func() time.Time) (*Registry, error) {
	r := &Registry{path: path, now: now, Known: make(map[string]*Known)}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err == nil {
		err = json.Unmarshal(b, r)
	}
	if err != nil {
		r.Next, r.Known = 0, make(map[string]*Known)
		return r, fmt.Errorf("read %s: %w", path, err)
	}
	if r.Known == nil {
		r.Known = make(map[string]*Known)
	}
	start := now()
	for key, k := range r.Known {
		if k == nil || !KeyPattern().MatchString(key) || idNumber(k.ID) <= 0 {
			delete(r.Known, key)
			continue
		}
		r.Next = max(r.Next, idNumber(k.ID))
		if k.Connected {
			k.LastSeen, k.Connected = start, false
		}
	}
	return r, nil
}

// idNumber returns N of an ID "bN", or 0.
func idNumber(id string) int {
	if len(id) < 2 || id[0] != 'b' {
		return 0
	}
	n, err := strconv.Atoi(id[1:])
	if err != nil {
		return 0
	}
	return n
}

// Fresh hands out an ID no browser ever had.
func (r *Registry) Fresh() string {
	r.Next++
	return "b" + strconv.Itoa(r.Next)
}

// IDFor returns the ID of the browser with key, giving it one on first
// sight, and whether the registry changed.
func (r *Registry) IDFor(key string) (id string, changed bool) {
	if k, ok := r.Known[key]; ok {
		return k.ID, false
	}
	id = r.Fresh()
	r.Known[key] = &Known{ID: id, LastSeen: r.now()}
	r.prune()
	return id, true
}

// KeyOf returns the key of the browser with id, or "".
func (r *Registry) KeyOf(id string) string {
	for key, k := range r.Known {
		if k.ID == id {
			return key
		}
	}
	return ""
}

// SetConnected records that the browser's link came up or went down.
func (r *Registry) SetConnected(key string, up bool) {
	if k, ok := r.Known[key]; ok {
		k.Connected, k.LastSeen = up, r.now()
	}
}

// Reconnecting returns the known browsers that are not connected and were
// within grace, with the time each one's grace ends.
func (r *Registry) Reconnecting(grace time.Duration) map[string]time.Time {
	out := make(map[string]time.Time)
	now := r.now()
	for _, k := range r.Known {
		if end := k.LastSeen.Add(grace); !k.Connected && now.Before(end) {
			out[k.ID] = end
		}
	}
	return out
}

// prune forgets the browsers seen longest ago beyond MaxKnown.
func (r *Registry) prune() {
	if len(r.Known) <= MaxKnown {
		return
	}
	keys := make([]string, 0, len(r.Known))
	for key := range r.Known {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b string) int { return r.Known[a].LastSeen.Compare(r.Known[b].LastSeen) })
	for _, key := range keys[:len(keys)-MaxKnown] {
		delete(r.Known, key)
	}
}

// Save writes the registry (0600, atomically).
func (r *Registry) Save() error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := privfile.Write(r.path, append(b, '\n')); err != nil {
		return fmt.Errorf("save %s: %w", r.path, err)
	}
	return nil
}
