package browserlink

// A tab has one debugger session, which egohost's engine, the person and
// every agent share; what an agent's raw CDP sets on it (an emulated
// device or user agent, blocked URLs, a binding, script turned off, the
// file chooser intercepted) lasts as long as the session, into later
// documents, whoever holds the tab. The link remembers which tabs an
// agent's raw CDP reached since the debugger last attached, so that the
// service can end the session (Detach) when the tab goes back to the
// person (PROTOCOL.md §3.6): Chrome then drops all of it.

// MarkAgentCDP notes that an agent's raw CDP is about to reach tab.
func (l *Link) MarkAgentCDP(tab int) {
	l.mu.Lock()
	l.agentCDP[tab] = true
	l.mu.Unlock()
}

// AgentCDP reports whether an agent's raw CDP reached tab since its
// debugger session began: a detach (of any cause) or the tab's close
// forgets it.
func (l *Link) AgentCDP(tab int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.agentCDP[tab]
}
