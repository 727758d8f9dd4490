package service

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost"
	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/internal/server/trace"
	"github.com/egohost/egohost/internal/server/wireerr"
)

// Traces (docs/trace.md): while the owner records one (trace.start, or
// trace.enabled in the config), each call of the traced agents becomes a
// step of a file in <data_dir>/traces — the call as the audit log has it,
// and, for an action, a screenshot before and after, the element's box,
// the step's console errors and failed requests. s.call fills a step for
// every call (traceFor, traceCall); a page method's run adds the pictures
// of the calls that act on a tab (pagemethods.Methods.Run: traceBefore,
// traceAfter, into the call's trace.Notes). trace.Recorder starts, stops and prunes the files (the
// owner's trace methods: internal/server/ownermethods). With no trace
// on, a call pays one atomic load.

// TracesDir is the folder of the trace files in the data dir.
const TracesDir = egohost.TracesDir

// traceShotTimeout bounds a trace's screenshot (a tab that draws no frame
// gets none).
const traceShotTimeout = 3 * time.Second

// traceFor returns the trace that records the agent's call, nil when none
// does. The owner's and the person's own methods are never traced, nor
// the popup's calls (it asks every second); a trace of every agent
// leaves out the owner's CLI without a name (the person too).
func (s *Service) traceFor(a *agent, need pairing.Need) *trace.Recording {
	t := s.traces.Current()
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
func (s *Service) traceCall(t *trace.Recording, c *call, in rpcparams.Params, res any, err error, took time.Duration) {
	st := trace.Step{Call: s.callEntry(c, in, err, took)}
	if err != nil {
		st.Error = wireerr.Of(err).Message
	}
	st.Summary, st.Diff = trace.Summary(res, string(in.Members()["diff"]) == "true")
	if c.step != nil {
		c.step.Fill(&st)
	}
	if werr := t.W.Write(st); werr != nil {
		s.log.Warn("trace", "file", t.Status.File, "err", werr)
	}
}

// traceStep returns the call's step when a trace records it, nil
// otherwise.
func (c *call) traceStep() (*trace.Notes, pairing.Need) {
	if c.step == nil {
		return nil, 0
	}
	return c.step, c.need
}

// traceBefore takes the screenshot before an action on tc's tab.
func (s *Service) traceBefore(ctx context.Context, t *trace.Recording, st *trace.Notes, tc *tabContext) {
	if t.W.ShotsOn() {
		st.Before(traceShot(ctx, tc))
	}
}

// traceAfter takes the screenshot after an action (acted), and notes the
// console errors and failed requests of the tab since the step began.
func (s *Service) traceAfter(ctx context.Context, t *trace.Recording, st *trace.Notes, tc *tabContext, acted bool, since time.Time) {
	var shot *trace.Shot
	var why string
	if acted && t.W.ShotsOn() {
		shot, why = traceShot(ctx, tc)
	}
	var console, failed []string
	if rec := tc.link.Tabs.RecordOf(tc.tabID); rec != nil {
		msgs, _ := rec.ConsoleMessages("error", false, nil)
		reqs, _ := rec.NetworkRequests(true, false, nil)
		console, failed = trace.TabLog(msgs, reqs, since)
	}
	st.After(shot, why, console, failed)
}

// traceBox notes the element an action acted on.
func traceBox(c *call, b *actions.Box) {
	if st, _ := c.traceStep(); st != nil && b != nil {
		st.Box(trace.Box{X: b.X, Y: b.Y, W: b.Width, H: b.Height})
	}
}

// traceShot takes a JPEG of the tab's viewport, scaled to at most
// trace.ShotWidth pixels wide; nil and why when it takes none. A tab with
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
	scale := min(1, trace.ShotWidth/vv.ClientWidth)
	q := int64(trace.ShotQuality)
	res, err := cdp.Call(ctx, tc.page, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatJpeg, Quality: &q,
		Clip: &page.Viewport{X: vv.PageX, Y: vv.PageY, Width: vv.ClientWidth, Height: vv.ClientHeight, Scale: scale},
	})
	if err != nil {
		return nil, "no screenshot: " + err.Error()
	}
	shot, err := trace.NewShot(res.Data, vv.ClientWidth, vv.ClientHeight)
	if err != nil {
		return nil, "no screenshot: " + err.Error()
	}
	return shot, ""
}
