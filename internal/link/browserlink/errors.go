package browserlink

import (
	"errors"
	"fmt"

	"github.com/egohost/egohost/internal/link/extwire"
)

// Kind says why a call through a link failed. The link makes no agent
// error codes: the service maps each kind (and an extension's error code)
// to one.
type Kind int

const (
	// KindTimeout: the caller's context ended before the call was sent, or
	// before its answer came. The Error unwraps to the context's error.
	KindTimeout Kind = iota + 1
	// KindGone: the link is down (the browser disconnected), before the
	// call was sent or while it waited.
	KindGone
	// KindTooLarge: the request does not fit in the frames the link sends.
	KindTooLarge
	// KindDetached: the tab's debugger was detached while the call was in
	// flight (Reason says why; Refused: Chrome refused the command, it did
	// not run).
	KindDetached
	// KindTabClosed: the tab was closed while the call was in flight.
	KindTabClosed
	// KindExtension: the extension answered with an error (Ext).
	KindExtension
)

// Error is how a call through a link failed.
type Error struct {
	Kind    Kind
	Op      string // what the call names: the CDP method of a cdp call, else its op
	Browser string
	Tab     int
	Reason  string // a detach's reason
	Refused bool   // Chrome refused the command: it did not run
	// Ext is the extension's error reply (KindExtension).
	Ext *extwire.ExtError

	msg string
	err error // the context's error (KindTimeout)
}

func (e *Error) Error() string { return e.msg }

// Unwrap is the context's error of a KindTimeout: waiting helpers know
// their deadline passed (and keep the cause they saw before).
func (e *Error) Unwrap() error { return e.err }

// Permanent reports whether the same call cannot succeed on a retry: the
// tab, its debugger or the browser is gone, or the request is too large.
// The resolver's waits stop at once on such errors.
func (e *Error) Permanent() bool {
	switch e.Kind {
	case KindGone, KindTooLarge, KindDetached, KindTabClosed:
		return true
	case KindExtension:
		switch e.Ext.Code {
		case extwire.ErrNoTab, extwire.ErrAlreadyAttached, extwire.ErrAttachFailed, extwire.ErrDetached, extwire.ErrTooLarge:
			return true
		}
	}
	return false
}

// IsGone reports whether err is a call that failed because the browser's
// link went down.
func IsGone(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == KindGone
}

func newError(kind Kind, op string, format string, args ...any) *Error {
	return &Error{Kind: kind, Op: op, msg: fmt.Sprintf(format, args...)}
}

// extensionError is the error of an extension's error reply.
func extensionError(op string, ext *extwire.ExtError) *Error {
	e := newError(KindExtension, op, "%s: %s", op, ext.Message)
	e.Ext, e.Reason, e.Refused = ext, ext.Reason, ext.Refused
	return e
}
