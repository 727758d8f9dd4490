// Package spaces keeps the agents' spaces: which named agent owns which
// Chrome tab group of which browser, each agent's current space, and
// whether the person has taken a space over. It makes the spaces'
// decisions: which space an agent's call or new tab lands in (For,
// DefaultTab), whether an agent may act on a tab (Check), what claiming,
// touching, taking over, handing back and ending change in the registry,
// what a browser's tab groups say after a restart (Reconcile), and when
// a space is idle (Presence, MarkIdle). It does no I/O: the service
// drives Chrome, words the agents' errors and persists the Saved state
// this package hands it.
package spaces

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxName is the longest agent name.
const MaxName = 32

// ErrName is the error of an agent name that is not allowed.
var ErrName = errors.New("invalid agent name")

// CheckName reports whether name can name an agent: 1 to MaxName
// characters of A-Z, a-z, 0-9, '.', '_' and '-', starting with a letter
// or digit (so it reads well in a tab group title and a log line).
func CheckName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty", ErrName)
	}
	if len(name) > MaxName {
		return fmt.Errorf("%w %q: longer than %d characters", ErrName, name, MaxName)
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !ok && (i == 0 || c != '.' && c != '_' && c != '-') {
			return fmt.Errorf("%w %q: use letters, digits, '.', '_' and '-' (starting with a letter or digit)", ErrName, name)
		}
	}
	return nil
}

// NameFrom makes an agent name of a client's self-description (an MCP
// client's name, "Claude Code" → "Claude-Code"): characters a name cannot
// have become '-', and it is cut to MaxName; fallback when nothing is left.
func NameFrom(client, fallback string) string {
	b := []byte(strings.TrimSpace(client))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_') {
			b[i] = '-'
		}
	}
	name := strings.TrimLeft(string(b), "-._")
	if len(name) > MaxName {
		name = name[:MaxName]
	}
	if CheckName(name) != nil {
		return fallback
	}
	return name
}

// MaxTask is the longest task text a space's title carries.
const MaxTask = 80

// CheckTask reports whether task can be a space's task: one line of at
// most MaxTask bytes.
func CheckTask(task string) error {
	if len(task) > MaxTask || strings.ContainsAny(task, "\n\r") {
		return fmt.Errorf("task must be one line of at most %d bytes", MaxTask)
	}
	return nil
}

// State says who is in control of a space.
type State string

// The states of a space, each with the marker its group title starts with.
const (
	Working State = "working" // the agent drives it
	Person  State = "person"  // the person took it over: agents' calls fail with user_in_control
	Idle    State = "idle"    // its agent is not connected
)

var markers = map[State]string{Working: "🤖", Person: "✋", Idle: "💤"}

// doneMarker starts the title of a group whose space was completed with
// keep: the tabs are the person's now, and no space is rebuilt from it.
const doneMarker = "✅"

// Colors are Chrome's tab group colours, in the order new spaces take them.
var Colors = []string{"blue", "red", "yellow", "green", "pink", "purple", "cyan", "orange"}

// Space is one agent's tab group in one browser.
type Space struct {
	ID      string `json:"id"`
	Agent   string `json:"agent"`
	Task    string `json:"task,omitempty"`
	Browser string `json:"browser"`
	// Group is the Chrome tab group; 0 while the space has no tab (Chrome
	// deletes an empty group).
	Group int    `json:"group,omitempty"`
	Color string `json:"color"`
	// Window is the browser window of the space's tabs (each space has its
	// own, so its active tab renders and takes input); 0 when unknown.
	Window  int   `json:"window,omitempty"`
	LastTab int   `json:"lastTab,omitempty"` // the tab the agent used last: its default tab
	State   State `json:"state"`
}

// Title is the group title that records the space: a state marker, the
// agent's name and its task.
func (sp Space) Title() string {
	t := markers[sp.State] + " " + sp.Agent
	if sp.Task != "" {
		t += ": " + sp.Task
	}
	return t
}

// DoneTitle is the title of the group of a space completed with keep.
func (sp Space) DoneTitle() string {
	return doneMarker + " " + strings.TrimPrefix(sp.Title(), markers[sp.State]+" ")
}

// ScriptedSuffix ends the title of a kept group one of whose pages ran an
// agent's own script, which could read what the person types there.
const ScriptedSuffix = " ⚠ reload before typing"

// CloseFirstSuffix ends it instead when a tab linked to such a page (one
// opened the other) could put the script back after a reload.
const CloseFirstSuffix = " ⚠ close linked tabs, reload before typing"

// ParseTitle reads a group title written by Title: ok is false for any
// other title (the person's own groups, completed spaces).
func ParseTitle(title string) (agent, task string, st State, ok bool) {
	for s, m := range markers {
		rest, found := strings.CutPrefix(title, m+" ")
		if !found {
			continue
		}
		agent, task, _ = strings.Cut(rest, ": ")
		if CheckName(agent) != nil {
			return "", "", "", false
		}
		return agent, task, s, true
	}
	return "", "", "", false
}

// Registry holds every space. It is safe for concurrent use.
type Registry struct {
	mu      sync.Mutex
	next    int
	spaces  map[string]*Space
	current map[string]string        // agent → its current space's ID
	resumed map[string]chan struct{} // space ID → closed when the person hands it back
	holds   map[string][]Hold        // space ID → the person's latest holds of it (HeldAt)
}

// Hold is a time the person had a space: from its take over until it was
// handed back (To zero: still held). A space the service found held at
// its start, with no hold saved, was held from the zero time, as far as
// it knows.
type Hold struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to,omitzero"`
}

// maxHolds bounds the holds remembered of a space (the oldest go).
const maxHolds = 16

// Saved is what a Registry persists.
type Saved struct {
	Next    int               `json:"next"`
	Spaces  []Space           `json:"spaces"`
	Current map[string]string `json:"current,omitempty"`
	// Holds are the person's latest holds of each space, by its ID: a
	// console message the page logged in one is not an agent's to read,
	// also when Chrome replays it after a restart of the service.
	Holds map[string][]Hold `json:"holds,omitempty"`
}

// New returns a registry holding what was saved.
func New(saved Saved) *Registry {
	r := &Registry{next: saved.Next, spaces: make(map[string]*Space), current: make(map[string]string), resumed: make(map[string]chan struct{}), holds: make(map[string][]Hold)}
	for _, sp := range saved.Spaces {
		if sp.ID == "" || CheckName(sp.Agent) != nil {
			continue
		}
		r.spaces[sp.ID] = &sp
		holds := saved.Holds[sp.ID]
		if len(holds) > maxHolds {
			holds = holds[len(holds)-maxHolds:]
		}
		if len(holds) > 0 {
			r.holds[sp.ID] = slices.Clone(holds)
		}
		if sp.State == Person {
			r.resumed[sp.ID] = make(chan struct{})
			if len(holds) == 0 || !holds[len(holds)-1].To.IsZero() {
				r.holds[sp.ID] = append(r.holds[sp.ID], Hold{}) // held since before the service knew
			}
		}
	}
	for a, id := range saved.Current {
		if sp := r.spaces[id]; sp != nil && sp.Agent == a {
			r.current[a] = id
		}
	}
	return r
}

// Save returns what to persist.
func (r *Registry) Save() Saved {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := Saved{Next: r.next, Spaces: r.listLocked(func(*Space) bool { return true }), Current: make(map[string]string, len(r.current))}
	for a, id := range r.current {
		s.Current[a] = id
	}
	for id, holds := range r.holds {
		if s.Holds == nil {
			s.Holds = make(map[string][]Hold, len(r.holds))
		}
		s.Holds[id] = slices.Clone(holds)
	}
	return s
}

// Add makes a new space for agent in browser and makes it the agent's
// current one. Its colour is the first one the agent's other spaces do
// not use.
func (r *Registry) Add(agent, task, browser string) Space {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addLocked(agent, task, browser)
}

func (r *Registry) addLocked(agent, task, browser string) Space {
	r.next++
	sp := &Space{ID: "s" + strconv.Itoa(r.next), Agent: agent, Task: task, Browser: browser, State: Working, Color: r.freeColor()}
	r.spaces[sp.ID] = sp
	r.current[agent] = sp.ID
	return *sp
}

// For returns the space an agent's tab in browser goes to: its current
// space when that is in browser, else its first space there (which
// becomes its current one), else a new one (created is true).
func (r *Registry) For(agent, browser string) (sp Space, created bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur := r.spaces[r.current[agent]]; cur != nil && cur.Browser == browser {
		return *cur, false
	}
	if there := r.listLocked(func(sp *Space) bool { return sp.Agent == agent && sp.Browser == browser }); len(there) > 0 {
		r.current[agent] = there[0].ID
		return there[0], false
	}
	return r.addLocked(agent, "", browser), true
}

// Adopt records a space rebuilt from a group found in browser.
func (r *Registry) Adopt(agent, task, browser string, group, window int, color string, st State) Space {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	sp := &Space{ID: "s" + strconv.Itoa(r.next), Agent: agent, Task: task, Browser: browser, Group: group, Window: window, Color: color, State: st}
	r.spaces[sp.ID] = sp
	if st == Person {
		r.resumed[sp.ID] = make(chan struct{})
		r.holds[sp.ID] = []Hold{{}} // held since before the service knew
	}
	if _, ok := r.current[agent]; !ok {
		r.current[agent] = sp.ID
	}
	return *sp
}

// freeColor picks the colour the fewest spaces use. r.mu is held.
func (r *Registry) freeColor() string {
	used := make(map[string]int)
	for _, sp := range r.spaces {
		used[sp.Color]++
	}
	best := Colors[0]
	for _, c := range Colors {
		if used[c] < used[best] {
			best = c
		}
	}
	return best
}

// Get returns a space by ID.
func (r *Registry) Get(id string) (Space, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sp := r.spaces[id]; sp != nil {
		return *sp, true
	}
	return Space{}, false
}

// ByGroup returns the space of a browser's tab group.
func (r *Registry) ByGroup(browser string, group int) (Space, bool) {
	if group <= 0 {
		return Space{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, sp := range r.spaces {
		if sp.Browser == browser && sp.Group == group {
			return *sp, true
		}
	}
	return Space{}, false
}

// Current returns the agent's current space.
func (r *Registry) Current(agent string) (Space, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sp := r.spaces[r.current[agent]]; sp != nil {
		return *sp, true
	}
	return Space{}, false
}

// Use makes a space the agent's current one.
func (r *Registry) Use(agent, id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.current[agent] = id
}

// List returns the spaces (all of them when agent is ""), by ID.
func (r *Registry) List(agent string) []Space {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.listLocked(func(sp *Space) bool { return agent == "" || sp.Agent == agent })
}

func (r *Registry) listLocked(keep func(*Space) bool) []Space {
	out := []Space{}
	for _, sp := range r.spaces {
		if keep(sp) {
			out = append(out, *sp)
		}
	}
	slices.SortFunc(out, func(a, b Space) int {
		an, _ := strconv.Atoi(strings.TrimPrefix(a.ID, "s"))
		bn, _ := strconv.Atoi(strings.TrimPrefix(b.ID, "s"))
		return an - bn
	})
	return out
}

// Update changes a space with fn, under the registry's lock, and returns
// it as changed; ok is false when there is no such space.
func (r *Registry) Update(id string, fn func(*Space)) (Space, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.spaces[id]
	if sp == nil {
		return Space{}, false
	}
	fn(sp)
	return *sp, true
}

// Grouped records that tabs put into space id are in group now, the
// last of them, lastTab, its default tab.
func (r *Registry) Grouped(id string, group, lastTab int) (Space, bool) {
	return r.Update(id, func(x *Space) { x.Group, x.LastTab = group, lastTab })
}

// Touch records tab as the tab the agent of space id used last (its
// default tab), and wakes the space if it is idle: woke says so.
func (r *Registry) Touch(id string, tab int) (sp Space, woke bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.spaces[id]
	if p == nil {
		return Space{}, false
	}
	p.LastTab = tab
	return r.wakeLocked(p)
}

// Wake moves space id from idle back to working (its agent is back):
// woke says whether it was idle. The space is returned as it is now.
func (r *Registry) Wake(id string) (sp Space, woke bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.spaces[id]
	if p == nil {
		return Space{}, false
	}
	return r.wakeLocked(p)
}

func (r *Registry) wakeLocked(p *Space) (Space, bool) {
	if p.State != Idle {
		return *p, false
	}
	r.setStateLocked(p, Working)
	return *p, true
}

// HandBack ends the person's control of space id: it is working again,
// or idle when its agent is not connected (present false).
func (r *Registry) HandBack(id string, present bool) (Space, bool) {
	if !present {
		return r.SetState(id, Idle)
	}
	return r.SetState(id, Working)
}

// Held reports whether group of browser is a space the person has taken
// over.
func (r *Registry) Held(browser string, group int) bool {
	sp, ok := r.ByGroup(browser, group)
	return ok && sp.State == Person
}

// Abandon removes space id if it never got a tab (it has no group: its
// first tab did not open), and makes prev its agent's current space
// again unless prev is "". It reports whether it removed the space.
func (r *Registry) Abandon(id, prev string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.spaces[id]
	if sp == nil || sp.Group != 0 {
		return false
	}
	r.removeLocked(sp)
	if prev != "" {
		r.current[sp.Agent] = prev
	}
	return true
}

// Remove forgets a space; whoever waits for it to be handed back stops
// waiting.
func (r *Registry) Remove(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sp := r.spaces[id]; sp != nil {
		r.removeLocked(sp)
	}
}

func (r *Registry) removeLocked(sp *Space) {
	id := sp.ID
	delete(r.spaces, id)
	if r.current[sp.Agent] == id {
		delete(r.current, sp.Agent)
	}
	if ch := r.resumed[id]; ch != nil {
		close(ch)
		delete(r.resumed, id)
	}
	delete(r.holds, id)
}

// SetState moves a space to st. Taking it over (Person) makes Resumed
// wait; any other state releases the waiters.
func (r *Registry) SetState(id string, st State) (Space, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.spaces[id]
	if sp == nil {
		return Space{}, false
	}
	r.setStateLocked(sp, st)
	return *sp, true
}

func (r *Registry) setStateLocked(sp *Space, st State) {
	was := sp.State
	sp.State = st
	ch := r.resumed[sp.ID]
	switch {
	case st == Person && ch == nil:
		r.resumed[sp.ID] = make(chan struct{})
	case st != Person && ch != nil:
		close(ch)
		delete(r.resumed, sp.ID)
	}
	holds := r.holds[sp.ID]
	switch {
	case st == Person && was != Person:
		if len(holds) >= maxHolds {
			holds = slices.Delete(holds, 0, len(holds)-maxHolds+1)
		}
		r.holds[sp.ID] = append(holds, Hold{From: time.Now()})
	case st != Person && was == Person && len(holds) > 0:
		holds[len(holds)-1].To = time.Now()
	}
}

// HeldAt reports whether group of browser is a space the person holds
// now, or held at time at (a console message's time: one the page logged
// while the person had the space, which Chrome replays when egohost's
// debugger attaches again after it was handed back, is theirs).
func (r *Registry) HeldAt(browser string, group int, at time.Time) bool {
	sp, ok := r.ByGroup(browser, group)
	if !ok {
		return false
	}
	if sp.State == Person {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, h := range r.holds[sp.ID] {
		if !at.Before(h.From) && (h.To.IsZero() || at.Before(h.To)) {
			return true
		}
	}
	return false
}

// Resumed returns a channel closed when the person hands the space back
// (or it is removed); nil when the agent is in control.
func (r *Registry) Resumed(id string) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ch := r.resumed[id]; ch != nil {
		return ch
	}
	return nil
}

// Group is a browser's tab group, as the browser lists it.
type Group struct {
	ID     int
	Window int
	Title  string
	Color  string
}

// Reconcile brings the spaces of browser in line with the tab groups it
// has now (after a relay or service restart): a known space whose group
// is gone has no tab; a group titled by Title that no space knows (the
// saved registry was lost) becomes a space again. It returns the spaces
// rebuilt.
func (r *Registry) Reconcile(browser string, groups []Group) []Space {
	live := make(map[int]bool)
	for _, g := range groups {
		live[g.ID] = true
	}
	for _, sp := range r.List("") {
		if sp.Browser == browser && sp.Group != 0 && !live[sp.Group] {
			r.Update(sp.ID, func(x *Space) { x.Group = 0 })
		}
	}
	var adopted []Space
	for _, g := range groups {
		if _, ok := r.ByGroup(browser, g.ID); ok {
			continue
		}
		agent, task, st, ok := ParseTitle(g.Title)
		if !ok {
			continue
		}
		adopted = append(adopted, r.Adopt(agent, task, browser, g.ID, g.Window, g.Color, st))
	}
	return adopted
}

// MarkIdle marks idle the working spaces of the agents gone (Presence.Gone)
// and returns them.
func (r *Registry) MarkIdle(gone map[string]bool) []Space {
	var idle []Space
	if len(gone) == 0 {
		return nil
	}
	for _, sp := range r.List("") {
		if !gone[sp.Agent] || sp.State != Working {
			continue
		}
		sp, _ = r.SetState(sp.ID, Idle)
		idle = append(idle, sp)
	}
	return idle
}
