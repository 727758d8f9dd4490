package extwire

import (
	"encoding/json"

	"github.com/egohost/egohost/protocol"
)

// The events the extension sends (PROTOCOL.md §2.3).
const (
	EventHello        = "hello"
	EventCDP          = "cdp"
	EventDetached     = "detached"
	EventTabCreated   = "tab.created"
	EventTabUpdated   = "tab.updated"
	EventTabRemoved   = "tab.removed"
	EventTabActivated = "tab.activated"
	EventDownload     = "download"
)

// Message is any frame from the extension (or the relay): a reply or an
// event (PROTOCOL.md §2.1, §2.3).
type Message struct {
	ID *int64 `json:"id,omitempty"`
	// Call numbers a request the extension makes of the service (the
	// popup channel, PROTOCOL.md §2.6); Method and Params are the call's.
	Call      *int64          `json:"call,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *ExtError       `json:"error,omitempty"`
	Event     string          `json:"event,omitempty"`
	TabID     int             `json:"tabId,omitempty"`
	WindowID  int             `json:"windowId,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Reason    string          `json:"reason,omitempty"`
	// Refused, in a detached event: a command Chrome refused (the session
	// was already gone) revealed the detach. None of the tab's commands the
	// service sent before it got the event ran, and the extension refuses
	// them until a cdp request with Reattach (PROTOCOL.md §2.1).
	Refused bool          `json:"refused,omitempty"`
	Tab     *protocol.Tab `json:"tab,omitempty"`
	// download (extension/downloads.js)
	Download *Download `json:"download,omitempty"`
	// hello
	ExtensionID string         `json:"extensionId,omitempty"`
	Version     string         `json:"version,omitempty"`
	UserAgent   string         `json:"userAgent,omitempty"`
	BrowserKey  string         `json:"browserKey,omitempty"` // the profile's stable identity (extension/identity.js)
	Tabs        []protocol.Tab `json:"tabs,omitempty"`
	// AutomationStopped is the extension's Stop-all switch (hello; PROTOCOL.md §2.6).
	AutomationStopped bool `json:"automationStopped,omitempty"`
}

// The extension's error codes (PROTOCOL.md §2.2).
const (
	ErrBadRequest        = "bad_request"
	ErrUnknownOp         = "unknown_op"
	ErrNoTab             = "no_tab"
	ErrAttachFailed      = "attach_failed"
	ErrAlreadyAttached   = "already_attached"
	ErrDetached          = "detached"
	ErrCDP               = "cdp_error"
	ErrTooLarge          = "too_large"
	ErrAutomationStopped = "automation_stopped"
	ErrForbiddenPage     = "forbidden_page"
	ErrInternal          = "internal"
)

// ExtError is an error reply from the extension (PROTOCOL.md §2.2).
type ExtError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Reason  string `json:"reason,omitempty"`
	CDPCode *int64 `json:"cdpCode,omitempty"`
	// Refused, with detached: Chrome refused the command because the
	// session was already gone; it did not run.
	Refused bool `json:"refused,omitempty"`
	// Then: the error is the second command's of a CDP op with Then (the
	// first was answered).
	Then bool `json:"then,omitempty"`
}

// Download is a download as the extension reports it in a "download"
// event (extension/downloads.js, from chrome.downloads).
type Download struct {
	ID         int    `json:"id"`
	URL        string `json:"url"`
	FinalURL   string `json:"finalUrl,omitempty"`
	Filename   string `json:"filename"`
	Mime       string `json:"mime,omitempty"`
	State      string `json:"state"` // in_progress, interrupted, complete
	Bytes      int64  `json:"bytes"`
	TotalBytes int64  `json:"totalBytes"`
	Error      string `json:"error,omitempty"`
}

// Chunk is one piece of a large message (PROTOCOL.md §2.4).
type Chunk struct {
	Chunk string `json:"chunk"`
	Index int    `json:"index"`
	Count int    `json:"count"`
	Data  string `json:"data"`
}

// The service's events to the extension (PROTOCOL.md §2.3, §2.6).
const (
	EventWelcome   = "welcome"
	EventError     = "error"
	EventCallReply = "callReply"
	EventNotice    = "notice"
)

// The codes of the service's error events (PROTOCOL.md §2.3).
const (
	CodeBadFrame        = "bad_frame"
	CodeForbiddenOrigin = "forbidden_origin"
)

// Notice is an event the service sends the extension: welcome, or error
// (PROTOCOL.md §2.3).
type Notice struct {
	Event          string `json:"event"`
	Code           string `json:"code,omitempty"`
	Message        string `json:"message,omitempty"`
	BrowserID      string `json:"browserId,omitempty"`
	ServiceVersion string `json:"serviceVersion,omitempty"`
	ServicePID     int    `json:"servicePid,omitempty"`
}

// CallReply answers one of the extension's calls (PROTOCOL.md §2.6). It
// is an event so the extension routes it like the service's other events;
// Error is the agent API's error object.
type CallReply struct {
	Event  string          `json:"event"` // "callReply"
	Call   int64           `json:"call"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *protocol.Error `json:"error,omitempty"`
}

// TopicNotice is a notice on a topic (PROTOCOL.md §2.6): the background
// keeps the latest params of each topic for the popup.
type TopicNotice struct {
	Event  string          `json:"event"` // "notice"
	Topic  string          `json:"topic"`
	Params json.RawMessage `json:"params"`
}

// RelayHello is the first frame on every connection of a relay to the
// service (PROTOCOL.md §2.5); Relay is "hello".
type RelayHello struct {
	Relay  string `json:"relay"`
	Origin string `json:"origin"`
	PID    int    `json:"pid"`
}

// The relay's own events to the extension (PROTOCOL.md §2.3): Event is
// "relay", State says which.
const (
	EventRelay       = "relay"
	RelayConnected   = "connected"
	RelayServiceDown = "service_down"
)

// RelayUp tells the extension that the relay reached the service.
type RelayUp struct {
	Event  string `json:"event"` // "relay"
	State  string `json:"state"` // "connected"
	Socket string `json:"socket"`
}

// RelayDown tells the extension that the service is not reachable.
type RelayDown struct {
	Event   string `json:"event"` // "relay"
	State   string `json:"state"` // "service_down"
	Error   string `json:"error"`
	RetryMs int64  `json:"retryMs"`
}
