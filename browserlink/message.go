package browserlink

import (
	"encoding/json"

	"github.com/egohost/egohost/protocol"
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

// ExtError is an error reply from the extension (PROTOCOL.md §2.2).
type ExtError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Reason  string `json:"reason,omitempty"`
	CDPCode *int64 `json:"cdpCode,omitempty"`
	// Refused, with detached: Chrome refused the command because the
	// session was already gone; it did not run.
	Refused bool `json:"refused,omitempty"`
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

// extensionError maps an extension error reply to a protocol error.
func extensionError(op string, e *ExtError) error {
	var code protocol.Code
	switch e.Code {
	case "no_tab":
		code = protocol.CodeTabNotFound
	case "already_attached":
		code = protocol.CodeAlreadyAttached
	case "attach_failed":
		code = protocol.CodeAttachFailed
	case "detached":
		code = protocol.CodeDetached
	case "cdp_error":
		code = protocol.CodeCDP
	case "too_large":
		code = protocol.CodeTooLarge
	case "automation_stopped":
		code = protocol.CodeAutomationStopped
	case "forbidden_page":
		code = protocol.CodeForbiddenOriginScope
	case "bad_request", "unknown_op":
		code = protocol.CodeInvalidParams
	default:
		code = protocol.CodeExtension
	}
	pe := protocol.Errorf(code, "%s: %s", op, e.Message).With("extensionCode", e.Code)
	if e.Reason != "" {
		pe.With("reason", e.Reason)
	}
	if e.CDPCode != nil {
		pe.With("cdpCode", *e.CDPCode)
	}
	if e.Refused {
		pe.With("refused", true)
	}
	return pe
}

// callTimeout is a call whose context ended: it is a protocol error for
// the agent and matches the context's error with errors.Is, so waiting
// helpers know their deadline passed (and keep the cause they saw before).
type callTimeout struct {
	pe     *protocol.Error
	ctxErr error
}

func (e *callTimeout) Error() string   { return e.pe.Error() }
func (e *callTimeout) Unwrap() []error { return []error{e.pe, e.ctxErr} }
