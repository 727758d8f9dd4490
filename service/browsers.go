package service

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

	"github.com/egohost/egohost/internal/privfile"
)

// browsersFile (in the data dir) remembers the browser profiles the
// service has seen: the ID each was given and when it was last connected.
const browsersFile = "browsers.json"

// maxKnownBrowsers bounds browsersFile: the profiles seen longest ago are
// forgotten first.
const maxKnownBrowsers = 256

// browserKeyPattern is the form of the key an extension sends in its hello
// (extension/identity.js).
var browserKeyPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{32}$`) }) // on first use, not at start

// knownBrowser is one browser profile the service has seen.
type knownBrowser struct {
	ID        string    `json:"id"`
	LastSeen  time.Time `json:"lastSeen"`  // when its link last dropped, or was last up
	Connected bool      `json:"connected"` // a link was up when this was written
}

// registry gives browser profiles stable IDs: the extension's key maps to
// the same short ID ("b1") across relay reconnects and service restarts.
// It also says which browsers are reconnecting: seen recently, not linked
// now. It is not safe for concurrent use (the Service's mu guards it).
type registry struct {
	path  string
	now   func() time.Time
	Next  int                      `json:"next"`     // the last number handed out
	Known map[string]*knownBrowser `json:"browsers"` // by browser key
}

// loadRegistry reads path. A missing file is an empty registry; a broken
// one is reported and replaced by an empty one (IDs start over, nothing
// else breaks). Browsers that were connected when the previous service
// stopped count as seen now: their relays are on their way back.
func loadRegistry(path string, now func() time.Time) (*registry, error) {
	r := &registry{path: path, now: now, Known: make(map[string]*knownBrowser)}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err == nil {
		err = json.Unmarshal(b, r)
	}
	if err != nil {
		r.Next, r.Known = 0, make(map[string]*knownBrowser)
		return r, fmt.Errorf("read %s: %w", path, err)
	}
	if r.Known == nil {
		r.Known = make(map[string]*knownBrowser)
	}
	start := now()
	for key, k := range r.Known {
		if k == nil || !browserKeyPattern().MatchString(key) || idNumber(k.ID) <= 0 {
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

// fresh hands out an ID no browser ever had.
func (r *registry) fresh() string {
	r.Next++
	return "b" + strconv.Itoa(r.Next)
}

// idFor returns the ID of the browser with key, giving it one on first
// sight, and whether the registry changed.
func (r *registry) idFor(key string) (id string, changed bool) {
	if k, ok := r.Known[key]; ok {
		return k.ID, false
	}
	id = r.fresh()
	r.Known[key] = &knownBrowser{ID: id, LastSeen: r.now()}
	r.prune()
	return id, true
}

// keyOf returns the key of the browser with id, or "".
func (r *registry) keyOf(id string) string {
	for key, k := range r.Known {
		if k.ID == id {
			return key
		}
	}
	return ""
}

// setConnected records that the browser's link came up or went down.
func (r *registry) setConnected(key string, up bool) {
	if k, ok := r.Known[key]; ok {
		k.Connected, k.LastSeen = up, r.now()
	}
}

// reconnecting returns the known browsers that are not connected and were
// within grace, with the time each one's grace ends.
func (r *registry) reconnecting(grace time.Duration) map[string]time.Time {
	out := make(map[string]time.Time)
	now := r.now()
	for _, k := range r.Known {
		if end := k.LastSeen.Add(grace); !k.Connected && now.Before(end) {
			out[k.ID] = end
		}
	}
	return out
}

// prune forgets the browsers seen longest ago beyond maxKnownBrowsers.
func (r *registry) prune() {
	if len(r.Known) <= maxKnownBrowsers {
		return
	}
	keys := make([]string, 0, len(r.Known))
	for key := range r.Known {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(a, b string) int { return r.Known[a].LastSeen.Compare(r.Known[b].LastSeen) })
	for _, key := range keys[:len(keys)-maxKnownBrowsers] {
		delete(r.Known, key)
	}
}

// save writes the registry (0600, atomically).
func (r *registry) save() error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := privfile.Write(r.path, append(b, '\n')); err != nil {
		return fmt.Errorf("save %s: %w", r.path, err)
	}
	return nil
}
