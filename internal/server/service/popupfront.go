package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"

	"github.com/egohost/egohost/internal/engine/locator"
	"github.com/egohost/egohost/internal/engine/overlay"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/readwire"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

// The popup as a person's front end (issue 12): the methods behind its
// highlight, locator tester, element picker and Stop-all switch. Every
// element is found by the service's resolver and named by its snapshot;
// the page only draws (package overlay).

func (s *Service) popupFrontHandlers() map[string]popupHandler {
	return map[string]popupHandler{
		protocol.MethodPopupHighlight:  popupTyped(s.popupHighlight),
		protocol.MethodPopupClear:      popupTyped(s.popupClear),
		protocol.MethodPopupPick:       popupTyped(s.popupPick),
		protocol.MethodPopupLastPick:   popupTyped(s.popupLastPick),
		protocol.MethodPopupAutomation: popupTyped(s.popupAutomation),
	}
}

// popupState is what the service keeps for the person at one browser
// (the Stop-all switch is the hub's: hub.Link.Stopped).
type popupState struct {
	mu   sync.Mutex
	pick *protocol.PopupPickResult // the latest pick
}

// popupTarget is the tab a popup method works on, in the popup's browser.
func popupTarget(l *link, tab int) protocol.Target {
	return protocol.Target{Browser: l.ID, Tab: tab}
}

func (s *Service) popupHighlight(ctx context.Context, l *link, p protocol.PopupHighlightParams) (any, error) {
	tc, err := s.tabContextWithin(ctx, l.personCall("popup.highlight"), popupTarget(l, p.Tab), "popup.highlight", 0)
	if err != nil {
		return nil, err
	}
	res := protocol.PopupHighlightResult{Tab: tc.tabID, Matches: []protocol.PopupHighlight{}}
	var boxes []overlay.Box
	for _, target := range p.Targets {
		if strings.TrimSpace(target) == "" {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "popup.highlight: an empty target").With("offset", 0)
		}
		ms, err := tc.res.All(ctx, target)
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
	if err := overlay.Show(ctx, tc.page, boxes); err != nil {
		return nil, wireerr.Classify(err)
	}
	return res, nil
}

func (s *Service) popupClear(ctx context.Context, l *link, p protocol.PopupTabParams) (any, error) {
	if p.Tab != 0 && !l.Tabs.HasPage(p.Tab) {
		// Not attached since (or ever): nothing drawn there, and no reason to attach now.
		return struct {
			Cleared bool `json:"cleared"`
		}{true}, nil
	}
	tc, err := s.tabContextWithin(ctx, l.personCall("popup.clear"), popupTarget(l, p.Tab), "popup.clear", 0)
	if err != nil {
		return nil, err
	}
	if err := overlay.Clear(ctx, tc.page); err != nil {
		return nil, wireerr.Classify(err)
	}
	return struct {
		Cleared bool `json:"cleared"`
	}{true}, nil
}

// popupPick lets the person pick an element in the tab (Chrome's inspect
// mode), then names it: the best locator that matches it alone, and its
// ref. The popup usually closes when the person clicks into the page, so
// the result is also kept (popup.lastPick) and pushed as a pick notice.
func (s *Service) popupPick(ctx context.Context, l *link, p protocol.PopupTabParams) (any, error) {
	tc, err := s.tabContextWithin(ctx, l.personCall("popup.pick"), popupTarget(l, p.Tab), "popup.pick", 0)
	if err != nil {
		return nil, err
	}
	picked, err := overlay.Pick(ctx, tc.page)
	res := &protocol.PopupPickResult{Tab: tc.tabID, Candidates: []protocol.PickCandidate{}}
	switch {
	case errors.Is(err, overlay.ErrCancelled):
		res.Cancelled = true
	case err != nil:
		return nil, wireerr.Classify(err)
	default:
		if err := s.namePicked(ctx, tc, picked, res); err != nil {
			return nil, wireerr.Classify(err)
		}
	}
	res.At = time.Now().UnixMilli()
	if !res.Cancelled {
		l.popup.mu.Lock()
		l.popup.pick = res
		l.popup.mu.Unlock()
		if err := l.Notify(protocol.NoticePick, res); err != nil {
			s.log.Warn("pick notice", "browser", l.ID, "err", err)
		}
	}
	return res, nil
}

func (s *Service) popupLastPick(ctx context.Context, l *link, _ rpcparams.None) (any, error) {
	l.popup.mu.Lock()
	defer l.popup.mu.Unlock()
	return protocol.PopupLastPickResult{Pick: l.popup.pick}, nil
}

// popupAutomation reads or sets the Stop-all switch of the popup's
// browser. The extension has already detached every tab and refuses new
// attaches (extension/automation.js); the service refuses the calls.
func (s *Service) popupAutomation(ctx context.Context, l *link, p protocol.PopupAutomationParams) (any, error) {
	if p.Stopped != nil {
		l.SetStopped(*p.Stopped)
		s.log.Info("automation switched by the person", "browser", l.ID, "stopped", *p.Stopped)
		target := "stop all"
		if !*p.Stopped {
			target = "resume all"
		}
		s.auditDecision(personName, protocol.MethodPopupAutomation, target, nil, func(e *audit.Entry) { e.Browser = l.ID })
	}
	return protocol.PopupAutomationResult{Stopped: l.Stopped()}, nil
}

// namePicked fills in res for the picked element: its role, name, box and
// ref, and the candidates in rank order, each checked by the resolver.
func (s *Service) namePicked(ctx context.Context, tc *tabContext, picked overlay.Picked, res *protocol.PopupPickResult) error {
	node, err := cdp.Call(ctx, tc.page, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: picked.BackendNodeID})
	if err != nil {
		return fmt.Errorf("name the picked element: %w", err)
	}
	var flat []string
	if node.Node != nil {
		flat = node.Node.Attributes
	}
	// Chrome's role and name, and the box, from the CSS path (unique in
	// its document by construction, and checked here).
	if picked.CSS != "" {
		if ms, err := tc.res.All(ctx, "css="+picked.CSS); err == nil {
			for _, m := range ms {
				if m.BackendNodeID == picked.BackendNodeID {
					res.Role, res.Name = m.Role, m.Name
					res.Box = readwire.Box(m.Box)
				}
			}
		}
	}
	var tag string
	if node.Node != nil {
		tag = strings.ToLower(node.Node.LocalName)
	}
	var fallback string // the first candidate that matches it among others, with nth=
	for _, lc := range locator.Candidates(locator.Element{Tag: tag, Role: res.Role, Name: res.Name, Text: picked.Text, CSS: picked.CSS, Attrs: readwire.Attrs(flat)}) {
		c := protocol.PickCandidate{Kind: lc.Kind, Locator: lc.Locator}
		ms, err := tc.res.All(ctx, c.Locator)
		if err != nil {
			continue // a candidate that does not resolve is not offered
		}
		c.Count = len(ms)
		c.Unique = len(ms) == 1 && ms[0].BackendNodeID == picked.BackendNodeID
		if c.Unique && res.Locator == "" {
			res.Locator = c.Locator
		}
		if i := slices.IndexFunc(ms, func(m resolver.Match) bool { return m.BackendNodeID == picked.BackendNodeID }); i >= 0 && fallback == "" {
			fallback = fmt.Sprintf("%s >> nth=%d", c.Locator, i)
		}
		res.Candidates = append(res.Candidates, c)
	}
	if res.Locator == "" {
		res.Locator = fallback
	}
	res.Ref = pickedRef(ctx, tc.snap, picked.BackendNodeID)
	if u, err := topURL(ctx, tc.page); err == nil {
		res.URL = u
	}
	return nil
}

// pickedRef is the element's ref in the tab's latest snapshot, taking a
// full snapshot when the latest has none for it (refs stay the same across
// snapshots, so agents' refs keep working); "" when it gets none.
func pickedRef(ctx context.Context, tab *snapshot.Tab, id cdp.BackendNodeID) string {
	find := func(snap *snapshot.Snapshot) string {
		if snap == nil {
			return ""
		}
		entries, err := tab.Resolve(ctx, snap.Entries)
		if err != nil {
			return ""
		}
		for _, e := range entries {
			if e.BackendNodeID == id {
				return "@" + e.Ref
			}
		}
		return ""
	}
	if ref := find(tab.Previous()); ref != "" {
		return ref
	}
	snap, err := tab.Snapshot(ctx, snapshot.Options{})
	if err != nil {
		return ""
	}
	return find(snap)
}
