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
}
