package browserlink

import "slices"

// A tab has one debugger session, which egohost's engine, the person and
// every agent share; what an agent's raw CDP sets on it (an emulated
// device or user agent, a time zone, blocked URLs, script turned off)
// lasts as long as the session, into later documents, whoever holds the
// tab. The link remembers which agents' raw CDP reached each tab since
// the debugger last attached, so that the service can end the session
// (Detach) when the tab goes back to the person or the agent is revoked
// (PROTOCOL.md §3.6): Chrome then drops all of it.

// MarkAgentCDP notes that the raw CDP of the named agent is about to
// reach tab.
func (l *Link) MarkAgentCDP(tab int, agent string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := l.agentCDP[tab]
	if names == nil {
		names = make(map[string]bool)
		l.agentCDP[tab] = names
	}
	names[agent] = true
}

// AgentCDP reports whether an agent's raw CDP reached tab since its
// debugger session began: a detach (of any cause) or the tab's close
// forgets it.
func (l *Link) AgentCDP(tab int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.agentCDP[tab]) > 0
}

// AgentCDPTabs returns the tabs the named agent's raw CDP reached since
// their debugger sessions began, in order.
func (l *Link) AgentCDPTabs(agent string) []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	var tabs []int
	for tab, names := range l.agentCDP {
		if names[agent] {
			tabs = append(tabs, tab)
		}
	}
	slices.Sort(tabs)
	return tabs
}
