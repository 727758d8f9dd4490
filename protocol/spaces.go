package protocol

// AgentHeader is the HTTP header of the WebSocket handshake that names the
// connection's agent (the hello method does the same after connecting).
const AgentHeader = "X-Egohost-Agent"

// Agents and spaces (PROTOCOL.md §3.6).
const (
	MethodHello                = "hello"
	MethodSpacesList           = "spaces.list"
	MethodSpacesNew            = "spaces.new"
	MethodSpacesUse            = "spaces.use"
	MethodSpacesClaim          = "spaces.claim"
	MethodSpacesComplete       = "spaces.complete"
	MethodSpacesClose          = "spaces.close"
	MethodSpacesTakeOver       = "spaces.takeOver"
	MethodSpacesHandBack       = "spaces.handBack"
	MethodSpacesWaitForControl = "spaces.waitForControl"
)

// HelloParams name the connection's agent.
type HelloParams struct {
	Agent string `json:"agent"`
}

// HelloResult answers hello.
type HelloResult struct {
	Agent   string `json:"agent"`           // "" for the person (the owner, no name)
	Space   *Space `json:"space,omitempty"` // the agent's current space
	Version string `json:"version"`
}

// Space is one agent's tab group.
type Space struct {
	ID      string `json:"id"`
	Agent   string `json:"agent"`
	Task    string `json:"task,omitempty"`
	Browser string `json:"browser"`
	Group   int    `json:"group,omitempty"` // Chrome's tab group ID; absent while the space has no tab
	Title   string `json:"title"`
	Color   string `json:"color"`
	// State is "working" (the agent drives it), "person" (taken over:
	// agents' calls fail with user_in_control) or "idle" (its agent is
	// not connected).
	State   string `json:"state"`
	Tabs    []int  `json:"tabs"`
	LastTab int    `json:"lastTab,omitempty"` // the agent's default tab
	Current bool   `json:"current,omitempty"` // the calling agent's current space
	// Scripted, to the person only, are the space's tabs whose document
	// ran an agent's own script (eval, a wait's function, raw CDP), or a
	// tab linked to it did: what the person types there could reach the
	// agent until the tab loads a new document (reload it first).
	Scripted []int `json:"scripted,omitempty"`
	// CloseFirst, to the person only, are tabs linked to the scripted
	// ones (one opened the other: window.open, a link with a target),
	// the space's or not, that an agent's script may run in and that can
	// put it back into the others' next documents: close them before
	// reloading the scripted tabs (a reload does not make them safe).
	CloseFirst []int `json:"closeFirst,omitempty"`
}

// SpacesListParams are the params of spaces.list.
type SpacesListParams struct {
	// Agent lists that agent's spaces only; an agent sees its own unless
	// it asks for all.
	Agent string `json:"agent,omitempty"`
	All   bool   `json:"all,omitempty"`
}

// SpacesListResult answers spaces.list.
type SpacesListResult struct {
	Spaces []Space `json:"spaces"`
}

// SpacesNewParams are the params of spaces.new.
type SpacesNewParams struct {
	Browser string `json:"browser,omitempty"`
	Task    string `json:"task,omitempty"`
	// URL is loaded in the space's first tab (default about:blank).
	URL        string `json:"url,omitempty"`
	Background bool   `json:"background,omitempty"`
}

// SpaceResult answers the spaces.* methods that act on one space.
type SpaceResult struct {
	Space Space `json:"space"`
	Tab   *Tab  `json:"tab,omitempty"` // the tab spaces.new opened or spaces.claim moved
}

// SpaceParams name a space; empty means the caller's current space.
type SpaceParams struct {
	Space string `json:"space,omitempty"`
}

// SpacesClaimParams are the params of spaces.claim.
type SpacesClaimParams struct {
	Target
	Space string `json:"space,omitempty"` // default: the current space (a new one when none)
}

// SpacesCompleteParams are the params of spaces.complete.
type SpacesCompleteParams struct {
	Space string `json:"space,omitempty"`
	// Keep leaves the tabs open for the person, in a group marked done;
	// without it the space's tabs are closed.
	Keep bool `json:"keep,omitempty"`
}

// SpacesCompleteResult answers spaces.complete and spaces.close.
type SpacesCompleteResult struct {
	Space  string `json:"space"`
	Closed []int  `json:"closed"` // the tabs closed
	Kept   []int  `json:"kept"`   // the tabs left to the person
	// Scripted are the kept tabs whose document ran an agent's own
	// script: the group's title tells the person to reload them before
	// typing there (Space.Scripted), after closing the tabs in
	// CloseFirst (Space.CloseFirst).
	Scripted   []int `json:"scripted,omitempty"`
	CloseFirst []int `json:"closeFirst,omitempty"`
}

// SpacesWaitParams are the params of spaces.waitForControl.
type SpacesWaitParams struct {
	Space     string `json:"space,omitempty"`
	TimeoutMs int    `json:"timeoutMs,omitempty"` // default: the request timeout less a second
}
