package ownermethods

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/trace"
	"github.com/egohost/egohost/protocol"
)

// fakeService is a Service with real stores in a temporary folder; it
// keeps the audit lines, the cuts and the notices instead of acting.
type fakeService struct {
	pairs   *pairing.Store
	pending *pairing.Pending
	recent  *audit.Recent
	traces  *trace.Recorder
	dir     string

	conns      []protocol.AgentConnection
	revokedCut int // CutRevoked's answer
	revokes    int // CutRevoked's calls
	cut        []string
	cutIDs     []uint64
	audits     []audit.Entry
	notices    []protocol.PairingNotice
	// onNotice, when set, runs at each notice: the person answering.
	onNotice func(protocol.PairingNotice)
}

// newMethods returns methods over a fakeService whose pairing requests
// wait under lim.
func newMethods(t *testing.T, lim pairing.Limits) (*Methods, *fakeService) {
	t.Helper()
	m, f, err := newFake(t.TempDir(), lim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.traces.Stop() })
	return m, f
}

// newFake returns methods over a fakeService with its stores in dir.
func newFake(dir string, lim pairing.Limits) (*Methods, *fakeService, error) {
	pairs, err := pairing.Open(filepath.Join(dir, "agents.json"), time.Now)
	if err != nil {
		return nil, nil, err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	f := &fakeService{pairs: pairs, recent: audit.NewRecent(20), traces: trace.NewRecorder(filepath.Join(dir, "traces"), 0, 0, log), dir: dir, revokedCut: 1}
	m := New(f, log)
	f.pending = pairing.NewPending(lim, time.Now, m.PairingChanged)
	return m, f, nil
}

func (f *fakeService) Pairs() *pairing.Store                   { return f.pairs }
func (f *fakeService) Pending() *pairing.Pending               { return f.pending }
func (f *fakeService) Connections() []protocol.AgentConnection { return f.conns }
func (f *fakeService) AuditPath() string                       { return filepath.Join(f.dir, "audit.jsonl") }
func (f *fakeService) Recent() *audit.Recent                   { return f.recent }
func (f *fakeService) Traces() *trace.Recorder                 { return f.traces }

func (f *fakeService) ConnectedAs(tokenID string) int { return 2 }

func (f *fakeService) CutRevoked() int {
	f.revokes++
	return f.revokedCut
}

func (f *fakeService) Disconnect(agent string, ids []uint64) int {
	f.cut, f.cutIDs = append(f.cut, agent), ids
	return 3
}

func (f *fakeService) NotifyPairing(n protocol.PairingNotice) {
	f.notices = append(f.notices, n)
	if f.onNotice != nil && len(n.Pending) > 0 {
		f.onNotice(n)
	}
}

// Audit keeps the line as the service writes it: its result is "ok" or
// the error's code.
func (f *fakeService) Audit(who, method, target string, err error, fill func(*audit.Entry)) {
	e := audit.Entry{Agent: who, Method: method, Target: target, Result: "ok"}
	if err != nil {
		e.Result = codeOf(err).Name()
	}
	if fill != nil {
		fill(&e)
	}
	f.audits = append(f.audits, e)
}

// fakeCall is a Call of the connection named name.
type fakeCall struct {
	name    string
	strikes int
	ended   []string
	// scripted, closeFirst are ScriptedOwnTabs' answer.
	scripted, closeFirst []protocol.Target
}

func (c *fakeCall) AuditName() string { return c.name }
func (c *fakeCall) Strike()           { c.strikes++ }
func (c *fakeCall) Peer() *pairing.Process {
	return &pairing.Process{PID: 42, Exe: "/usr/bin/agent", UID: 1000}
}
func (c *fakeCall) EndSpaces(ctx context.Context, agent string) {
	c.ended = append(c.ended, agent)
}
func (c *fakeCall) ScriptedOwnTabs() (reload, closeFirst []protocol.Target) {
	return c.scripted, c.closeFirst
}

// fakePopup is the popup of browser "b1".
type fakePopup struct{}

func (fakePopup) Browser() string   { return "b1" }
func (fakePopup) AuditName() string { return "person" }

// codeOf is err's wire code (0 for nil, internal for one not the wire's).
func codeOf(err error) protocol.Code {
	if err == nil {
		return 0
	}
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return protocol.CodeInternal
}
