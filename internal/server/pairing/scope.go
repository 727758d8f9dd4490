// Package pairing is who may drive the browser besides its owner: agents
// the person paired (each with its own token, stored hashed), the scopes
// they were granted, their origin rules, and the pairing requests waiting
// for the person's answer. The service asks it; it calls nothing back.
package pairing

import (
	"fmt"
	"slices"
	"strings"
)

// Scope is one grant a paired agent holds.
type Scope string

// The scopes (PROTOCOL.md §3.7). A paired agent with none holds Space.
const (
	// Space: read and act (input, navigation, eval) on the tabs of the
	// agent's own spaces.
	Space Scope = "space"
	// Read: snapshots, resolve, screenshots, console and network logs;
	// no input, no navigation, no eval.
	Read Scope = "read"
	// AllTabs extends the agent's other grants from its own spaces to
	// every tab.
	AllTabs Scope = "all-tabs"
	// CDP allows raw cdp.send and cdp.subscribe.
	CDP Scope = "cdp"
)

// Scopes lists every scope, in the order they are documented.
var allScopes = []Scope{Space, Read, AllTabs, CDP}

// ParseScopes checks a list of scope names (each may itself be a
// comma-separated list, as on the command line), drops repeats and
// returns them sorted. An empty list is [space].
func ParseScopes(names []string) ([]Scope, error) {
	var out []Scope
	for _, n := range names {
		for _, part := range strings.Split(n, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			sc := Scope(part)
			if !slices.Contains(allScopes, sc) {
				return nil, fmt.Errorf("unknown scope %q (known: space, read, all-tabs, cdp)", part)
			}
			if !slices.Contains(out, sc) {
				out = append(out, sc)
			}
		}
	}
	if len(out) == 0 {
		out = []Scope{Space}
	}
	slices.Sort(out)
	return out, nil
}

// Need is what a method requires of its caller. Every method of the
// service declares one.
type Need int

// The needs, from least to most.
const (
	// NeedNone: reaches no tab (ping, browsers.list, tabs.list): any
	// authenticated agent.
	NeedNone Need = iota + 1
	// NeedRead: reads a tab (snapshot, resolve, screenshot, console).
	NeedRead
	// NeedAct: changes a tab or what it shows (input, navigation, eval,
	// cookies, tabs).
	NeedAct
	// NeedCDP: raw DevTools protocol.
	NeedCDP
	// NeedOwner: managing agents and reading the audit log: the owner
	// token only (the person's own CLI) or the person at the popup.
	NeedOwner
	// NeedPairing: the pairing request, the one method a connection
	// without a token may call.
	NeedPairing
)

// String names a need as PROTOCOL.md does.
func (n Need) String() string {
	switch n {
	case NeedNone:
		return "none"
	case NeedRead:
		return "read"
	case NeedAct:
		return "act"
	case NeedCDP:
		return "cdp"
	case NeedOwner:
		return "owner"
	case NeedPairing:
		return "pairing"
	}
	return fmt.Sprintf("need(%d)", int(n))
}

// Grants reports whether an agent holding scopes may call a method that
// needs n. Reach (own spaces or all tabs) is checked per tab, not here.
func Grants(scopes []Scope, n Need) bool {
	has := func(s Scope) bool { return slices.Contains(scopes, s) }
	switch n {
	case NeedNone, NeedPairing:
		return true
	case NeedRead:
		return has(Read) || has(Space) || has(CDP)
	case NeedAct:
		return has(Space)
	case NeedCDP:
		return has(CDP)
	}
	return false
}

// ScopeFor names the scope that would grant n, for error messages.
func ScopeFor(n Need) string {
	switch n {
	case NeedRead:
		return "read"
	case NeedAct:
		return "space"
	case NeedCDP:
		return "cdp"
	case NeedOwner:
		return "the owner token"
	}
	return ""
}
