package actions

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Reason says why an element is not actionable yet.
type Reason string

// The reasons an element is not actionable. Each may clear by waiting.
const (
	NotAttached     Reason = "not attached"
	NotVisible      Reason = "not visible"
	NotStable       Reason = "not stable"
	Disabled        Reason = "disabled"
	NotEditable     Reason = "not editable"
	Covered         Reason = "covered"
	OutsideViewport Reason = "outside the viewport"
	NoOption        Reason = "no matching option"
	NotFocused      Reason = "not focused"
)

// NotActionableError says why an element cannot be acted on yet. It is
// transient: the action retries until its timeout.
type NotActionableError struct {
	Reason Reason
	// Cover describes the element that would receive the events instead,
	// e.g. `<div id="cookie-banner">` (Reason Covered).
	Cover string
	// Element describes the element acted on.
	Element string
	// Detail adds what is known (the options that did not match, …).
	Detail string
}

func (e *NotActionableError) Error() string {
	var s string
	switch e.Reason {
	case Covered:
		s = "element is covered by " + e.Cover
	case NoOption:
		s = "no option matches"
	case NotFocused:
		s = "the element did not take the focus"
	default:
		s = "element is " + string(e.Reason)
	}
	if e.Element != "" {
		s += " (" + e.Element + ")"
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Transient reports true: waiting may make the element actionable.
func (e *NotActionableError) Transient() bool { return true }

// ErrUnsupported is the cause of an action that cannot work on its target
// (fill on a <div>, select on an <input>, uncheck on a radio button, a
// file to upload that does not exist). Waiting does not help.
var ErrUnsupported = errors.New("not possible on this element")

// unsupported returns an error that wraps ErrUnsupported.
func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUnsupported, fmt.Sprintf(format, args...))
}

// ErrInvalid is the cause of a call whose input is wrong (an unknown key,
// mouse button, load state or element state; a bad URL pattern).
var ErrInvalid = errors.New("invalid input")

// invalid returns an error that wraps ErrInvalid.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// TimeoutError is an action or a wait that ran out of time. It wraps the
// cause of its last failed attempt (and context.DeadlineExceeded), so
// errors.As finds a *NotActionableError or the Finder's error in it.
type TimeoutError struct {
	Op       string // "click", "wait", …
	Target   string // what it acted on or waited for
	Timeout  time.Duration
	Attempts int
	Last     error // the last attempt's error; nil when none failed
}

func (e *TimeoutError) Error() string {
	s := fmt.Sprintf("%s %s: timed out after %v", e.Op, e.Target, e.Timeout)
	if e.Target == "" {
		s = fmt.Sprintf("%s: timed out after %v", e.Op, e.Timeout)
	}
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (%d attempts)", e.Attempts)
	}
	if e.Last != nil {
		s += ": " + e.Last.Error()
	}
	return s
}

// Unwrap returns context.DeadlineExceeded and the last attempt's error.
func (e *TimeoutError) Unwrap() []error {
	if e.Last == nil {
		return []error{context.DeadlineExceeded}
	}
	return []error{context.DeadlineExceeded, e.Last}
}

// JSError is an exception the page's script threw.
type JSError struct {
	Op   string
	Text string // Chrome's text, e.g. "Uncaught TypeError: x is not a function"
	// Line and Column are 0-based, in the evaluated source.
	Line, Column int64
}

func (e *JSError) Error() string {
	return fmt.Sprintf("%s: the page threw: %s (line %d, column %d)", e.Op, e.Text, e.Line+1, e.Column+1)
}

// NavigationError is a navigation Chrome could not make (a network error,
// an aborted load, no page to go back to).
type NavigationError struct {
	Op   string
	URL  string
	Text string // Chrome's errorText, e.g. "net::ERR_CONNECTION_REFUSED"
	Err  error  // the failed command's error, if one failed
}

// Unwrap returns the failed command's error.
func (e *NavigationError) Unwrap() error { return e.Err }

func (e *NavigationError) Error() string {
	if e.URL == "" {
		return fmt.Sprintf("%s: %s", e.Op, e.Text)
	}
	return fmt.Sprintf("%s %s: %s", e.Op, e.URL, e.Text)
}

// DialogOpenError says that a JavaScript dialog blocks the page: nothing
// that runs in the page can happen until it is accepted or dismissed.
type DialogOpenError struct {
	Op     string
	Dialog Dialog
}

func (e *DialogOpenError) Error() string {
	return fmt.Sprintf("%s: a JavaScript %s is open (%q): accept or dismiss it first", e.Op, e.Dialog.Type, e.Dialog.Message)
}

// ctxErr returns why ctx ended: its cause when one was given (a closed tab),
// else its error.
func ctxErr(ctx context.Context) error {
	if c := context.Cause(ctx); c != nil {
		return c
	}
	return ctx.Err()
}
