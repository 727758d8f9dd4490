package browserlink

import (
	"context"
	"slices"
	"testing"
	"time"
)

// A tab an agent's raw CDP reached stays marked until its debugger
// session ends (any detach: what the agent left on it went with it) or
// the tab closes; other tabs are not marked.
func TestAgentCDPMark(t *testing.T) {
	l, events := worldsLink(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	call := afterEvents(t, ctx, l, events)
	check := func(when string, want3, want4 bool) {
		t.Helper()
		if got3, got4 := l.AgentCDP(3), l.AgentCDP(4); got3 != want3 || got4 != want4 {
			t.Errorf("%s: tabs 3 and 4 marked: got %v %v, want %v %v", when, got3, got4, want3, want4)
		}
	}
	check("at first", false, false)
	l.MarkAgentCDP(3, "alice")
	l.MarkAgentCDP(4, "bob")
	l.MarkAgentCDP(4, "alice")
	check("marked", true, true)
	if got := l.AgentCDPTabs("alice"); !slices.Equal(got, []int{3, 4}) {
		t.Errorf("alice's tabs: got %v, want [3 4]", got)
	}
	if got := l.AgentCDPTabs("carol"); len(got) != 0 {
		t.Errorf("carol's tabs: got %v, want none", got)
	}
	call(cdpEvent("", "Runtime.consoleAPICalled", `{"type":"log","args":[],"timestamp":1}`))
	check("after an event of the tab", true, true)
	call(`{"event":"detached","tabId":3,"reason":"requested"}`)
	check("tab 3's debugger detached", false, true)
	if got := l.AgentCDPTabs("alice"); !slices.Equal(got, []int{4}) {
		t.Errorf("alice's tabs after tab 3's detach: got %v, want [4]", got)
	}
	l.MarkAgentCDP(3, "alice")
	call(`{"event":"tab.removed","tabId":4}`)
	check("tab 4 closed", true, false)
}
