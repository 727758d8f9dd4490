package service

import (
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/egohost/egohost/protocol"
)

// A connection without a token may only ask to pair, and costs the
// service almost nothing (design §9): its messages are capped small, it
// has few requests in flight, anything but pair.request is refused without
// an audit line (counted instead, and summed up in the service log once a
// minute), and after a few refusals the connection is closed. Handshakes
// refused for a wrong or revoked token, a web page's Origin or a foreign
// Host are counted the same way.

const (
	// tokenlessReadLimit caps one message of a connection without a
	// token: a pair.request is a few hundred bytes.
	tokenlessReadLimit = 16 << 10
	// tokenlessInFlight caps its requests in flight.
	tokenlessInFlight = 4
	// tokenlessStrikes is how many refused calls close the connection.
	tokenlessStrikes = 8
	// tokenlessLogEvery is how often the refusals are summed up in the log.
	tokenlessLogEvery = time.Minute
)

// tokenless counts what connections without a valid token did.
type tokenless struct {
	conns      atomic.Int64 // connections without a token
	refused    atomic.Int64 // their calls refused
	handshakes atomic.Int64 // handshakes refused

	mu       sync.Mutex
	logged   time.Time
	lastSeen [2]int64 // refused and handshakes at the last log line
}

// stats are the counts since the service started.
func (t *tokenless) stats() *protocol.TokenlessStats {
	return &protocol.TokenlessStats{Connections: t.conns.Load(), Refused: t.refused.Load(), RefusedHandshakes: t.handshakes.Load()}
}

// flush logs what was refused since the last line, at most once per
// tokenlessLogEvery (the idle loop calls it every second).
func (t *tokenless) flush(now time.Time, log *slog.Logger) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if now.Sub(t.logged) < tokenlessLogEvery {
		return
	}
	seen := [2]int64{t.refused.Load(), t.handshakes.Load()}
	if seen == t.lastSeen {
		return
	}
	log.Warn("refused callers without a valid token (counted, not audited)", "calls", seen[0]-t.lastSeen[0], "handshakes", seen[1]-t.lastSeen[1])
	t.logged, t.lastSeen = now, seen
}

// refuseTokenless answers a call a connection without a token may not
// make: counted (strike), never audited.
func (s *Service) refuseTokenless(a *agent) error {
	s.strike(a)
	return protocol.Errorf(protocol.CodeUnauthorized, "this connection has no token: it may only ask to pair (pair.request, or `egohost pair --name NAME`)")
}

// strike counts a refused call of a connection without a token (a call
// it may not make, a bad or refused pair.request), and closes the
// connection at tokenlessStrikes. Other connections' refusals are not
// strikes.
func (s *Service) strike(a *agent) {
	if a.grant.kind != grantUnpaired {
		return
	}
	s.tokenless.refused.Add(1)
	if a.strikes.Add(1) >= tokenlessStrikes && a.stop != nil {
		a.Cut()
	}
}
