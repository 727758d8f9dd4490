package refmap

import (
	"errors"

	"github.com/egohost/egohost/internal/engine/locator"
)

// The errors of looking a target up, for errors.Is: the ref map's own,
// named here so the packages that make them (snapshot's Lookup, the
// resolver) and the ones that branch on them (actions, the service) share
// them without importing each other.
var (
	// ErrStaleRef: the ref names a node of a document that is gone (the
	// page or its frame navigated), or a node the latest snapshot no
	// longer has. Take a new snapshot.
	ErrStaleRef = errors.New("stale ref")
	// ErrUnknownRef: the tab never handed out this ref.
	ErrUnknownRef = errors.New("unknown ref")
	// ErrNotRef: the input is not a ref ("@12", "ref=12" or "12").
	ErrNotRef = errors.New("not a ref")
	// ErrGone: the element was removed from its (still current) document
	// after the snapshot. Lookup returns the entry with it, so a caller
	// may look for a unique element with the same role and name.
	ErrGone = errors.New("element removed from the page")
	// ErrNotFound: no element matches the target (yet).
	ErrNotFound = errors.New("no element matches")
	// ErrForeignRef is the cause when a target is a ref written the way
	// other tools write theirs (see ForeignRef).
	ErrForeignRef = locator.ErrForeignRef
)
