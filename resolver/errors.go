package resolver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/egohost/egohost/refmap"
)

// Kind classifies a resolution error: can waiting help?
type Kind uint8

// The kinds of resolution error.
const (
	// Transient: not there yet (no match, not rendered): retry until the
	// timeout.
	Transient Kind = iota + 1
	// Permanent: retrying cannot help (ambiguous, invalid syntax, stale
	// ref): fail at once.
	Permanent
)

// String returns "transient" or "permanent".
func (k Kind) String() string {
	switch k {
	case Transient:
		return "transient"
	case Permanent:
		return "permanent"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Sentinel causes, for errors.Is.
var (
	// ErrNotFound: nothing matches (yet). Transient. It is
	// refmap.ErrNotFound.
	ErrNotFound = refmap.ErrNotFound
	// ErrAmbiguous: several elements match a single-element request
	// without nth / last. Permanent.
	ErrAmbiguous = errors.New("several elements match")
	// ErrNoBox: the element exists but has no box to point at (not
	// rendered, hidden or empty). Transient.
	ErrNoBox = errors.New("element has no box (not rendered, hidden or zero-sized)")
	// ErrStaleRef: the ref names a node of a document that is gone. It is
	// refmap.ErrStaleRef (snapshot.ErrStaleRef too). Permanent.
	ErrStaleRef = refmap.ErrStaleRef
	// ErrNoRefs: a ref was given to a Resolver without a ref map.
	ErrNoRefs = errors.New("refs are not available here")
)

// Error is the one error type of the resolver. Callers branch on Kind with
// errors.As, and on the cause with errors.Is (ErrNotFound, ErrAmbiguous,
// ErrNoBox, ErrStaleRef, *locator.SyntaxError, context.DeadlineExceeded…).
type Error struct {
	Kind   Kind
	Op     string // "parse", "lookup", "resolve", "box", "object", "wait", …
	Target string // the ref or locator as the caller gave it
	Count  int    // how many elements matched, when it is known (else 0)
	Err    error
}

// Error returns "OP TARGET: cause".
func (e *Error) Error() string {
	return e.Op + " " + e.Target + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// IsTransient reports whether err is a resolution error that waiting may
// cure.
func IsTransient(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == Transient
}

// cause is an error with its own message that still matches a sentinel.
type cause struct {
	msg string
	err error
}

func (c *cause) Error() string { return c.msg }
func (c *cause) Unwrap() error { return c.err }

func causef(sentinel error, format string, args ...any) error {
	return &cause{msg: fmt.Sprintf(format, args...), err: sentinel}
}

// timeoutError is a wait that ran out of time: it matches both the
// context's error and the last attempt's.
type timeoutError struct {
	ctxErr   error
	last     error
	elapsed  time.Duration
	attempts int
}

func (t *timeoutError) Error() string {
	return fmt.Sprintf("%v after %v (%d attempts); last error: %v", t.ctxErr, t.elapsed.Round(time.Millisecond), t.attempts, t.last)
}

func (t *timeoutError) Unwrap() []error { return []error{t.ctxErr, t.last} }

// permanenter is an error that knows retrying cannot cure it, such as the
// transport's "the tab was closed" or "the browser disconnected".
type permanenter interface{ Permanent() bool }

// classify wraps a failed CDP call or lookup: the context's own end and an
// error that says it is permanent stay permanent; anything else is
// transient (the page may be navigating).
func classify(op, target string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	kind := Transient
	var p permanenter
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &p) && p.Permanent()) {
		kind = Permanent
	}
	return &Error{Kind: kind, Op: op, Target: target, Err: err}
}
