package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/jpeg"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost"
	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/internal/server/trace"
	"github.com/egohost/egohost/protocol"
)

// Traces (docs/trace.md): while the owner records one (trace.start, or
// trace.enabled in the config), each call of the traced agents becomes a
// step of a file in <data_dir>/traces — the call as the audit log has it,
// and, for an action, a screenshot before and after, the element's box,
// the step's console errors and failed requests. s.call fills a step for
// every call (traceFor, traceCall); withRunnerOnce adds the pictures of
// the calls that act on a tab (traceBefore, traceAfter). With no trace
// on, a call pays one atomic load.

// TracesDir is the folder of the trace files in the data dir.
const TracesDir = egohost.TracesDir

// Trace screenshots: JPEG, at most traceShotWidth pixels wide, each
// bounded by traceShotTimeout (a tab that draws no frame gets none).
const (
	traceShotWidth   = 800
	traceShotQuality = 60
	traceShotTimeout = 3 * time.Second
)

// traceStep is what a call's tab work adds to its step.
type traceStep struct {
	mu            sync.Mutex
	noShot        string // why a picture was not taken
	before, after *trace.Shot
	box           *trace.Box
	console       []string
	failed        []string
}

// traceFor returns the trace that records the agent's call, nil when none
// does. The owner's and the person's own methods are never traced, nor
// the popup's calls (it asks every second); a trace of every agent
// leaves out the owner's CLI without a name (the person too).
func (s *Service) traceFor(a *agent, need pairing.Need) *trace.Recording {
	t := s.tracer.Load()
	if t == nil || need >= pairing.NeedOwner || a.person {
		return nil
	}
	if t.EveryAgent() {
		if a.grant.kind == grantOwner && a.agentName() == "" {
			return nil
		}
	} else if !t.Records(a.auditName()) {
		return nil
	}
	return t
}

// traceCall writes the call's step.
func (s *Service) traceCall(t *trace.Recording, c *call, in params, res any, err error, took time.Duration) {
	st := trace.Step{Call: s.callEntry(c, in, err, took)}
	if err != nil {
		st.Error = agentError(err).Message
	}
	st.Summary, st.Diff = resultWords(res, in)
	if c.step != nil {
		c.step.mu.Lock()
		st.Before, st.After, st.Box = c.step.before, c.step.after, c.step.box
		st.Console, st.Failed, st.NoShot = c.step.console, c.step.failed, c.step.noShot
		c.step.mu.Unlock()
	}
	if werr := t.W.Write(st); werr != nil {
		s.log.Warn("trace", "file", t.Status.File, "err", werr)
	}
}

// resultWords says in words what a call answered, and gives a diff
// snapshot's text. Values the page or the agent chose (an eval's value, a
// field's text) are left out.
func resultWords(res any, in params) (summary, diff string) {
	switch r := res.(type) {
	case protocol.ActionResult:
		summary = r.Element
		if r.Settled.URL != "" {
			summary += " → " + stripQuery(r.Settled.URL)
		}
	case protocol.NavResult:
		summary = fmt.Sprintf("%s “%s”", stripQuery(r.URL), r.Title)
	case protocol.TabResult:
		summary = fmt.Sprintf("tab %d: %s “%s”", r.Tab.ID, stripQuery(r.Tab.URL), r.Tab.Title)
	case protocol.SnapshotResult:
		summary = fmt.Sprintf("%s “%s”", stripQuery(r.URL), r.Title)
		if d, _ := in.members["diff"]; string(d) == "true" {
			diff = r.Text
		}
	case protocol.WaitResult:
		summary = r.What
	}
	return summary, diff
}

// traceStep returns the call's step when a trace records it, nil
// otherwise.
func (c *call) traceStep() (*traceStep, pairing.Need) {
	if c.step == nil {
		return nil, 0
	}
	return c.step, c.need
}

// traceBefore takes the screenshot before an action on tc's tab.
func (s *Service) traceBefore(ctx context.Context, t *trace.Recording, st *traceStep, tc *tabContext) {
	if !t.W.ShotsOn() {
		return
	}
	shot, why := traceShot(ctx, tc)
	st.mu.Lock()
	if st.before == nil { // a retried run keeps the first picture
		st.before = shot
	}
	if why != "" {
		st.noShot = why
	}
	st.mu.Unlock()
}

// traceAfter takes the screenshot after an action (acted), and notes the
// console errors and failed requests of the tab since the step began.
func (s *Service) traceAfter(ctx context.Context, t *trace.Recording, st *traceStep, tc *tabContext, acted bool, since time.Time) {
	var shot *trace.Shot
	var why string
	if acted && t.W.ShotsOn() {
		shot, why = traceShot(ctx, tc)
	}
	console, failed := stepRecord(tc, since)
	st.mu.Lock()
	if shot != nil {
		st.after = shot
	}
	if why != "" {
		st.noShot = why
	}
	st.console, st.failed = console, failed
	st.mu.Unlock()
}

// traceBox notes the element an action acted on.
func traceBox(c *call, b *actions.Box) {
	st, _ := c.traceStep()
	if st == nil || b == nil {
		return
	}
	st.mu.Lock()
	st.box = &trace.Box{X: b.X, Y: b.Y, W: b.Width, H: b.Height}
	st.mu.Unlock()
}

// traceShot takes a JPEG of the tab's viewport, scaled to at most
// traceShotWidth pixels wide; nil and why when it takes none. A tab with
// a dialog open or in the background draws no frame: a capture would
// wait for one (actions.Runner.Screenshot's captureHidden), so a trace
// takes none there rather than slow the agent's call.
func traceShot(ctx context.Context, tc *tabContext) (*trace.Shot, string) {
	if tc.link.Tabs.Dialog(tc.tabID) != nil {
		return nil, "no screenshot: a dialog was open"
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), traceShotTimeout)
	defer cancel()
	yes := true
	hidden, err := cdp.Call(ctx, tc.page, cdpruntime.Evaluate, cdpruntime.EvaluateParams{Expression: "document.hidden", ReturnByValue: &yes})
	if err != nil {
		return nil, "no screenshot: " + err.Error()
	}
	if hidden.Result != nil && string(hidden.Result.Value) == "true" {
		return nil, "no screenshot: the tab was in the background"
	}
	m, err := cdp.Call(ctx, tc.page, page.GetLayoutMetrics, cdp.Empty{})
	if err != nil || m.CSSVisualViewport == nil || m.CSSVisualViewport.ClientWidth < 1 || m.CSSVisualViewport.ClientHeight < 1 {
		return nil, "no screenshot: the tab reports no viewport"
	}
	vv := m.CSSVisualViewport
	scale := min(1, traceShotWidth/vv.ClientWidth)
	q := int64(traceShotQuality)
	res, err := cdp.Call(ctx, tc.page, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatJpeg, Quality: &q,
		Clip: &page.Viewport{X: vv.PageX, Y: vv.PageY, Width: vv.ClientWidth, Height: vv.ClientHeight, Scale: scale},
	})
	if err != nil {
		return nil, "no screenshot: " + err.Error()
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(res.Data))
	if err != nil {
		return nil, "no screenshot: Chrome's image: " + err.Error()
	}
	return &trace.Shot{JPEG: res.Data, Width: cfg.Width, Height: cfg.Height, ViewW: vv.ClientWidth, ViewH: vv.ClientHeight}, ""
}

// stepRecord returns the console errors and the failed requests (a
// network error, or a status of 400 or more) of the tab since a time.
func stepRecord(tc *tabContext, since time.Time) (console, failed []string) {
	rec := tc.link.Tabs.RecordOf(tc.tabID)
	if rec == nil {
		return nil, nil
	}
	from := float64(since.UnixMilli())
	msgs, _ := rec.ConsoleMessages("error", false, nil)
	for _, m := range msgs {
		if m.Time >= from {
			console = append(console, m.Type+": "+m.Text)
		}
	}
	reqs, _ := rec.NetworkRequests(true, false, nil)
	for _, r := range reqs {
		if r.Time < from {
			continue
		}
		switch {
		case r.Failed != "":
			failed = append(failed, fmt.Sprintf("%s %s: %s", r.Method, stripQuery(r.URL), r.Failed))
		case r.Status >= 400:
			failed = append(failed, fmt.Sprintf("%s %s: %d %s", r.Method, stripQuery(r.URL), r.Status, r.StatusText))
		}
	}
	return console, failed
}

// startTrace starts recording the agents' calls (none: every agent's)
// into <data_dir>/traces/out.
func (s *Service) startTrace(agents []string, out string) (protocol.TraceStatus, error) {
	for _, n := range agents {
		if err := spaces.CheckName(n); err != nil {
			return protocol.TraceStatus{}, protocol.Errorf(protocol.CodeInvalidParams, "trace.start: agent %q: %v", n, err)
		}
	}
	now := time.Now().UTC()
	name, ok := trace.FileName(out, now)
	if !ok {
		return protocol.TraceStatus{}, protocol.Errorf(protocol.CodeInvalidParams, "trace.start: out %q must be a plain file name (it goes in the data dir's %s folder)", audit.Cut(out), TracesDir)
	}
	s.traceMu.Lock()
	defer s.traceMu.Unlock()
	if t := s.tracer.Load(); t != nil {
		return protocol.TraceStatus{}, protocol.Errorf(protocol.CodeInvalidParams, "trace.start: a trace is being recorded already (%s): stop it first (`egohost trace stop`)", t.Status.File)
	}
	dir := filepath.Join(s.opts.DataDir, TracesDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return protocol.TraceStatus{}, protocol.Errorf(protocol.CodeInternal, "trace.start: %v", err)
	}
	s.pruneTraces(now)
	path := filepath.Join(dir, name)
	w, err := trace.Create(path, trace.Header{Agents: agents}, s.opts.TraceMaxBytes)
	if errors.Is(err, fs.ErrExist) {
		return protocol.TraceStatus{}, protocol.Errorf(protocol.CodeForbiddenPath, "trace.start: %s exists: name another file", path).With("path", path).With("reason", "exists")
	} else if err != nil {
		return protocol.TraceStatus{}, protocol.Errorf(protocol.CodeInternal, "trace.start: %v", err)
	}
	t := trace.NewRecording(w, path, agents, now)
	s.tracer.Store(t)
	s.log.Info("trace started", "file", path, "agents", strings.Join(agents, ","))
	return t.Status, nil
}

// stopTrace ends the trace being recorded; ok is false when none was.
func (s *Service) stopTrace() (protocol.TraceStopResult, bool, error) {
	s.traceMu.Lock()
	defer s.traceMu.Unlock()
	t := s.tracer.Swap(nil)
	if t == nil {
		return protocol.TraceStopResult{}, false, nil
	}
	end, err := t.W.Close()
	return protocol.TraceStopResult{File: t.Status.File, Steps: end.Steps, Bytes: end.Bytes, Dropped: end.Dropped}, true, err
}

func (s *Service) traceStart(ctx context.Context, c *call, p protocol.TraceStartParams) (any, error) {
	return s.startTrace(p.Agents, p.Out)
}

func (s *Service) traceStop(ctx context.Context, c *call, _ noParams) (any, error) {
	res, ok, err := s.stopTrace()
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "trace.stop: no trace is being recorded (start one with `egohost trace start`)")
	}
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "trace.stop: %v", err)
	}
	return res, nil
}

func (s *Service) traceList(ctx context.Context, c *call, _ noParams) (any, error) {
	res := protocol.TraceListResult{Traces: []protocol.TraceFile{}}
	if t := s.tracer.Load(); t != nil {
		st := t.Status
		res.Recording = &st
	}
	var err error
	if res.Traces, err = trace.List(filepath.Join(s.opts.DataDir, TracesDir)); err != nil {
		return nil, protocol.Errorf(protocol.CodeInternal, "trace.list: %v", err)
	}
	return res, nil
}

// popupTrace is the popup's view of the trace being recorded: whom it
// records, and given an agent, the viewer page of its last steps (the
// popup opens it in a tab).
func (s *Service) popupTrace(ctx context.Context, l *link, p protocol.PopupTraceParams) (any, error) {
	t := s.tracer.Load()
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

// pruneTraces deletes the traces older than trace.max_age (none when it
// is 0), as the service starts and as a trace starts (under traceMu, so
// never the one being written), and logs what it deleted.
func (s *Service) pruneTraces(now time.Time) {
	if s.opts.TraceMaxAge <= 0 {
		return
	}
	dir := filepath.Join(s.opts.DataDir, TracesDir)
	var keep string
	if t := s.tracer.Load(); t != nil {
		keep = filepath.Base(t.Status.File)
	}
	deleted, err := trace.Prune(dir, now.Add(-s.opts.TraceMaxAge), keep)
	for _, d := range deleted {
		s.log.Info("trace deleted: older than trace.max_age", "file", filepath.Join(dir, d.Name), "modified", d.Modified.UTC().Format(time.RFC3339), "max_age", s.opts.TraceMaxAge.String())
	}
	if err != nil {
		s.log.Warn("trace.max_age: delete old traces", "dir", dir, "err", err)
	}
}
