package pairing

import (
	"os"
	"time"

	"github.com/egohost/egohost/protocol"
)

// How long a pair.request waits for the person: by default, and at most.
const (
	DefaultWait = 2 * time.Minute
	MaxWait     = 10 * time.Minute
)

// CheckRequest validates a pair.request before anything waits: its name,
// its scopes (none: Space) and how long it may wait. Every failure is
// invalid_params.
func CheckRequest(p protocol.PairRequestParams) ([]Scope, time.Duration, error) {
	if err := CheckName(p.Name); err != nil {
		return nil, 0, protocol.Errorf(protocol.CodeInvalidParams, "pair.request: %v", err)
	}
	scopes, err := ParseScopes(p.Scopes)
	if err != nil {
		return nil, 0, protocol.Errorf(protocol.CodeInvalidParams, "pair.request: %v", err)
	}
	wait := DefaultWait
	switch {
	case p.WaitMs < 0 || p.WaitMs > int(MaxWait/time.Millisecond):
		return nil, 0, protocol.Errorf(protocol.CodeInvalidParams, "pair.request: waitMs must be between 0 and %d", MaxWait.Milliseconds())
	case p.WaitMs > 0:
		wait = time.Duration(p.WaitMs) * time.Millisecond
	}
	return scopes, wait, nil
}

// ScopeNames are the scopes as the wire names them.
func ScopeNames(scopes []Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

// Wire is the process as agents and the popup see it (nil for none),
// saying whether it runs as another user than the service.
func (p *Process) Wire() *protocol.PeerProcess {
	if p == nil {
		return nil
	}
	return &protocol.PeerProcess{PID: p.PID, Exe: p.Exe, UID: p.UID, OtherUser: p.UID >= 0 && p.UID != os.Getuid()}
}
