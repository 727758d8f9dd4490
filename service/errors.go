package service

import (
	"errors"

	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/snapshot"
)

// classify turns the page-level packages' errors into protocol errors with
// stable codes. Errors that already are protocol errors pass unchanged.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return err
	}
	switch {
	case errors.Is(err, snapshot.ErrStaleRef):
		return protocol.Errorf(protocol.CodeStaleRef, "%v", err).With("kind", "permanent")
	case errors.Is(err, snapshot.ErrUnknownRef):
		return protocol.Errorf(protocol.CodeUnknownRef, "%v", err).With("kind", "permanent")
	case errors.Is(err, snapshot.ErrNotRef):
		return protocol.Errorf(protocol.CodeInvalidParams, "%v", err)
	case errors.Is(err, snapshot.ErrGone):
		return protocol.Errorf(protocol.CodeNotFound, "%v", err).With("kind", "transient")
	}
	return err
}
