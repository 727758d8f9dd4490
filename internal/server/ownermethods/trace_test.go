package ownermethods

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/protocol"
)

// trace.start checks the agents' names; trace.stop needs a trace; the
// list and the popup show the one recording and the files.
func TestTraceMethods(t *testing.T) {
	ctx := context.Background()
	m, f := newMethods(t, pairing.DefaultLimits)
	c := &fakeCall{name: "owner"}
	for _, bad := range []string{"", "no spaces", "-dash"} {
		if _, err := m.TraceStart(ctx, c, protocol.TraceStartParams{Agents: []string{bad}}); codeOf(err) != protocol.CodeInvalidParams {
			t.Errorf("start for agent %q: got %v, want invalid_params", bad, err)
		}
	}
	if _, err := m.TraceStop(ctx, c, rpcparams.None{}); codeOf(err) != protocol.CodeInvalidParams || !strings.Contains(err.Error(), "no trace is being recorded") {
		t.Errorf("stop with none: got %v, want invalid_params", err)
	}
	res, err := m.PopupTrace(ctx, fakePopup{}, protocol.PopupTraceParams{Agent: "bot"})
	if err != nil || res.(protocol.PopupTraceResult).Recording != nil {
		t.Errorf("popup with none: got %+v, %v, want nothing recording", res, err)
	}

	res, err = m.TraceStart(ctx, c, protocol.TraceStartParams{Agents: []string{"bot"}, Out: "t1"})
	if err != nil {
		t.Fatal(err)
	}
	if st := res.(protocol.TraceStatus); st.File != filepath.Join(f.dir, "traces", "t1.jsonl") {
		t.Errorf("got file %s, want t1.jsonl in the traces folder", st.File)
	}
	res, err = m.TraceList(ctx, c, rpcparams.None{})
	if l := res.(protocol.TraceListResult); err != nil || l.Recording == nil || len(l.Traces) != 1 {
		t.Errorf("list while recording: got %+v, %v, want t1 recording", l, err)
	}
	res, err = m.PopupTrace(ctx, fakePopup{}, protocol.PopupTraceParams{Agent: "bot"})
	if p := res.(protocol.PopupTraceResult); err != nil || p.Recording == nil || p.Steps != 0 || !strings.Contains(p.HTML, "last 0 steps") {
		t.Errorf("popup while recording: got %+v, %v, want the viewer of bot's 0 steps", p, err)
	}
	if _, err := m.TraceStop(ctx, c, rpcparams.None{}); err != nil {
		t.Fatalf("stop: %v", err)
	}
	res, err = m.TraceList(ctx, c, rpcparams.None{})
	if l := res.(protocol.TraceListResult); err != nil || l.Recording != nil || len(l.Traces) != 1 || l.Traces[0].Name != "t1.jsonl" {
		t.Errorf("list after: got %+v, %v, want t1.jsonl, none recording", l, err)
	}
}

// audit.tail of a log not written yet: no entries (an empty list), and
// its bounds are the log's (audit.TailFilter).
func TestAuditTail(t *testing.T) {
	m, _ := newMethods(t, pairing.DefaultLimits)
	res, err := m.AuditTail(context.Background(), &fakeCall{}, protocol.AuditTailParams{})
	if r := res.(protocol.AuditTailResult); err != nil || r.Entries == nil || len(r.Entries) != 0 {
		t.Errorf("got %+v, %v, want no entries", r, err)
	}
	if _, err := m.AuditTail(context.Background(), &fakeCall{}, protocol.AuditTailParams{Limit: 1001}); codeOf(err) != protocol.CodeInvalidParams {
		t.Errorf("limit 1001: got %v, want invalid_params", err)
	}
}
