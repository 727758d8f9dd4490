package spaces

import "testing"

func TestCheck(t *testing.T) {
	own := Space{ID: "s1", Agent: "alice", State: Working}
	ownHeld := Space{ID: "s1", Agent: "alice", State: Person}
	bobs := Space{ID: "s2", Agent: "bob", State: Working}
	bobsHeld := Space{ID: "s2", Agent: "bob", State: Person}
	alice := Caller{Name: "alice"}
	for _, tc := range []struct {
		name    string
		c       Caller
		sp      Space
		inSpace bool
		want    Reach
	}{
		{"its own space", alice, own, true, Own},
		{"its own space, idle", alice, Space{Agent: "alice", State: Idle}, true, Own},
		{"its own space, taken over", alice, ownHeld, true, TakenOver},
		{"its own space taken over, seeing its own only", Caller{Name: "alice", OwnOnly: true}, ownHeld, true, TakenOver},
		{"another's space", alice, bobs, true, OthersSpace},
		{"another's space, taken over", alice, bobsHeld, true, TakenOver},
		{"another's space, seeing its own only", Caller{Name: "alice", OwnOnly: true}, bobs, true, UnnamedSpace},
		{"another's space taken over, seeing its own only", Caller{Name: "alice", OwnOnly: true}, bobsHeld, true, UnnamedSpace},
		{"another's space, all tabs", Caller{Name: "alice", AllTabs: true}, bobs, true, Granted},
		{"another's space taken over, all tabs", Caller{Name: "alice", AllTabs: true}, bobsHeld, true, TakenOver},
		{"the person's tab", alice, Space{}, false, PersonsTab},
		{"the person's tab, seeing its own only", Caller{Name: "alice", OwnOnly: true}, Space{}, false, PersonsTab},
		{"the person's tab, all tabs", Caller{Name: "alice", AllTabs: true}, Space{}, false, Granted},
	} {
		if got := Check(tc.c, tc.sp, tc.inSpace); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestDefaultTab(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lastTab int
		tabs    []int
		want    int
		wantOK  bool
	}{
		{"the tab used last", 5, []int{4, 5, 6}, 5, true},
		{"the tab used last is gone", 9, []int{4, 5, 6}, 6, true},
		{"none used yet", 0, []int{4}, 4, true},
		{"no tab left", 5, nil, 0, false},
	} {
		got, ok := Space{LastTab: tc.lastTab}.DefaultTab(tc.tabs)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("%s: got %d, %v, want %d, %v", tc.name, got, ok, tc.want, tc.wantOK)
		}
	}
}
