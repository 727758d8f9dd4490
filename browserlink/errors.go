package browserlink

import (
	"github.com/egohost/egohost/extwire"
	"github.com/egohost/egohost/protocol"
)

// extensionError maps an extension error reply to a protocol error.
func extensionError(op string, e *extwire.ExtError) error {
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
