package ownermethods

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/internal/server/trace"
	"github.com/egohost/egohost/protocol"
)

// StartTrace starts recording the agents' calls (none: every agent's)
// into the traces folder's file out ("": one named for now).
func (m *Methods) StartTrace(agents []string, out string) (protocol.TraceStatus, error) {
	for _, n := range agents {
		if err := spaces.CheckName(n); err != nil {
			return protocol.TraceStatus{}, protocol.Errorf(protocol.CodeInvalidParams, "trace.start: agent %q: %v", n, err)
		}
	}
	return m.s.Traces().Start(agents, out, time.Now().UTC())
}

// TraceStart is trace.start: StartTrace.
func (m *Methods) TraceStart(ctx context.Context, _ Call, p protocol.TraceStartParams) (any, error) {
	return m.StartTrace(p.Agents, p.Out)
}

// TraceStop stops the trace being recorded.
func (m *Methods) TraceStop(ctx context.Context, _ Call, _ rpcparams.None) (any, error) {
	res, ok, err := m.s.Traces().Stop()
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "trace.stop: no trace is being recorded (start one with `egohost trace start`)")
	}
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "trace.stop: %v", err)
	}
	return res, nil
}

// TraceList lists the trace files, and the trace being recorded.
func (m *Methods) TraceList(ctx context.Context, _ Call, _ rpcparams.None) (any, error) {
	res := protocol.TraceListResult{Traces: []protocol.TraceFile{}}
	if t := m.s.Traces().Current(); t != nil {
		st := t.Status
		res.Recording = &st
	}
	var err error
	if res.Traces, err = trace.List(m.s.Traces().Dir()); err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "trace.list: %v", err)
	}
	return res, nil
}

// PopupTrace is the popup's view of the trace being recorded: whom it
// records, and given an agent, the viewer page of its last steps (the
// popup opens it in a tab).
func (m *Methods) PopupTrace(ctx context.Context, _ Popup, p protocol.PopupTraceParams) (any, error) {
	t := m.s.Traces().Current()
	if t == nil {
		return protocol.PopupTraceResult{}, nil
	}
	st := t.Status
	res := protocol.PopupTraceResult{Recording: &st}
	if p.Agent == "" {
		return res, nil
	}
	last := p.Last
	if last <= 0 {
		last = 10
	}
	last = min(last, 50)
	tr, err := t.LastSteps(p.Agent, last)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "popup.trace: %v", err)
	}
	var b strings.Builder
	if err := trace.WriteHTML(&b, tr, fmt.Sprintf("%s: %s's last %d steps", filepath.Base(st.File), p.Agent, len(tr.Steps))); err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "popup.trace: %v", err)
	}
	res.HTML, res.Steps = b.String(), len(tr.Steps)
	return res, nil
}
