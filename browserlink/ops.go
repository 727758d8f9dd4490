package browserlink

import (
	"encoding/json"
	"fmt"
)

// Op is a request to the extension (PROTOCOL.md §2.1): one of the op
// types below. Its JSON is the request's fields; Call adds "id" and "op".
type Op interface {
	// opName is the request's "op".
	opName() string
	// tab is the tab whose detach or close fails the call in flight
	// (0: none).
	tab() int
}

// CDP sends one CDP command to a tab (or one of its flattened child
// sessions); the reply is Chrome's result object.
type CDP struct {
	TabID     int             `json:"tabId"`
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	// Reattach says the service has heard of the tab's refused detach
	// (Message.Refused): the extension attaches again for it. The link
	// sets it on the tab's first command after that event.
	Reattach bool `json:"reattach,omitempty"`
}

// Attach attaches the debugger to a tab: {"attached", "already"}.
type Attach struct {
	TabID int `json:"tabId"`
}

// TabsList lists the browser's tabs: {"tabs": [Tab]}.
type TabsList struct{}

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

func (CDP) opName() string          { return "cdp" }
func (Attach) opName() string       { return "attach" }
func (TabsList) opName() string     { return "tabs.list" }
func (TabsOpen) opName() string     { return "tabs.open" }
func (TabsClose) opName() string    { return "tabs.close" }
func (TabsActivate) opName() string { return "tabs.activate" }
func (Echo) opName() string         { return "echo" }

func (o CDP) tab() int        { return o.TabID }
func (o Attach) tab() int     { return o.TabID }
func (TabsList) tab() int     { return 0 }
func (TabsOpen) tab() int     { return 0 }
func (TabsClose) tab() int    { return 0 }
func (TabsActivate) tab() int { return 0 }
func (Echo) tab() int         { return 0 }

// errName is what a call's errors name: the CDP method for cdp calls,
// else the op.
func errName(op Op) string {
	if c, ok := op.(CDP); ok {
		return c.Method
	}
	return op.opName()
}

// encodeRequest is the request's JSON: {"id", "op", …the op's fields}.
func encodeRequest(id int64, op Op) ([]byte, error) {
	fields, err := json.Marshal(op)
	if err != nil {
		return nil, fmt.Errorf("%s: encode request: %w", op.opName(), err)
	}
	name, _ := json.Marshal(op.opName())
	msg := fmt.Appendf(nil, `{"id":%d,"op":%s`, id, name)
	if len(fields) > 2 { // more than "{}"
		msg = append(msg, ',')
	}
	return append(msg, fields[1:]...), nil
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

// Group is a Chrome tab group as the extension reports it.
type Group struct {
	ID       int    `json:"id"`
	Title    string `json:"title"`
	Color    string `json:"color"`
	WindowID int    `json:"windowId"`
}

func (GroupsAdd) opName() string    { return "groups.add" }
func (GroupsUpdate) opName() string { return "groups.update" }
func (GroupsList) opName() string   { return "groups.list" }
func (GroupsAdd) tab() int          { return 0 }
func (GroupsUpdate) tab() int       { return 0 }
func (GroupsList) tab() int         { return 0 }
