package protocol

// The popup channel (PROTOCOL.md §2.6): methods only the extension's own
// pages may call, over their browser's native link. Agents cannot reach
// them (the agents' endpoint knows no popup.* method).

// PopupPrefix starts the name of every popup-only method.
const PopupPrefix = "popup."

// Popup-only method names.
const (
	MethodPopupStatus = "popup.status"
)

// PopupStatusResult answers popup.status: what the popup shows a person
// about the service its browser is linked to.
type PopupStatusResult struct {
	Browser   string `json:"browser"`   // this browser's ID
	Version   string `json:"version"`   // the service's version
	PID       int    `json:"pid"`       // the service's process
	Endpoint  string `json:"endpoint"`  // where agents connect
	TokenFile string `json:"tokenFile"` // the owner token agents (and the CLI) read
	StateDir  string `json:"stateDir"`
	DataDir   string `json:"dataDir"` // the durable state: paired agents, the audit log
}

// The popup's front-end methods (issue 12): the page as the service sees
// it, the locator tester, the element picker and the Stop-all switch.
const (
	MethodPopupHighlight  = "popup.highlight"
	MethodPopupClear      = "popup.clear"
	MethodPopupPick       = "popup.pick"
	MethodPopupLastPick   = "popup.lastPick"
	MethodPopupAutomation = "popup.automation"
)

// NoticePick is the notice topic of a finished pick: its params are a
// PopupPickResult.
const NoticePick = "pick"

// PopupHighlightParams are popup.highlight's params: the targets (refs or
// locators) whose elements to box in the tab; none clears the boxes.
type PopupHighlightParams struct {
	Tab     int      `json:"tab,omitempty"`
	Targets []string `json:"targets"`
}

// PopupHighlightResult answers popup.highlight: every element boxed.
type PopupHighlightResult struct {
	Tab     int              `json:"tab"`
	Count   int              `json:"count"`
	Matches []PopupHighlight `json:"matches"`
}

// PopupHighlight is one element popup.highlight boxed (or could not: Box
// is nil for an element with no box, e.g. display: none).
type PopupHighlight struct {
	Target string `json:"target"`
	Role   string `json:"role"`
	Name   string `json:"name"`
	Box    *Box   `json:"box,omitempty"`
}

// PopupTabParams name the tab of a popup method (0: the active tab of the
// last focused window).
type PopupTabParams struct {
	Tab int `json:"tab,omitempty"`
}

// PopupPickResult is a picked element: the best locator for it (verified
// to match it alone), its ref, and every candidate tried in rank order.
type PopupPickResult struct {
	Tab        int             `json:"tab"`
	URL        string          `json:"url"`
	Locator    string          `json:"locator"`
	Ref        string          `json:"ref,omitempty"` // "@N", "" when the snapshot shows no ref for it
	Role       string          `json:"role"`
	Name       string          `json:"name"`
	Candidates []PickCandidate `json:"candidates"`
	At         int64           `json:"at"` // Unix milliseconds
	Cancelled  bool            `json:"cancelled,omitempty"`
	Box        *Box            `json:"box,omitempty"`
}

// PickCandidate is one locator the picker tried: Count elements match it,
// Unique when it matches the picked element alone.
type PickCandidate struct {
	Locator string `json:"locator"`
	Kind    string `json:"kind"` // role, label, placeholder, alt, text, title, testid, css
	Count   int    `json:"count"`
	Unique  bool   `json:"unique"`
}

// PopupLastPickResult answers popup.lastPick: the browser's latest pick,
// nil before the first.
type PopupLastPickResult struct {
	Pick *PopupPickResult `json:"pick"`
}

// PopupAutomationParams are popup.automation's: Stopped set switches all
// automation of this browser off (true) or back on; absent only reads it.
type PopupAutomationParams struct {
	Stopped *bool `json:"stopped,omitempty"`
}

// PopupAutomationResult answers popup.automation.
type PopupAutomationResult struct {
	Stopped bool `json:"stopped"`
}
