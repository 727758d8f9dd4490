package browserlink

import (
	"context"
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
	l.MarkAgentCDP(3)
	l.MarkAgentCDP(4)
	check("marked", true, true)
	call(cdpEvent("", "Runtime.consoleAPICalled", `{"type":"log","args":[],"timestamp":1}`))
	check("after an event of the tab", true, true)
	call(`{"event":"detached","tabId":3,"reason":"requested"}`)
	check("tab 3's debugger detached", false, true)
	l.MarkAgentCDP(3)
	call(`{"event":"tab.removed","tabId":4}`)
	check("tab 4 closed", true, false)
}
