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
// reach tab; it reports whether that is new.
func (l *Link) MarkAgentCDP(tab int, agent string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := l.agentCDP[tab]
	if names == nil {
		names = make(map[string]bool)
		l.agentCDP[tab] = names
	}
	if names[agent] {
		return false
	}
	names[agent] = true
	return true
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

// AgentCDPMarks returns every tab's agents whose raw CDP reached it, for
// the link that follows this one to the same browser (ResumeAgentCDP).
func (l *Link) AgentCDPMarks() map[int][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	marks := make(map[int][]string, len(l.agentCDP))
	for tab, names := range l.agentCDP {
		for name := range names {
			marks[tab] = append(marks[tab], name)
		}
	}
	return marks
}

// ResumeAgentCDP takes over the marks of the link this one follows to the
// same browser (a relay restart, a stop of the extension's worker) for the
// tabs still open: their debugger sessions may have lasted through it,
// with what the agents set on them (a detach the link did not hear of
// leaves a mark too many, and the service's detach at the take over then
// finds no session: nothing lost).
func (l *Link) ResumeAgentCDP(marks map[int][]string, open func(tab int) bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for tab, names := range marks {
		if !open(tab) {
			continue
		}
		if l.agentCDP[tab] == nil {
			l.agentCDP[tab] = make(map[string]bool)
		}
		for _, name := range names {
			l.agentCDP[tab][name] = true
		}
	}
}
