package service

import (
	"context"
	"time"

	"github.com/egohost/egohost/internal/engine/overlay"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/readwire"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

// locators names an element for an agent the way the popup's picker
// names the element a person clicked (popuptools.Methods.Name): the
// candidate locators in rank order, each checked by the resolver, the best
// one that matches it alone, and its ref.
func (s *Service) locators(ctx context.Context, c *call, p protocol.LocatorsParams) (any, error) {
	tc, err := s.pageTab(ctx, c, protocol.MethodLocators, p, p.Target, actwire.Millis(p.TimeoutMs))
	if err != nil {
		return nil, err
	}
	if err := s.checkRef(ctx, c, tc, p.Element); err != nil {
		return nil, err
	}
	m, err := oneMatch(ctx, tc, p.Element, s.actionTimeout(p.TimeoutMs))
	if err != nil {
		return nil, err
	}
	if m.SessionID != "" {
		return nil, protocol.Errorf(protocol.CodeUnsupported, "locators: %s is in an out-of-process frame: locators are generated for the main frame's elements", p.Element)
	}
	picked, err := overlay.Describe(ctx, tc.page, m.BackendNodeID)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeUnsupported, "locators: %s: %v (an element inside a frame gets no locator)", p.Element, err)
	}
	var named protocol.PopupPickResult
	if err := s.popupTools().Name(ctx, toolsTab{tc}, picked, &named); err != nil {
		return nil, wireerr.Classify(err)
	}
	return readwire.Locators(tc.tabID, named), nil
}

// oneMatch waits (up to timeout) for target to match exactly one element:
// none yet is worth waiting for, several is an error at once.
func oneMatch(ctx context.Context, tc *tabContext, target string, timeout time.Duration) (resolver.Match, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	m, err := resolver.Wait(ctx, func(ctx context.Context) (resolver.Match, error) {
		ms, err := tc.res.All(ctx, target)
		switch {
		case err != nil:
			return resolver.Match{}, err
		case len(ms) == 0:
			return resolver.Match{}, &resolver.Error{Kind: resolver.Transient, Op: "locators", Target: target, Err: resolver.ErrNotFound}
		case len(ms) > 1:
			return resolver.Match{}, protocol.Errorf(protocol.CodeAmbiguous, "%s: %d elements match; add nth=… or make it more specific", target, len(ms)).With("count", len(ms)).With("kind", "permanent")
		}
		return ms[0], nil
	})
	if err != nil {
		return resolver.Match{}, wireerr.Classify(err)
	}
	return m, nil
}
