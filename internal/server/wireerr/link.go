package wireerr

import (
	"errors"

	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
)

// The browser link returns its own errors (browserlink.Error, and its
// refusals of the extension's calls); the agents' codes are made here. The
// link is imported for its error types only: nothing here calls it.

// extCodes are the agents' codes of the extension's error codes
// (PROTOCOL.md §2.2); any other is extension_error.
var extCodes = map[string]protocol.Code{
	extwire.ErrNoTab:             protocol.CodeTabNotFound,
	extwire.ErrAlreadyAttached:   protocol.CodeAlreadyAttached,
	extwire.ErrAttachFailed:      protocol.CodeAttachFailed,
	extwire.ErrDetached:          protocol.CodeDetached,
	extwire.ErrCDP:               protocol.CodeCDP,
	extwire.ErrTooLarge:          protocol.CodeTooLarge,
	extwire.ErrAutomationStopped: protocol.CodeAutomationStopped,
	extwire.ErrForbiddenPage:     protocol.CodeForbiddenOriginScope,
	extwire.ErrBadRequest:        protocol.CodeInvalidParams,
	extwire.ErrUnknownOp:         protocol.CodeInvalidParams,
}

// linkCode is the agents' error of a call the browser link failed.
func linkCode(e *browserlink.Error) *protocol.Error {
	switch e.Kind {
	case browserlink.KindTimeout:
		return protocol.Errorf(protocol.CodeTimeout, "%s", e.Error())
	case browserlink.KindGone:
		return protocol.Errorf(protocol.CodeBrowserGone, "%s", e.Error())
	case browserlink.KindTooLarge:
		return protocol.Errorf(protocol.CodeTooLarge, "%s", e.Error())
	case browserlink.KindDetached:
		pe := protocol.Errorf(protocol.CodeDetached, "%s", e.Error()).With("reason", e.Reason)
		if e.Refused {
			pe.With("refused", true)
		}
		return pe
	case browserlink.KindTabClosed:
		return protocol.Errorf(protocol.CodeTabNotFound, "%s", e.Error())
	}
	code, ok := extCodes[e.Ext.Code]
	if !ok {
		code = protocol.CodeExtension
	}
	pe := protocol.Errorf(code, "%s", e.Error()).With("extensionCode", e.Ext.Code)
	if e.Ext.Reason != "" {
		pe.With("reason", e.Ext.Reason)
	}
	if e.Ext.CDPCode != nil {
		pe.With("cdpCode", *e.Ext.CDPCode)
	}
	if e.Ext.Refused {
		pe.With("refused", true)
	}
	return pe
}

// FromLink is err with a browser link's error (anywhere in its chain)
// made the agents' error; any other error as it is. A link's error on its
// own becomes the protocol error (a timeout keeps its context's error for
// errors.Is); a wrapped one keeps its wrapping and its text, and matches
// the protocol error with errors.As, as when the link made protocol
// errors.
func FromLink(err error) error {
	var le *browserlink.Error
	if err == nil || !errors.As(err, &le) {
		return err
	}
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return err
	}
	pe = linkCode(le)
	switch {
	case error(le) != err:
		return &coded{pe: pe, err: err, text: err.Error()}
	case le.Kind == browserlink.KindTimeout:
		return &coded{pe: pe, err: err, text: pe.Error()}
	}
	return pe
}

// coded is an error that carries an agents' error made from a browser
// link's error: errors.As finds the protocol error first, errors.Is the
// rest of the chain (the context's error of a timeout).
type coded struct {
	pe   *protocol.Error
	err  error
	text string
}

func (e *coded) Error() string   { return e.text }
func (e *coded) Unwrap() []error { return []error{e.pe, e.err} }

// asAgentError is the agents' error err carries, if it carries one: a
// protocol error it wraps, or a browser link's error made one (errors
// from the link reach the service unmapped through cdptab's sessions).
func asAgentError(err error) (*protocol.Error, bool) {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe, true
	}
	var le *browserlink.Error
	if errors.As(err, &le) {
		return linkCode(le), true
	}
	return nil, false
}

// CodeOf is the agents' code of err: protocol.CodeOf, knowing the browser
// link's errors.
func CodeOf(err error) protocol.Code {
	if pe, ok := asAgentError(err); ok {
		return pe.Code
	}
	return protocol.CodeInternal
}

// Of is the wire form of any error a call ends with: the protocol error
// it wraps, a browser link's error made one, a context deadline as
// timeout, else internal.
func Of(err error) *protocol.Error {
	if pe, ok := asAgentError(err); ok {
		return pe
	}
	return protocol.AsError(err)
}

// Reply words the error of a reply to the extension's call (the popup
// channel): the link's own refusals get their codes.
func Reply(err error) *protocol.Error {
	var busy *browserlink.BusyError
	switch {
	case errors.Is(err, browserlink.ErrNoCalls):
		return protocol.Errorf(protocol.CodeMethodNotFound, "%v", err)
	case errors.Is(err, browserlink.ErrNoMethod):
		return protocol.Errorf(protocol.CodeInvalidRequest, "%v", err)
	case errors.As(err, &busy):
		return protocol.Errorf(protocol.CodeBusy, "%v", err).With("limit", busy.Limit)
	}
	return Of(err)
}
