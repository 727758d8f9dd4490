package service

import (
	"context"
	"errors"

	"github.com/egohost/egohost/locator"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
	"github.com/egohost/egohost/resolver"
	"github.com/egohost/egohost/snapshot"
)

// classify turns the page-level packages' errors into protocol errors with
// stable codes and their kind (transient / permanent). A protocol error
// from the browser link (tab closed, browser gone, …) wins over the
// resolver's wrapping: it says what really happened.
func classify(err error) error {
	if err == nil {
		return nil
	}
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
