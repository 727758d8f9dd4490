package audit

import (
	"fmt"
	"testing"
	"time"
)

func TestRecentCallsKeepTheLastPerAgent(t *testing.T) {
	r := NewRecent(3)
	for i := range 5 {
		r.Add(Entry{Agent: "a", Tab: i})
		r.Add(Entry{Agent: "b", Tab: 10 + i})
	}
	got := r.Last(2)
	if len(got["a"]) != 2 || got["a"][0].Tab != 3 || got["a"][1].Tab != 4 || len(got["b"]) != 2 || got["b"][1].Tab != 14 {
		t.Errorf("Last(2): got %+v, want a's calls 3,4 and b's 13,14", got)
	}
	if all := r.Tail(3); len(all) != 3 || all[0].Tab != 13 || all[2].Tab != 14 {
		t.Errorf("Tail(3): got %+v, want b13 a4 b14", all)
	}
}

// The names it keeps calls of are bounded: a flood of names (pairing
// requests under ever new names) forgets the name idle longest.
func TestRecentCallsBoundTheNames(t *testing.T) {
	r := NewRecent(2)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	r.Add(Entry{Agent: "keep", Time: t0.Add(time.Hour)})
	for i := range 2 * maxRecentAgents {
		r.Add(Entry{Agent: fmt.Sprintf("n%d", i), Time: t0.Add(time.Duration(i) * time.Second)})
	}
	got := r.Last(2)
	if len(got) != maxRecentAgents {
		t.Errorf("kept the calls of %d names, want %d", len(got), maxRecentAgents)
	}
	if _, ok := got["keep"]; !ok {
		t.Error("the name with the latest call was forgotten")
	}
}
