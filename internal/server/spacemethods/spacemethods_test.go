package spacemethods

import (
	"context"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/protocol"
	"github.com/google/go-cmp/cmp"
)

// grouped adds a space of agent in browser b1 whose group holds tabs.
func grouped(svc *fakeService, agent string, group int, tabs ...int) spaces.Space {
	sp := svc.reg.Add(agent, "", "b1")
	b, _ := svc.browser("b1")
	for _, t := range tabs {
		b.groups[t] = group
	}
	sp, _ = svc.reg.Grouped(sp.ID, group, tabs[len(tabs)-1])
	return sp
}

// Who may call what, and what a call that names too little is told: the
// decisions each handler makes before it changes anything.
func TestRefusals(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		caller *fakeCall
		call   func(m *Methods, c Call) (any, error)
		want   protocol.Code
	}{
		{"the person makes no space", &fakeCall{}, func(m *Methods, c Call) (any, error) {
			return m.NewSpace(ctx, c, protocol.SpacesNewParams{})
		}, protocol.CodeInvalidRequest},
		{"the person uses no space", &fakeCall{}, func(m *Methods, c Call) (any, error) {
			return m.Use(ctx, c, protocol.SpaceParams{Space: "s1"})
		}, protocol.CodeInvalidRequest},
		{"the person claims no tab", &fakeCall{}, func(m *Methods, c Call) (any, error) {
			return m.Claim(ctx, c, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 3}})
		}, protocol.CodeInvalidRequest},
		{"an agent cannot take over", &fakeCall{agent: "alice"}, func(m *Methods, c Call) (any, error) {
			return m.TakeOver(ctx, c, protocol.SpaceParams{Space: "s1"})
		}, protocol.CodeInvalidRequest},
		{"an agent cannot hand back", &fakeCall{agent: "alice"}, func(m *Methods, c Call) (any, error) {
			return m.HandBack(ctx, c, protocol.SpaceParams{Space: "s1"})
		}, protocol.CodeInvalidRequest},
		{"a take over names a space", &fakeCall{}, func(m *Methods, c Call) (any, error) {
			return m.TakeOver(ctx, c, protocol.SpaceParams{})
		}, protocol.CodeInvalidParams},
		{"a take over of no space", &fakeCall{}, func(m *Methods, c Call) (any, error) {
			return m.TakeOver(ctx, c, protocol.SpaceParams{Space: "s9"})
		}, protocol.CodeInvalidParams},
		{"an agent without a space waits for none", &fakeCall{agent: "alice"}, func(m *Methods, c Call) (any, error) {
			return m.WaitForControl(ctx, c, protocol.SpacesWaitParams{})
		}, protocol.CodeNotInSpace},
		{"an agent without a space completes none", &fakeCall{agent: "alice"}, func(m *Methods, c Call) (any, error) {
			return m.Complete(ctx, c, protocol.SpacesCompleteParams{})
		}, protocol.CodeNotInSpace},
		{"the person completes a named space only", &fakeCall{}, func(m *Methods, c Call) (any, error) {
			return m.Complete(ctx, c, protocol.SpacesCompleteParams{})
		}, protocol.CodeInvalidParams},
		{"a task of two lines", &fakeCall{agent: "alice"}, func(m *Methods, c Call) (any, error) {
			return m.NewSpace(ctx, c, protocol.SpacesNewParams{Task: "two\nlines"})
		}, protocol.CodeInvalidParams},
		{"use names a space", &fakeCall{agent: "alice"}, func(m *Methods, c Call) (any, error) {
			return m.Use(ctx, c, protocol.SpaceParams{})
		}, protocol.CodeInvalidParams},
		{"another agent's space", &fakeCall{agent: "alice"}, func(m *Methods, c Call) (any, error) {
			return m.Use(ctx, c, protocol.SpaceParams{Space: "s1"}) // bob's
		}, protocol.CodeNotInSpace},
		{"another agent's space, to one that sees its own only", &fakeCall{agent: "alice", ownOnly: true, paired: "alice"}, func(m *Methods, c Call) (any, error) {
			return m.Use(ctx, c, protocol.SpaceParams{Space: "s1"})
		}, protocol.CodeInvalidParams},
		{"a claim without all-tabs", &fakeCall{agent: "alice", ownOnly: true, paired: "alice"}, func(m *Methods, c Call) (any, error) {
			return m.Claim(ctx, c, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 3}})
		}, protocol.CodeScopeDenied},
		{"a claim names a tab", &fakeCall{agent: "alice"}, func(m *Methods, c Call) (any, error) {
			return m.Claim(ctx, c, protocol.SpacesClaimParams{})
		}, protocol.CodeInvalidParams},
		{"a negative wait", &fakeCall{agent: "bob"}, func(m *Methods, c Call) (any, error) {
			return m.WaitForControl(ctx, c, protocol.SpacesWaitParams{TimeoutMs: -1})
		}, protocol.CodeInvalidParams},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, svc, _ := fixture("")
			grouped(svc, "bob", 5, 50) // s1
			tc.caller.svc, tc.caller.browser = svc, "b1"
			res, err := tc.call(m, tc.caller)
			if got := codeOf(t, err); got != tc.want {
				t.Fatalf("got code %d (%v, result %+v), want %d", got, err, res, tc.want)
			}
			if svc.saves != 0 {
				t.Errorf("a refused call saved the registry %d times, want none", svc.saves)
			}
		})
	}
}

func TestHello(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		caller   *fakeCall
		agent    string
		want     protocol.Code
		wantName string
	}{
		{"names an unnamed connection", &fakeCall{}, "alice", 0, "alice"},
		{"its own name again", &fakeCall{agent: "alice"}, "alice", 0, "alice"},
		{"a name that is not one", &fakeCall{}, "has space", protocol.CodeInvalidParams, ""},
		{"another name later", &fakeCall{agent: "alice"}, "bob", protocol.CodeInvalidParams, "alice"},
		{"a name its token refuses", &fakeCall{nameErr: protocol.Errorf(protocol.CodeInvalidParams, "paired as x")}, "bob", protocol.CodeInvalidParams, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _, _ := fixture("")
			res, err := m.Hello(ctx, tc.caller, protocol.HelloParams{Agent: tc.agent})
			if got := codeOf(t, err); got != tc.want {
				t.Fatalf("got code %d (%v), want %d", got, err, tc.want)
			}
			if tc.caller.agent != tc.wantName {
				t.Errorf("the connection's name: got %q, want %q", tc.caller.agent, tc.wantName)
			}
			if err == nil && res.(protocol.HelloResult).Agent != tc.agent {
				t.Errorf("got %+v, want agent %s", res, tc.agent)
			}
		})
	}

	// An agent that has a space is told its current one.
	m, svc, alice := fixture("")
	sp := grouped(svc, "alice", 5, 50, 51)
	res, err := m.Hello(ctx, alice, protocol.HelloParams{Agent: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	want := &protocol.Space{ID: sp.ID, Agent: "alice", Browser: "b1", Group: 5, Title: sp.Title(), Color: sp.Color, State: "working", LastTab: 51, Tabs: []int{50, 51}, Current: true}
	if diff := cmp.Diff(want, res.(protocol.HelloResult).Space); diff != "" {
		t.Errorf("hello's space (-want +got):\n%s", diff)
	}
}

func TestList(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		caller *fakeCall
		p      protocol.SpacesListParams
		want   []string
	}{
		{"an agent's own", &fakeCall{agent: "alice"}, protocol.SpacesListParams{}, []string{"s1"}},
		{"an agent's all", &fakeCall{agent: "alice"}, protocol.SpacesListParams{All: true}, []string{"s1", "s2"}},
		{"an agent's of another", &fakeCall{agent: "alice"}, protocol.SpacesListParams{Agent: "bob"}, []string{"s2"}},
		{"the person's all", &fakeCall{}, protocol.SpacesListParams{}, []string{"s1", "s2"}},
		{"one that sees its own only", &fakeCall{agent: "alice", ownOnly: true}, protocol.SpacesListParams{All: true, Agent: "bob"}, []string{"s1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, svc, _ := fixture("")
			grouped(svc, "alice", 5, 50)
			grouped(svc, "bob", 6, 60)
			res, err := m.List(ctx, tc.caller, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, sp := range res.(protocol.SpacesListResult).Spaces {
				got = append(got, sp.ID)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("spaces (-want +got):\n%s", diff)
			}
			if b, _ := svc.browser("b1"); b.synced != 1 {
				t.Errorf("the browser was synced %d times, want once", b.synced)
			}
		})
	}
}

// The tabs whose document ran an agent's script are the person's to know
// (Space.Scripted), with the linked tabs to close first (Space.CloseFirst),
// in every answer that shows them a space: the take over's too.
func TestScriptedTabsToThePerson(t *testing.T) {
	ctx := context.Background()
	m, svc, alice := fixture("alice")
	grouped(svc, "alice", 5, 50, 51, 52)
	b, _ := svc.browser("b1")
	b.scripted, b.closeFirst = map[int]bool{51: true, 52: true, 60: true}, []int{52, 60}
	scripted := func(res any, err error) [2][]int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		switch r := res.(type) {
		case protocol.SpacesListResult:
			return [2][]int{r.Spaces[0].Scripted, r.Spaces[0].CloseFirst}
		case protocol.SpaceResult:
			return [2][]int{r.Space.Scripted, r.Space.CloseFirst}
		}
		t.Fatalf("answer %T", res)
		return [2][]int{}
	}
	person := &fakeCall{svc: svc, browser: "b1"}
	want := [2][]int{{51}, {52, 60}}
	if got := scripted(m.List(ctx, person, protocol.SpacesListParams{})); !cmp.Equal(got, want) {
		t.Errorf("spaces.list to the person: scripted, close first %v, want %v", got, want)
	}
	if got := scripted(m.TakeOver(ctx, person, protocol.SpaceParams{Space: "s1"})); !cmp.Equal(got, want) {
		t.Errorf("spaces.takeOver: scripted, close first %v, want %v", got, want)
	}
	if got := scripted(m.List(ctx, alice, protocol.SpacesListParams{})); got[0] != nil || got[1] != nil {
		t.Errorf("spaces.list to the agent: scripted, close first %v, want none", got)
	}
}

func TestNewSpace(t *testing.T) {
	ctx := context.Background()
	m, svc, alice := fixture("alice")
	first := grouped(svc, "alice", 5, 50)
	res, err := m.NewSpace(ctx, alice, protocol.SpacesNewParams{Task: "book", URL: "https://a.example/"})
	if err != nil {
		t.Fatal(err)
	}
	got := res.(protocol.SpaceResult)
	if got.Space.Task != "book" || !got.Space.Current || got.Tab == nil || got.Tab.URL != "https://a.example/" || got.Space.LastTab != got.Tab.ID {
		t.Errorf("got %+v (tab %+v), want the new current space with its first tab", got.Space, got.Tab)
	}
	if want := []protocol.TabsOpenParams{{Browser: "b1", URL: "https://a.example/"}}; !cmp.Equal(alice.opened, want) {
		t.Errorf("tabs opened: got %+v, want %+v", alice.opened, want)
	}

	// No tab, no space: the agent's current one is the one before.
	alice.openErr = protocol.Errorf(protocol.CodeTimeout, "nobody answered")
	if _, err := m.NewSpace(ctx, alice, protocol.SpacesNewParams{Task: "shop"}); codeOf(t, err) != protocol.CodeTimeout {
		t.Fatalf("got %v, want the tab's error", err)
	}
	if cur, _ := svc.reg.Current("alice"); cur.ID != got.Space.ID {
		t.Errorf("current space after a tab that did not open: got %s, want %s", cur.ID, got.Space.ID)
	}
	if n := len(svc.reg.List("alice")); n != 2 {
		t.Errorf("alice has %d spaces, want 2 (%s and %s)", n, first.ID, got.Space.ID)
	}
}

func TestClaim(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		caller  fakeCall
		p       protocol.SpacesClaimParams
		held    bool // the person took s1 (alice's) over
		want    protocol.Code
		space   string // the space the tab is in after
		tabOpen bool   // the tab is open at all
	}{
		{"a tab of the person's into the current space", fakeCall{agent: "alice"}, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 7}}, false, 0, "s1", true},
		{"into a named space", fakeCall{agent: "alice"}, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 7}, Space: "s1"}, false, 0, "s1", true},
		{"a tab already its own", fakeCall{agent: "alice"}, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 50}}, false, 0, "s1", true},
		{"a tab of another agent's", fakeCall{agent: "alice"}, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 60}}, false, protocol.CodeNotInSpace, "s2", true},
		{"into a space the person has", fakeCall{agent: "alice"}, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 7}, Space: "s1"}, true, protocol.CodeUserInControl, "", true},
		{"into the current space the person has", fakeCall{agent: "alice"}, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 7}}, true, protocol.CodeUserInControl, "", true},
		{"a paired agent's, on an origin it may reach", fakeCall{agent: "alice", paired: "alice"}, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 7}}, false, 0, "s1", true},
		{"a paired agent's, on an origin it may not reach", fakeCall{agent: "alice", paired: "alice"}, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 8}}, false, protocol.CodeForbiddenOriginScope, "", true},
		{"a paired agent's, of a tab that is gone", fakeCall{agent: "alice", paired: "alice"}, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 9}}, false, protocol.CodeTabNotFound, "", false},
		{"into a space of another browser", fakeCall{agent: "alice"}, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 7}, Space: "s3"}, false, protocol.CodeInvalidParams, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, svc, _ := fixture("")
			svc.browsers = append(svc.browsers, &fakeBrowser{id: "b2", reg: svc.reg, groups: map[int]int{}})
			grouped(svc, "alice", 5, 50) // s1
			grouped(svc, "bob", 6, 60)   // s2
			svc.reg.Add("alice", "", "b2")
			svc.reg.Use("alice", "s1")
			if tc.held {
				svc.reg.SetState("s1", spaces.Person)
			}
			b, _ := svc.browser("b1")
			b.urls[7], b.urls[8] = "https://fine.example/", "https://bank.example/"
			svc.rules["alice"] = pairing.Rules{Deny: []string{"bank.example"}}
			c := tc.caller
			c.svc, c.browser = svc, "b1"
			res, err := m.Claim(ctx, &c, tc.p)
			if got := codeOf(t, err); got != tc.want {
				t.Fatalf("got code %d (%v), want %d", got, err, tc.want)
			}
			in, _ := svc.reg.ByGroup("b1", b.GroupOf(tc.p.Tab))
			if in.ID != tc.space {
				t.Errorf("tab %d is in space %q, want %q", tc.p.Tab, in.ID, tc.space)
			}
			if err == nil && res.(protocol.SpaceResult).Space.ID != tc.space {
				t.Errorf("got %+v, want space %s", res, tc.space)
			}
		})
	}
}

func TestEnd(t *testing.T) {
	ctx := context.Background()
	gone := protocol.Errorf(protocol.CodeTabNotFound, "closed already")
	for _, tc := range []struct {
		name     string
		caller   string
		keep     bool
		held     bool
		failOp   map[string]error
		scripted map[int]bool
		close    []int // the tabs linked to them to close first
		want     protocol.Code
		ops      []extwire.Op
		res      *protocol.SpacesCompleteResult
		removed  bool
		ended    [][]int // the tabs whose agents' debugger sessions end
	}{
		{"closes its tabs", "alice", false, false, nil, nil, nil, 0,
			[]extwire.Op{extwire.TabsClose{TabID: 50}, extwire.TabsClose{TabID: 51}},
			&protocol.SpacesCompleteResult{Space: "s1", Closed: []int{50, 51}, Kept: []int{}}, true, nil},
		{"a tab closed already", "alice", false, false, map[string]error{"tabs.close {TabID:50}": gone}, nil, nil, 0,
			[]extwire.Op{extwire.TabsClose{TabID: 50}, extwire.TabsClose{TabID: 51}},
			&protocol.SpacesCompleteResult{Space: "s1", Closed: []int{50, 51}, Kept: []int{}}, true, nil},
		{"a tab that would not close", "alice", false, false, map[string]error{"tabs.close {TabID:51}": protocol.Errorf(protocol.CodeTimeout, "slow")}, nil, nil, protocol.CodeTimeout,
			[]extwire.Op{extwire.TabsClose{TabID: 50}, extwire.TabsClose{TabID: 51}}, nil, false, nil},
		{"keeps its tabs for the person", "alice", true, false, nil, nil, nil, 0,
			[]extwire.Op{extwire.GroupsUpdate{GroupID: 5, Title: "✅ alice"}},
			&protocol.SpacesCompleteResult{Space: "s1", Closed: []int{}, Kept: []int{50, 51}}, true, [][]int{{50, 51}}},
		{"keeps a tab that ran the agent's script: the title says to reload", "alice", true, false, nil, map[int]bool{51: true}, nil, 0,
			[]extwire.Op{extwire.GroupsUpdate{GroupID: 5, Title: "✅ alice ⚠ reload before typing"}},
			&protocol.SpacesCompleteResult{Space: "s1", Closed: []int{}, Kept: []int{50, 51}, Scripted: []int{51}}, true, [][]int{{50, 51}}},
		{"keeps a tab linked to one that ran the agent's script, and the person's own tab: the agent is told of its own", "alice", true, false, nil, map[int]bool{51: true}, []int{50, 60}, 0,
			[]extwire.Op{extwire.GroupsUpdate{GroupID: 5, Title: "✅ alice ⚠ close linked tabs, reload before typing"}},
			&protocol.SpacesCompleteResult{Space: "s1", Closed: []int{}, Kept: []int{50, 51}, Scripted: []int{51}, CloseFirst: []int{50}}, true, [][]int{{50, 51}}},
		{"not while the person has it", "alice", false, true, nil, nil, nil, protocol.CodeUserInControl, nil, nil, false, nil},
		{"the person ends it while they have it", "", false, true, nil, nil, nil, 0,
			[]extwire.Op{extwire.TabsClose{TabID: 50}, extwire.TabsClose{TabID: 51}},
			&protocol.SpacesCompleteResult{Space: "s1", Closed: []int{50, 51}, Kept: []int{}}, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, svc, c := fixture(tc.caller)
			grouped(svc, "alice", 5, 50, 51)
			if tc.held {
				svc.reg.SetState("s1", spaces.Person)
			}
			b, _ := svc.browser("b1")
			b.failOp, b.scripted, b.closeFirst = tc.failOp, tc.scripted, tc.close
			res, err := m.Complete(ctx, c, protocol.SpacesCompleteParams{Space: "s1", Keep: tc.keep})
			if got := codeOf(t, err); got != tc.want {
				t.Fatalf("got code %d (%v), want %d", got, err, tc.want)
			}
			if diff := cmp.Diff(tc.ops, b.ops); diff != "" {
				t.Errorf("ops (-want +got):\n%s", diff)
			}
			if tc.res != nil {
				if diff := cmp.Diff(*tc.res, res); diff != "" {
					t.Errorf("result (-want +got):\n%s", diff)
				}
			}
			if _, ok := svc.reg.Get("s1"); ok == tc.removed {
				t.Errorf("space s1 still there: %t, want %t", ok, !tc.removed)
			}
			if diff := cmp.Diff(tc.ended, b.ended); diff != "" {
				t.Errorf("tabs whose agents' sessions ended (-want +got):\n%s", diff)
			}
		})
	}
}

// A revoked agent's spaces end, their tabs kept for the person; one whose
// group cannot be marked done ends all the same, and one in a browser that
// is away too.
func TestEndSpacesOf(t *testing.T) {
	m, svc, person := fixture("")
	grouped(svc, "alice", 5, 50)
	grouped(svc, "alice", 6, 60)
	away := svc.reg.Add("alice", "", "b9")
	grouped(svc, "bob", 7, 70)
	b, _ := svc.browser("b1")
	b.failOp = map[string]error{"groups.update {GroupID:5 Title:✅ alice Color:}": protocol.Errorf(protocol.CodeTimeout, "slow")}
	m.EndSpacesOf(context.Background(), person, "alice")
	if left := svc.reg.List(""); len(left) != 1 || left[0].Agent != "bob" {
		t.Errorf("spaces left: got %+v, want bob's only (%s too ended)", left, away.ID)
	}
	m.EndSpacesOf(context.Background(), person, "")
	if left := svc.reg.List(""); len(left) != 1 {
		t.Errorf("after ending the spaces of no name: got %d spaces, want bob's one", len(left))
	}
}

func TestControl(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		takeOver  bool
		connected bool
		state     string
		ops       []extwire.Op
		stopped   []string
		audit     string
		ended     [][]int
	}{
		{"take over", true, true, "person", []extwire.Op{extwire.TabsActivate{TabID: 51}}, []string{"s1"}, "audit:person spaces.takeOver s1 (agent alice) in b1", [][]int{{50, 51}}},
		{"hand back to an agent that is there", false, true, "working", nil, nil, "audit:person spaces.handBack s1 (agent alice) in b1", nil},
		{"hand back to an agent that left", false, false, "idle", nil, nil, "audit:person spaces.handBack s1 (agent alice) in b1", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, svc, person := fixture("")
			grouped(svc, "alice", 5, 50, 51)
			if !tc.takeOver {
				svc.reg.SetState("s1", spaces.Person)
			}
			svc.connected["alice"] = tc.connected
			run := m.HandBack
			if tc.takeOver {
				run = m.TakeOver
			}
			res, err := run(ctx, person, protocol.SpaceParams{Space: "s1"})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.(protocol.SpaceResult).Space.State; got != tc.state {
				t.Errorf("state: got %s, want %s", got, tc.state)
			}
			b, _ := svc.browser("b1")
			if diff := cmp.Diff(tc.ops, b.ops); diff != "" {
				t.Errorf("ops (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.stopped, svc.stopped); diff != "" {
				t.Errorf("spaces whose agents were stopped (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.ended, b.ended); diff != "" {
				t.Errorf("tabs whose agents' sessions ended (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{tc.audit}, svc.audits); diff != "" {
				t.Errorf("audit (-want +got):\n%s", diff)
			}
			sp, _ := svc.reg.Get("s1")
			if diff := cmp.Diff([]string{sp.Title()}, b.titles); diff != "" {
				t.Errorf("group titles (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWaitForControl(t *testing.T) {
	m, svc, alice := fixture("alice")
	grouped(svc, "alice", 5, 50)

	// In control: at once.
	if _, err := m.WaitForControl(context.Background(), alice, protocol.SpacesWaitParams{}); err != nil {
		t.Fatal(err)
	}

	// The person keeps it: timeout.
	svc.reg.SetState("s1", spaces.Person)
	_, err := m.WaitForControl(context.Background(), alice, protocol.SpacesWaitParams{TimeoutMs: 1})
	if got := codeOf(t, err); got != protocol.CodeTimeout {
		t.Fatalf("got %v, want timeout", err)
	}

	// Handed back while it waits, to an agent that had left: its space
	// wakes as it comes back.
	done := make(chan error, 1)
	var res any
	go func() {
		var err error
		res, err = m.WaitForControl(context.Background(), alice, protocol.SpacesWaitParams{Space: "s1", TimeoutMs: 60_000})
		done <- err
	}()
	svc.reg.HandBack("s1", false)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("still waiting after the space was handed back")
	}
	if got := res.(protocol.SpaceResult).Space.State; got != "working" {
		t.Errorf("state: got %s, want working (its agent is back)", got)
	}
	if b, _ := svc.browser("b1"); len(b.titles) != 1 {
		t.Errorf("group titles written: %q, want the woken one", b.titles)
	}

	// Ended while it waits.
	svc.reg.SetState("s1", spaces.Person)
	go func() {
		_, err := m.WaitForControl(context.Background(), alice, protocol.SpacesWaitParams{Space: "s1", TimeoutMs: 60_000})
		done <- err
	}()
	svc.reg.Remove("s1")
	if err := <-done; codeOf(t, err) != protocol.CodeInvalidParams {
		t.Errorf("got %v, want invalid_params (ended while it waited)", err)
	}
}
