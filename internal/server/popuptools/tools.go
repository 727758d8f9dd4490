package popuptools

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/egohost/egohost/internal/engine/overlay"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/readwire"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// Highlight is popup.highlight: it boxes every element each target
// finds, replacing the boxes drawn before.
func (m *Methods) Highlight(ctx context.Context, pp Popup, p protocol.PopupHighlightParams) (any, error) {
	t, err := pp.Tab(ctx, "popup.highlight", p.Tab)
	if err != nil {
		return nil, err
	}
	res := protocol.PopupHighlightResult{Tab: t.ID(), Matches: []protocol.PopupHighlight{}}
	var boxes []overlay.Box
	for _, target := range p.Targets {
		if strings.TrimSpace(target) == "" {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "popup.highlight: an empty target").With("offset", 0)
		}
		ms, err := t.Resolver().All(ctx, target)
		if err != nil {
			return nil, wireerr.Classify(err)
		}
		for i, m := range ms {
			h, box := readwire.Highlight(target, i, len(ms), m)
			if box != nil {
				boxes = append(boxes, *box)
			}
			res.Matches = append(res.Matches, h)
		}
	}
	res.Count = len(res.Matches)
	if err := overlay.Show(ctx, t.Page(), boxes); err != nil {
		return nil, wireerr.Classify(err)
	}
	return res, nil
}

// Clear is popup.clear: the boxes go.
func (m *Methods) Clear(ctx context.Context, pp Popup, p protocol.PopupTabParams) (any, error) {
	if p.Tab != 0 && !pp.Attached(p.Tab) {
		// Not attached since (or ever): nothing drawn there, and no reason to attach now.
		return struct {
			Cleared bool `json:"cleared"`
		}{true}, nil
	}
	t, err := pp.Tab(ctx, "popup.clear", p.Tab)
	if err != nil {
		return nil, err
	}
	if err := overlay.Clear(ctx, t.Page()); err != nil {
		return nil, wireerr.Classify(err)
	}
	return struct {
		Cleared bool `json:"cleared"`
	}{true}, nil
}

// Pick is popup.pick: the person picks an element in the tab (Chrome's
// inspect mode), and Name names it: the best locator that matches it
// alone, and its ref. The popup usually closes when the person clicks
// into the page, so the result is also kept (LastPick) and pushed as a
// pick notice.
func (m *Methods) Pick(ctx context.Context, pp Popup, p protocol.PopupTabParams) (any, error) {
	t, err := pp.Tab(ctx, "popup.pick", p.Tab)
	if err != nil {
		return nil, err
	}
	picked, err := overlay.Pick(ctx, t.Page())
	res := &protocol.PopupPickResult{Tab: t.ID(), Candidates: []protocol.PickCandidate{}}
	switch {
	case errors.Is(err, overlay.ErrCancelled):
		res.Cancelled = true
	case err != nil:
		return nil, wireerr.Classify(err)
	default:
		if err := m.Name(ctx, t, picked, res); err != nil {
			return nil, wireerr.Classify(err)
		}
	}
	res.At = time.Now().UnixMilli()
	if !res.Cancelled {
		pp.Latest().Set(res)
		if err := pp.Notify(protocol.NoticePick, res); err != nil {
			m.log.Warn("pick notice", "browser", pp.Browser(), "err", err)
		}
	}
	return res, nil
}

// LastPick is popup.lastPick: the browser's latest pick.
func (m *Methods) LastPick(ctx context.Context, pp Popup, _ rpcparams.None) (any, error) {
	return protocol.PopupLastPickResult{Pick: pp.Latest().Get()}, nil
}

// Automation is popup.automation: it reads or sets the Stop-all switch of
// the popup's browser. The extension has already detached every tab and
// refuses new attaches (extension/automation.js); the service refuses the
// calls.
func (m *Methods) Automation(ctx context.Context, pp Popup, p protocol.PopupAutomationParams) (any, error) {
	if p.Stopped != nil {
		pp.SetStopped(*p.Stopped)
		m.log.Info("automation switched by the person", "browser", pp.Browser(), "stopped", *p.Stopped)
		target := "stop all"
		if !*p.Stopped {
			target = "resume all"
		}
		m.s.Audit(pp.AuditName(), protocol.MethodPopupAutomation, target, nil, func(e *audit.Entry) { e.Browser = pp.Browser() })
	}
	return protocol.PopupAutomationResult{Stopped: pp.Stopped()}, nil
}
