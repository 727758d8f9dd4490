// Package wireerr names the failures of the page engine (actions, the
// resolver, the snapshot, locators, the ref map, a tab's CDP session) and
// of the browser link (browserlink, the extension's error codes) on the
// agents' wire: the stable codes and kinds of PROTOCOL.md's error table,
// with the data each carries. It maps errors only: it calls nothing.
package wireerr

import (
	"context"
	"errors"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/engine/locator"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
	"github.com/egohost/egohost/resolver"
)

// Classify turns the errors of the page-level packages (actions,
// resolver, snapshot, locator, refmap) into protocol errors with stable
// codes and their kind (transient / permanent): the one mapping every
// handler uses. A protocol error from the browser link (tab closed,
// browser gone, …) wins over any wrapping: it says what really happened.
func Classify(err error) error {
	err = FromLink(err) // the browser link's errors, with the agents' codes
	var (
		pe *protocol.Error
		te *actions.TimeoutError
		na *actions.NotActionableError
		je *actions.JSError
		ne *actions.NavigationError
		de *actions.DialogOpenError
	)
	if errors.As(err, &pe) {
		switch pe.Code {
		case protocol.CodeTabNotFound, protocol.CodeDetached, protocol.CodeBrowserGone, protocol.CodeNoBrowser, protocol.CodeBrowserReconnecting:
			return pe // what really happened, whatever wrapped it
		}
	}
	var we *cdptab.WithheldError
	if errors.As(err, &we) {
		return withheldError(we) // a document the caller may not reach, met at the moment of acting
	}
	timedOut := errors.As(err, &te)
	withTimeout := func(e *protocol.Error) *protocol.Error {
		if timedOut {
			e.With("timeoutMs", te.Timeout.Milliseconds()).With("attempts", te.Attempts)
		}
		return e
	}
	var ce *actions.ChangedError
	switch {
	case errors.As(err, &ce):
		// The element the person confirmed changed while they were asked:
		// refused, never acted on another (internal/server/confirmmethods' Hook).
		return protocol.Errorf(protocol.CodeStaleRef, "%v", err).With("kind", "permanent").With("reason", "confirmed_element_changed")
	case errors.As(err, &de):
		return protocol.Errorf(protocol.CodeDialogOpen, "%v", err).With("dialog", de.Dialog)
	case errors.As(err, &na):
		e := protocol.Errorf(protocol.CodeNotActionable, "%v", err).With("kind", "transient").With("reason", string(na.Reason))
		if na.Cover != "" {
			e.With("cover", na.Cover)
		}
		if na.Element != "" {
			e.With("element", na.Element)
		}
		return withTimeout(e)
	case errors.As(err, &je):
		return protocol.Errorf(protocol.CodeJSException, "%v", err).With("exception", je.Text).With("line", je.Line+1).With("column", je.Column+1)
	case errors.As(err, &ne):
		return protocol.Errorf(protocol.CodeNavigation, "%v", err).With("errorText", ne.Text)
	case errors.Is(err, actions.ErrUnsupported):
		return protocol.Errorf(protocol.CodeUnsupported, "%v", err).With("kind", "permanent")
	case errors.Is(err, actions.ErrInvalid):
		return protocol.Errorf(protocol.CodeInvalidParams, "%v", err)
	case timedOut:
		if te.Last != nil {
			var c *protocol.Error
			if errors.As(pageError(te.Last), &c) && c.Code != protocol.CodeInternal && c.Code != protocol.CodeTimeout {
				e := protocol.Errorf(c.Code, "%v", err)
				for k, v := range c.Data {
					if k != "name" {
						e.With(k, v)
					}
				}
				return withTimeout(e)
			}
		}
		return withTimeout(protocol.Errorf(protocol.CodeTimeout, "%v", err))
	}
	return pageError(err)
}

// pageError is Classify's part for the resolver's, snapshot's, locator's
// and refmap's errors; it also names the last cause an action's timeout
// saw (as it is, not as an action's error).
func pageError(err error) error {
	if err == nil {
		return nil
	}
	err = FromLink(err)
	kind := "permanent"
	var re *resolver.Error
	if errors.As(err, &re) {
		kind = re.Kind.String()
	}
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Permanent() {
		return pe // the tab, its debugger or the browser went: that is what happened
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// The whole message: a wait's timeout names its target and the
		// last cause it saw, whatever the transport said at the deadline.
		e := protocol.Errorf(protocol.CodeTimeout, "%v", err).With("kind", "permanent")
		if re != nil {
			e.With("target", re.Target)
		}
		return e
	}
	if pe != nil {
		return err
	}
	var se *locator.SyntaxError
	code := protocol.CodeInternal
	switch {
	case errors.Is(err, refmap.ErrForeignRef):
		code = protocol.CodeForeignRef
	case errors.As(err, &se):
		return protocol.Errorf(protocol.CodeSyntax, "%v", err).With("offset", se.Offset).With("kind", "permanent")
	case errors.Is(err, snapshot.ErrStaleRef):
		code = protocol.CodeStaleRef
	case errors.Is(err, snapshot.ErrUnknownRef):
		code = protocol.CodeUnknownRef
	case errors.Is(err, snapshot.ErrNotRef):
		code = protocol.CodeInvalidParams
	case errors.Is(err, resolver.ErrAmbiguous):
		code = protocol.CodeAmbiguous
	case errors.Is(err, resolver.ErrNotFound), errors.Is(err, snapshot.ErrGone):
		code, kind = protocol.CodeNotFound, "transient"
	case errors.Is(err, resolver.ErrNoBox):
		code, kind = protocol.CodeNotActionable, "transient"
	case re != nil:
		code = protocol.CodeNotFound
		if re.Kind == resolver.Permanent {
			code = protocol.CodeInternal
		}
	default:
		return err
	}
	e := protocol.Errorf(code, "%v", err).With("kind", kind)
	if re != nil {
		e.With("target", re.Target)
		if re.Count > 0 {
			e.With("count", re.Count)
		}
	}
	return e
}

// withheldError is the agent's error for a document its Reach refused.
func withheldError(e *cdptab.WithheldError) *protocol.Error {
	origin := cdptab.OriginOf(e.URL, e.Origin)
	if e.Frame {
		return protocol.Errorf(protocol.CodeForbiddenOriginScope, "the target is in a frame showing %s, which this agent may not reach (%s): its content is withheld; take a new snapshot", origin, e.Why).
			With("origin", origin).With("rule", e.Why).With("reason", "frame").With("frame", true)
	}
	return protocol.Errorf(protocol.CodeForbiddenOriginScope, "the tab is on %s now, which this agent may not reach (%s): nothing was read or done there", origin, e.Why).
		With("origin", origin).With("rule", e.Why).With("reason", pairing.ReasonOf(e.Why))
}
