package spaces

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"alice", true},
		{"claude-code.2_b", true},
		{"A1", true},
		{"", false},
		{"-lead", false},
		{"has space", false},
		{"colon:name", false},
		{"émile", false},
		{strings.Repeat("a", MaxName), true},
		{strings.Repeat("a", MaxName+1), false},
	} {
		err := CheckName(tc.name)
		if got := err == nil; got != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrName) {
			t.Errorf("CheckName(%q) = %v, want ErrName", tc.name, err)
		}
	}
}

func TestCheckTask(t *testing.T) {
	for _, tc := range []struct {
		task string
		ok   bool
	}{
		{"", true},
		{"book a flight", true},
		{string(make([]byte, MaxTask)), true},
		{string(make([]byte, MaxTask+1)), false},
		{"two\nlines", false},
		{"a\rb", false},
	} {
		if err := CheckTask(tc.task); (err == nil) != tc.ok {
			t.Errorf("CheckTask(%q) = %v, want ok %v", tc.task, err, tc.ok)
		}
	}
}

func TestTitleRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		sp   Space
		want string
	}{
		{"working without task", Space{Agent: "alice", State: Working}, "🤖 alice"},
		{"working with task", Space{Agent: "bob", Task: "book: a flight", State: Working}, "🤖 bob: book: a flight"},
		{"taken over", Space{Agent: "carol", Task: "x", State: Person}, "✋ carol: x"},
		{"idle", Space{Agent: "dave", State: Idle}, "💤 dave"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.sp.Title(); got != tc.want {
				t.Fatalf("Title() = %q, want %q", got, tc.want)
			}
			agent, task, st, ok := ParseTitle(tc.want)
			if !ok || agent != tc.sp.Agent || task != tc.sp.Task || st != tc.sp.State {
				t.Fatalf("ParseTitle(%q) = %q, %q, %q, %v; want %q, %q, %q", tc.want, agent, task, st, ok, tc.sp.Agent, tc.sp.Task, tc.sp.State)
			}
		})
	}
}

func TestParseTitleRefusesOthers(t *testing.T) {
	for _, title := range []string{"", "work", "alice", "🤖", "🤖 bad name", "✅ alice: done", Space{Agent: "alice", State: Working}.DoneTitle()} {
		if a, _, _, ok := ParseTitle(title); ok {
			t.Errorf("ParseTitle(%q) = agent %q, want not ours", title, a)
		}
	}
}

func TestRegistry(t *testing.T) {
	r := New(Saved{})
	a1 := r.Add("alice", "one", "b1")
	b1 := r.Add("bob", "", "b1")
	a2 := r.Add("alice", "two", "b1")
	if a1.Color == b1.Color || b1.Color == a2.Color {
		t.Fatalf("colours %s %s %s: want each space its own", a1.Color, b1.Color, a2.Color)
	}
	if cur, _ := r.Current("alice"); cur.ID != a2.ID {
		t.Fatalf("alice's current space is %s, want the newest %s", cur.ID, a2.ID)
	}
	r.Update(a1.ID, func(sp *Space) { sp.Group = 7 })
	if sp, ok := r.ByGroup("b1", 7); !ok || sp.ID != a1.ID {
		t.Fatalf("ByGroup(b1, 7) = %v, %v; want %s", sp.ID, ok, a1.ID)
	}
	if _, ok := r.ByGroup("b2", 7); ok {
		t.Fatal("ByGroup found a group of another browser")
	}
	if got := len(r.List("alice")); got != 2 {
		t.Fatalf("alice has %d spaces, want 2", got)
	}

	// Take over and hand back release the waiters.
	if r.Resumed(a1.ID) != nil {
		t.Fatal("a working space has a resume channel")
	}
	r.SetState(a1.ID, Person)
	ch := r.Resumed(a1.ID)
	select {
	case <-ch:
		t.Fatal("resumed before the hand back")
	default:
	}
	r.SetState(a1.ID, Working)
	<-ch

	// What was saved comes back.
	r.SetState(b1.ID, Person)
	back := New(r.Save())
	if diff := cmp.Diff(r.List(""), back.List("")); diff != "" {
		t.Fatalf("reloaded spaces differ (-before +after):\n%s", diff)
	}
	if back.Resumed(b1.ID) == nil {
		t.Fatal("a reloaded taken-over space has no resume channel")
	}
	if cur, _ := back.Current("alice"); cur.ID != a2.ID {
		t.Fatalf("reloaded current space %s, want %s", cur.ID, a2.ID)
	}
	if next := back.Add("erin", "", "b1"); next.ID == a1.ID || next.ID == b1.ID || next.ID == a2.ID {
		t.Fatalf("reloaded registry reused ID %s", next.ID)
	}

	r.Remove(b1.ID)
	if _, ok := r.Get(b1.ID); ok {
		t.Fatal("removed space still there")
	}
}

func TestNameFrom(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"claude-code", "claude-code"},
		{"Claude Code", "Claude-Code"},
		{"  cursor (vscode)  ", "cursor--vscode-"},
		{"émile", "mile"},
		{"", "mcp"},
		{"!!!", "mcp"},
		{strings.Repeat("x", 40), strings.Repeat("x", MaxName)},
	} {
		if got := NameFrom(tc.in, "mcp"); got != tc.want {
			t.Errorf("NameFrom(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// An agent is gone once its last connection has been closed for the
// grace, and reported gone once; one with a connection open never is.
func TestPresence(t *testing.T) {
	p := NewPresence()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	p.Join("a")
	p.Join("a")
	p.Join("b")
	p.Leave("a", t0)
	p.Leave("b", t0)
	if !p.Connected("a") || p.Connected("b") {
		t.Errorf("got connected a %v, b %v, want true, false", p.Connected("a"), p.Connected("b"))
	}
	if got := p.Gone(t0.Add(time.Second), 3*time.Second); len(got) != 0 {
		t.Errorf("within the grace: got gone %v, want none", got)
	}
	if got := p.Gone(t0.Add(3*time.Second), 3*time.Second); len(got) != 1 || !got["b"] {
		t.Errorf("after the grace: got gone %v, want b", got)
	}
	if got := p.Gone(t0.Add(time.Minute), 3*time.Second); len(got) != 0 {
		t.Errorf("again: got gone %v, want none (b was reported)", got)
	}
	p.Leave("a", t0)
	p.Join("a") // back before the grace ended
	if got := p.Gone(t0.Add(time.Minute), 3*time.Second); len(got) != 0 {
		t.Errorf("a came back: got gone %v, want none", got)
	}
}

// Reconcile: a space whose group is gone loses it; a group titled by
// egohost that no space knows becomes one; the person's groups and the
// other browser's spaces are left alone. MarkIdle idles the working
// spaces of the agents gone.
func TestReconcileAndMarkIdle(t *testing.T) {
	r := New(Saved{})
	kept := r.Add("a", "", "b1")
	kept, _ = r.Update(kept.ID, func(x *Space) { x.Group = 1 })
	lost := r.Add("a", "", "b1")
	lost, _ = r.Update(lost.ID, func(x *Space) { x.Group = 2 })
	other := r.Add("c", "", "b2")
	other, _ = r.Update(other.ID, func(x *Space) { x.Group = 2 })
	adopted := r.Reconcile("b1", []Group{
		{ID: 1, Title: kept.Title()},
		{ID: 3, Window: 9, Title: "✋ d: shop", Color: "red"},
		{ID: 4, Title: "my own group"},
	})
	if len(adopted) != 1 || adopted[0].Agent != "d" || adopted[0].Task != "shop" || adopted[0].Group != 3 || adopted[0].Window != 9 || adopted[0].State != Person {
		t.Errorf("got adopted %+v, want d's space of group 3 taken over by the person", adopted)
	}
	for id, want := range map[string]int{kept.ID: 1, lost.ID: 0, other.ID: 2} {
		if sp, _ := r.Get(id); sp.Group != want {
			t.Errorf("space %s: got group %d, want %d", id, sp.Group, want)
		}
	}
	idle := r.MarkIdle(map[string]bool{"a": true, "d": true})
	if len(idle) != 2 {
		t.Errorf("got idle %+v, want a's two working spaces (d's is the person's)", idle)
	}
	for _, sp := range idle {
		if sp.Agent != "a" || sp.State != Idle {
			t.Errorf("got %+v idle, want a's spaces only, idle", sp)
		}
	}
}

// For: an agent's tab goes to its current space in that browser, else
// to its first space there (made current), else to a new one.
func TestFor(t *testing.T) {
	r := New(Saved{})
	a1 := r.Add("a", "", "b1")
	a2 := r.Add("a", "", "b2")
	if sp, created := r.For("a", "b2"); sp.ID != a2.ID || created {
		t.Errorf("current space's browser: got %s, created %v, want %s", sp.ID, created, a2.ID)
	}
	if sp, created := r.For("a", "b1"); sp.ID != a1.ID || created {
		t.Errorf("another browser with a space: got %s, created %v, want %s", sp.ID, created, a1.ID)
	}
	if cur, _ := r.Current("a"); cur.ID != a1.ID {
		t.Errorf("got current %s, want %s (the space For chose)", cur.ID, a1.ID)
	}
	sp, created := r.For("a", "b3")
	if !created || sp.Browser != "b3" || sp.Agent != "a" || sp.State != Working {
		t.Errorf("a browser without its space: got %+v, created %v, want a new working space of a in b3", sp, created)
	}
	if cur, _ := r.Current("a"); cur.ID != sp.ID {
		t.Errorf("got current %s, want the new %s", cur.ID, sp.ID)
	}
}

// Touch records the tab and wakes an idle space only; Wake wakes an
// idle space only; HandBack idles a space whose agent is away; the
// waiters are released either way.
func TestTouchWakeHandBack(t *testing.T) {
	r := New(Saved{})
	sp := r.Add("a", "", "b1")
	if got, woke := r.Touch(sp.ID, 4); woke || got.LastTab != 4 || got.State != Working {
		t.Errorf("touch a working space: got %+v, woke %v, want last tab 4, working, not woken", got, woke)
	}
	r.SetState(sp.ID, Idle)
	if got, woke := r.Touch(sp.ID, 5); !woke || got.LastTab != 5 || got.State != Working {
		t.Errorf("touch an idle space: got %+v, woke %v, want last tab 5, working, woken", got, woke)
	}
	r.SetState(sp.ID, Person)
	if got, woke := r.Touch(sp.ID, 6); woke || got.State != Person {
		t.Errorf("touch a taken-over space: got %+v, woke %v, want the person's still", got, woke)
	}
	if got, woke := r.Wake(sp.ID); woke || got.State != Person {
		t.Errorf("wake a taken-over space: got %+v, woke %v, want the person's still", got, woke)
	}
	if _, woke := r.Touch("s99", 1); woke {
		t.Error("touch of no space woke it")
	}

	for _, tc := range []struct {
		present bool
		want    State
	}{{true, Working}, {false, Idle}} {
		r.SetState(sp.ID, Person)
		ch := r.Resumed(sp.ID)
		if got, _ := r.HandBack(sp.ID, tc.present); got.State != tc.want {
			t.Errorf("hand back, agent present %v: got %s, want %s", tc.present, got.State, tc.want)
		}
		<-ch
	}
	if got, woke := r.Wake(sp.ID); !woke || got.State != Working {
		t.Errorf("wake an idle space: got %+v, woke %v, want working, woken", got, woke)
	}
	if got, _ := r.Grouped(sp.ID, 3, 7); got.Group != 3 || got.LastTab != 7 {
		t.Errorf("grouped: got group %d, last tab %d, want 3, 7", got.Group, got.LastTab)
	}
	r.SetState(sp.ID, Person)
	if !r.Held("b1", 3) || r.Held("b2", 3) || r.Held("b1", 0) {
		t.Errorf("held: got b1/3 %v, b2/3 %v, b1/0 %v, want true, false, false", r.Held("b1", 3), r.Held("b2", 3), r.Held("b1", 0))
	}
}

// Abandon drops a space whose first tab did not open, and gives its
// agent the space it had before; a space with a group stays.
func TestAbandon(t *testing.T) {
	r := New(Saved{})
	prev := r.Add("a", "", "b1")
	r.Grouped(prev.ID, 1, 10)
	grouped := r.Add("a", "", "b1")
	r.Grouped(grouped.ID, 2, 20)
	if r.Abandon(grouped.ID, prev.ID) {
		t.Error("abandoned a space with a group")
	}
	empty := r.Add("a", "", "b1")
	if !r.Abandon(empty.ID, prev.ID) {
		t.Fatal("did not abandon a space without a tab")
	}
	if _, ok := r.Get(empty.ID); ok {
		t.Error("the abandoned space is still there")
	}
	if cur, _ := r.Current("a"); cur.ID != prev.ID {
		t.Errorf("got current %s, want the previous %s", cur.ID, prev.ID)
	}
	first := r.Add("b", "", "b1")
	r.Abandon(first.ID, "")
	if cur, ok := r.Current("b"); ok {
		t.Errorf("an agent's only space abandoned: got current %s, want none", cur.ID)
	}
}

// HeldAt: a space held now is held at any time; once handed back, a time
// within one of the person's holds is theirs, a time before or after is
// not; a space found held at the start was held since before; the oldest
// holds go past the bound; a removed space's holds go with it.
func TestHeldAt(t *testing.T) {
	r := New(Saved{})
	sp := r.Add("a", "", "b1")
	r.Grouped(sp.ID, 3, 7)
	before := time.Now()
	time.Sleep(2 * time.Millisecond)
	if r.HeldAt("b1", 3, before) {
		t.Error("a space never taken over: held at a time")
	}
	r.SetState(sp.ID, Person)
	if !r.HeldAt("b1", 3, before) || !r.HeldAt("b1", 3, time.Now()) {
		t.Error("a space the person has now: not held at every time")
	}
	time.Sleep(2 * time.Millisecond)
	during := time.Now()
	time.Sleep(2 * time.Millisecond)
	r.HandBack(sp.ID, true)
	time.Sleep(2 * time.Millisecond)
	after := time.Now()
	for _, tc := range []struct {
		name string
		at   time.Time
		want bool
	}{{"before the take over", before, false}, {"during the hold", during, true}, {"after the hand back", after, false}} {
		if got := r.HeldAt("b1", 3, tc.at); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	if r.HeldAt("b2", 3, during) || r.HeldAt("b1", 4, during) {
		t.Error("another browser's or group's time is held")
	}
	// Saved (spaces.json) and read back by a new service: the same.
	raw, err := json.Marshal(r.Save())
	if err != nil {
		t.Fatal(err)
	}
	var saved Saved
	if err := json.Unmarshal(raw, &saved); err != nil {
		t.Fatal(err)
	}
	if again := New(saved); !again.HeldAt("b1", 3, during) || again.HeldAt("b1", 3, before) || again.HeldAt("b1", 3, after) {
		t.Errorf("the holds saved and read back: held before %v, during %v, after %v; want false, true, false (%s)",
			again.HeldAt("b1", 3, before), again.HeldAt("b1", 3, during), again.HeldAt("b1", 3, after), raw)
	}
	for range maxHolds {
		r.SetState(sp.ID, Person)
		r.SetState(sp.ID, Working)
	}
	if r.HeldAt("b1", 3, during) {
		t.Errorf("the first hold is still remembered after %d more", maxHolds)
	}
	if n := len(r.holds[sp.ID]); n != maxHolds {
		t.Errorf("holds remembered: got %d, want %d", n, maxHolds)
	}
	tooMany := r.Save()
	tooMany.Holds[sp.ID] = append(tooMany.Holds[sp.ID], tooMany.Holds[sp.ID]...)
	if n := len(New(tooMany).holds[sp.ID]); n != maxHolds {
		t.Errorf("holds read back from a file with %d: got %d, want %d", len(tooMany.Holds[sp.ID]), n, maxHolds)
	}
	r.Remove(sp.ID)
	if _, ok := r.holds[sp.ID]; ok {
		t.Error("a removed space's holds are remembered")
	}

	held := New(Saved{Next: 1, Spaces: []Space{{ID: "s1", Agent: "a", Browser: "b1", Group: 5, State: Person}}})
	held.HandBack("s1", true)
	if !held.HeldAt("b1", 5, before) || held.HeldAt("b1", 5, time.Now().Add(time.Second)) {
		t.Error("a space held at the start: want held at any time before its hand back, not after")
	}
	since := time.Now().Add(-time.Hour)
	open := New(Saved{Next: 1, Spaces: []Space{{ID: "s1", Agent: "a", Browser: "b1", Group: 5, State: Person}}, Holds: map[string][]Hold{"s1": {{From: since}}}})
	open.HandBack("s1", true)
	if open.HeldAt("b1", 5, since.Add(-time.Minute)) || !open.HeldAt("b1", 5, since.Add(time.Minute)) {
		t.Error("a space held at the start since a saved time: want held from that time, not before")
	}
	adopted := New(Saved{})
	adopted.Adopt("a", "", "b1", 6, 0, "blue", Person)
	adopted.HandBack("s1", true)
	if !adopted.HeldAt("b1", 6, before) {
		t.Error("a space adopted held: not held before its hand back")
	}
}
