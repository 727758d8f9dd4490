package service

import (
	"context"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// inspect reads one element's state without acting on it.
func (s *Service) inspect(ctx context.Context, c *call, p protocol.InspectParams) (any, error) {
	if err := p.Check(protocol.MethodInspect); err != nil {
		return nil, err
	}
	return s.withRunner(ctx, c, p.Target, "inspect", actwire.Millis(p.TimeoutMs), func(ctx context.Context, tc *tabContext, r *actions.Runner) (any, error) {
		st, err := r.Inspect(ctx, p.Element, actwire.Millis(p.TimeoutMs))
		if err != nil {
			return nil, err
		}
		return actwire.InspectResult(tc.tabID, st), nil
	})
}

// resize sets the size of the tab's viewport (page.Resize: Emulation's
// device metrics, as Playwright's setViewportSize): it changes that one
// tab's layout, never a window, so an agent resizes nothing of the
// person's. The override lasts while egohost is attached to the tab;
// 0 × 0 ends it.
func (s *Service) resize(ctx context.Context, c *call, p protocol.ResizeParams) (any, error) {
	tc, err := s.pageTab(ctx, c, protocol.MethodResize, p, p.Target, 0)
	if err != nil {
		return nil, err
	}
	w, h, err := page.Resize(ctx, tc.page, tc.res, p.Width, p.Height)
	if err != nil {
		return nil, wireerr.Classify(err)
	}
	return protocol.ResizeResult{Tab: tc.tabID, Width: w, Height: h}, nil
}
