// Package extwire is the extension wire (PROTOCOL.md §2): the messages the
// extension, the relay and the service exchange over native messaging and
// the relay socket — the service's requests (ops) and the extension's
// replies, the events, the chunks of a large request, the relay's
// handshake and events, the popup channel's calls and notices. It holds
// the types and their encoding only: the browser link (browserlink), the
// relay and the service speak it.
package extwire

import (
	"encoding/json"
	"fmt"

	"github.com/egohost/egohost/protocol"
)

// Op is a request to the extension (PROTOCOL.md §2.1): one of the op
// types below. Its JSON is the request's fields; EncodeRequest adds "id"
// and "op".
type Op interface {
	// OpName is the request's "op".
	OpName() string
	// OpTab is the tab whose detach or close fails the call in flight
	// (0: none).
	OpTab() int
}

// CDP sends one CDP command to a tab (or one of its flattened child
// sessions); the reply is Chrome's result object.
type CDP struct {
	TabID     int             `json:"tabId"`
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	// Reattach says the service has heard of the tab's detach: the
	// extension, which fenced the tab unless the service asked for the
	// detach, attaches again for it. The link sets it on the tab's first
	// command after that event.
	Reattach bool `json:"reattach,omitempty"`
	// Then, when set, is a second command the extension sends on the
	// same session as soon as Chrome has answered this one, unless Chrome
	// reported a JavaScript dialog on the tab meanwhile: the reply is then
	// CDPThenResult, and a failure of the second is an error with Then set.
	Then *CDPThen `json:"then,omitempty"`
	// Epoch, when not 0, is the tab's debugger session generation the
	// command was made for (browserlink.Session): the link does not send
	// it once it has heard of a later detach. Not on the wire.
	Epoch uint64 `json:"-"`
}

// CDPThen is the second command of a CDP op (CDP.Then).
type CDPThen struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// CDPThenResult is the reply of a CDP op with Then: both results, or the
// first and why the second was not sent ("dialog").
type CDPThenResult struct {
	Result  json.RawMessage `json:"result"`
	Then    json.RawMessage `json:"then,omitempty"`
	Skipped string          `json:"skipped,omitempty"`
}

// Attach attaches the debugger to a tab: {"attached", "already"}.
type Attach struct {
	TabID int `json:"tabId"`
}

// Detach ends the debugger's session of a tab, and with it every state
// commands left on that session (overrides, bindings, interceptions):
// {"detached": true}. The extension sends a detached event, reason
// requested, and does not fence the tab: the next command attaches again.
type Detach struct {
	TabID int `json:"tabId"`
}

// TabsList lists the browser's tabs: {"tabs": [Tab]}.
type TabsList struct{}

// TabsFocused asks for the person's tab, in one question whatever the
// number of tabs: {"tab": Tab or null}, the active tab of the last focused
// window (focused: true), else any window's active tab.
type TabsFocused struct{}

// TabsOpen opens a tab: {"tab": Tab}.
type TabsOpen struct {
	URL    string `json:"url"`
	Active bool   `json:"active"`
	// WindowID opens it in that window; NewWindow as the first tab of a
	// new unfocused window (an agent's space).
	WindowID  int  `json:"windowId,omitempty"`
	NewWindow bool `json:"newWindow,omitempty"`
}

// TabsClose closes a tab: {"closed": true}.
type TabsClose struct {
	TabID int `json:"tabId"`
}

// TabsActivate activates a tab and focuses its window: {"tab": Tab}.
type TabsActivate struct {
	TabID int `json:"tabId"`
	// NoFocus leaves the window's focus as it is (an agent's space).
	NoFocus bool `json:"noFocus,omitempty"`
}

// Echo sends data back: {"data", "length"}.
type Echo struct {
	Data any `json:"data"`
}

// GroupsAdd puts tabs into a tab group (a new one when GroupID is 0) and
// sets its title and colour when given: {"groupId"}.
type GroupsAdd struct {
	TabIDs  []int  `json:"tabIds"`
	GroupID int    `json:"groupId,omitempty"`
	Title   string `json:"title,omitempty"`
	Color   string `json:"color,omitempty"`
}

// GroupsUpdate retitles or recolours a tab group: {"group": Group}.
type GroupsUpdate struct {
	GroupID int    `json:"groupId"`
	Title   string `json:"title,omitempty"`
	Color   string `json:"color,omitempty"`
}

// GroupsList lists the browser's tab groups: {"groups": [Group]}.
type GroupsList struct{}

// DownloadsDiscard cancels a download, deletes its file and erases it
// from the browser's list (a download the person refused):
// {"discarded": true}.
type DownloadsDiscard struct {
	DownloadID int `json:"downloadId"`
}

// EventsQuiet replaces the set of CDP events the extension does not
// forward (the service reads none of them, and no agent subscribed to
// them): those Methods, and the Page.lifecycleEvent events whose name is
// in Lifecycle. Empty lists forward everything, as the extension does
// until it is told otherwise: {"quiet": n}. Both fields are always sent
// (nil is sent as []).
type EventsQuiet struct {
	Methods   []string `json:"methods"`
	Lifecycle []string `json:"lifecycle"`
}

// MarshalJSON sends nil lists as [].
func (o EventsQuiet) MarshalJSON() ([]byte, error) {
	type plain EventsQuiet
	if o.Methods == nil {
		o.Methods = []string{}
	}
	if o.Lifecycle == nil {
		o.Lifecycle = []string{}
	}
	return json.Marshal(plain(o))
}

func (CDP) OpName() string              { return "cdp" }
func (Attach) OpName() string           { return "attach" }
func (Detach) OpName() string           { return "detach" }
func (TabsList) OpName() string         { return "tabs.list" }
func (TabsFocused) OpName() string      { return "tabs.focused" }
func (TabsOpen) OpName() string         { return "tabs.open" }
func (TabsClose) OpName() string        { return "tabs.close" }
func (TabsActivate) OpName() string     { return "tabs.activate" }
func (Echo) OpName() string             { return "echo" }
func (GroupsAdd) OpName() string        { return "groups.add" }
func (GroupsUpdate) OpName() string     { return "groups.update" }
func (GroupsList) OpName() string       { return "groups.list" }
func (DownloadsDiscard) OpName() string { return "downloads.discard" }
func (EventsQuiet) OpName() string      { return "events.quiet" }

func (o CDP) OpTab() int            { return o.TabID }
func (o Attach) OpTab() int         { return o.TabID }
func (o Detach) OpTab() int         { return o.TabID }
func (TabsList) OpTab() int         { return 0 }
func (TabsFocused) OpTab() int      { return 0 }
func (TabsOpen) OpTab() int         { return 0 }
func (TabsClose) OpTab() int        { return 0 }
func (TabsActivate) OpTab() int     { return 0 }
func (Echo) OpTab() int             { return 0 }
func (GroupsAdd) OpTab() int        { return 0 }
func (GroupsUpdate) OpTab() int     { return 0 }
func (GroupsList) OpTab() int       { return 0 }
func (DownloadsDiscard) OpTab() int { return 0 }
func (EventsQuiet) OpTab() int      { return 0 }

// EncodeRequest is the request's JSON: {"id", "op", …the op's fields}.
func EncodeRequest(id int64, op Op) ([]byte, error) {
	fields, err := json.Marshal(op)
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", op.OpName(), err)
	}
	name, _ := json.Marshal(op.OpName())
	msg := fmt.Appendf(nil, `{"id":%d,"op":%s`, id, name)
	if len(fields) > 2 { // more than "{}"
		msg = append(msg, ',')
	}
	return append(msg, fields[1:]...), nil
}

// TabsFocusedResult is the reply to TabsFocused.
type TabsFocusedResult struct {
	Tab *protocol.Tab `json:"tab"`
}

// TabsListResult is the reply to TabsList.
type TabsListResult struct {
	Tabs []protocol.Tab `json:"tabs"`
}

// TabResult is the reply to TabsOpen and TabsActivate.
type TabResult struct {
	Tab protocol.Tab `json:"tab"`
}

// GroupsListResult is the reply to GroupsList.
type GroupsListResult struct {
	Groups []Group `json:"groups"`
}

// GroupsAddResult is the reply to GroupsAdd.
type GroupsAddResult struct {
	GroupID int `json:"groupId"`
}

// EchoResult is the reply to Echo.
type EchoResult struct {
	Data string `json:"data"`
}

// Group is a Chrome tab group as the extension reports it.
type Group struct {
	ID       int    `json:"id"`
	Title    string `json:"title"`
	Color    string `json:"color"`
	WindowID int    `json:"windowId"`
}
