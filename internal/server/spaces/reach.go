package spaces

import "slices"

// Caller is a named agent as Check sees it.
type Caller struct {
	Name string
	// OwnOnly: the agent may know of its own spaces only (paired
	// without all-tabs): it is not told whose another space is.
	OwnOnly bool
	// AllTabs: the agent may act on every tab, in its spaces or not.
	AllTabs bool
}

// Reach is what Check decides of an agent's call on a tab.
type Reach int

// The reaches of a tab, by where it is.
const (
	Own          Reach = iota // in one of the agent's spaces: the call goes on
	Granted                   // outside the agent's spaces, but it may act on every tab
	TakenOver                 // in a space the person has taken over: user_in_control
	OthersSpace               // in another agent's space: not_in_space, naming it
	UnnamedSpace              // in another agent's space the caller may not know of: not_in_space, naming none
	PersonsTab                // in no space (the person's): not_in_space, the agent may claim it
)

// Check decides whether agent c may act on a tab of space sp (inSpace is
// false for a tab in no space). The person taking a space over stops its
// agent, and any agent that may know of the space; an agent that may
// know only its own spaces is not told another's is taken over.
func Check(c Caller, sp Space, inSpace bool) Reach {
	switch {
	case inSpace && sp.State == Person && (sp.Agent == c.Name || !c.OwnOnly):
		return TakenOver
	case inSpace && sp.Agent == c.Name:
		return Own
	case c.AllTabs:
		return Granted
	case inSpace && c.OwnOnly:
		return UnnamedSpace
	case inSpace:
		return OthersSpace
	}
	return PersonsTab
}

// DefaultTab is the tab a call of the space's agent that names none goes
// to, of the space's tabs now: the tab it used last while that is there,
// else the last of tabs; ok is false when the space has no tab.
func (sp Space) DefaultTab(tabs []int) (tab int, ok bool) {
	if len(tabs) == 0 {
		return 0, false
	}
	if slices.Contains(tabs, sp.LastTab) {
		return sp.LastTab, true
	}
	return tabs[len(tabs)-1], true
}
