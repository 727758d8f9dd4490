package pairing

import (
	"errors"
	"os"
	"strconv"
	"strings"
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

// ScopeList is scopes as the messages write them: "read, act".
func ScopeList(scopes []Scope) string { return strings.Join(ScopeNames(scopes), ", ") }

// Wire is the process as agents and the popup see it (nil for none),
// saying whether it runs as another user than the service.
func (p *Process) Wire() *protocol.PeerProcess {
	if p == nil {
		return nil
	}
	return &protocol.PeerProcess{PID: p.PID, Exe: p.Exe, UID: p.UID, OtherUser: p.UID >= 0 && p.UID != os.Getuid()}
}

// AskError is the wire error of Ask's err: pairing_busy over the caps,
// pairing_denied (with its reason) when the person said no or nobody
// answered in time; any other err as it is.
func AskError(err error) error {
	switch {
	case errors.Is(err, ErrBusy):
		return protocol.Errorf(protocol.CodePairingBusy, "%v", err)
	case errors.Is(err, ErrDenied):
		return protocol.Errorf(protocol.CodePairingDenied, "%v", err).With("reason", "denied")
	case errors.Is(err, ErrExpired):
		return protocol.Errorf(protocol.CodePairingDenied, "%v", err).With("reason", "expired")
	}
	return err
}

// DecideRequest answers the request waiting for nameOrID (its agent's
// name or its ID) as the person or the owner's CLI decided. An approval
// that would replace the live pairing of the same name in store needs
// replace: the person saw that it does. It returns the request as
// answered (the name asked for, when none waits); its errors are
// invalid_params.
func DecideRequest(p *Pending, store *Store, nameOrID string, a Answer, replace bool) (Request, error) {
	req, ok := p.Find(nameOrID)
	if !ok {
		return Request{Name: nameOrID}, protocol.Errorf(protocol.CodeInvalidParams, "no pairing request waiting for %q (see `egohost agents list`)", nameOrID)
	}
	if old, paired := store.Live(req.Name); a.Approve && paired && !replace {
		return req, protocol.Errorf(protocol.CodeInvalidParams, "%s is paired already (since %s, scopes %s): approving this request replaces that pairing and revokes its token; approve it with replace (`egohost agents approve %s --yes --replace`, or the popup's Replace pairing button) if that is what you want",
			req.Name, old.Paired.Local().Format(time.DateTime), ScopeList(old.Scopes), req.Name).With("replaces", req.Name)
	}
	// By its id: a request that ended meanwhile is never confused with a
	// new one for the same name.
	got, err := p.Decide(req.ID, a)
	if errors.Is(err, ErrNoRequest) {
		return req, protocol.Errorf(protocol.CodeInvalidParams, "%v (it ended meanwhile; see `egohost agents list`)", err)
	}
	if err != nil {
		return req, protocol.Errorf(protocol.CodeInvalidParams, "%v", err)
	}
	return got, nil
}

// Wire is the pairing as agents.list and the popup show it, with the
// number of live connections with its token.
func (a Agent) Wire(connected int) protocol.PairedAgent {
	return protocol.PairedAgent{Name: a.Name, Scopes: ScopeNames(a.Scopes), Paired: a.Paired, Process: a.Process.Wire(), Revoked: a.Revoked, Connected: connected}
}

// Wire is the request as agents.list and the popup show it; replaces is
// the live pairing of the same name, if any.
func (r Request) Wire(replaces *protocol.PairedAgent) protocol.PairingRequest {
	return protocol.PairingRequest{ID: r.ID, Name: r.Name, Scopes: ScopeNames(r.Scopes), Process: r.Process.Wire(), Asked: r.Asked, Expires: r.Expires, Replaces: replaces}
}

// Notice tells the extension which requests wait: the popup lists them,
// the icon's badge counts them (none: no badge).
func Notice(pending []protocol.PairingRequest) protocol.PairingNotice {
	n := protocol.PairingNotice{Pending: pending}
	if len(pending) > 0 {
		n.Badge = strconv.Itoa(len(pending))
	}
	return n
}
