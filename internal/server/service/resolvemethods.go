package service

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/readwire"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

func (s *Service) resolve(ctx context.Context, c *call, p protocol.ResolveParams) (any, error) {
	return s.again(ctx, "resolve", func(ctx context.Context) (any, error) { return s.resolveOnce(ctx, c, p) })
}

func (s *Service) resolveOnce(ctx context.Context, c *call, p protocol.ResolveParams) (any, error) {
	tc, err := s.pageTab(ctx, c, protocol.MethodResolve, p, p.Target, actwire.Millis(p.TimeoutMs))
	if err != nil {
		return nil, err
	}
	start := time.Now()
	switch p.Mode {
	case "", protocol.ResolveMatches:
	case protocol.ResolveCenter, protocol.ResolveObject:
		return s.resolveOne(ctx, tc, p, start)
	default:
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "resolve: mode %q is not matches, center or object", p.Mode)
	}
	find := func(ctx context.Context) ([]resolver.Match, error) {
		ms, err := tc.res.All(ctx, p.Element)
		if err == nil && len(ms) == 0 && p.Wait {
			return nil, &resolver.Error{Kind: resolver.Transient, Op: "resolve", Target: p.Element, Err: resolver.ErrNotFound}
		}
		return ms, err
	}
	ms, err := waitIf(ctx, p.Wait, s.actionTimeout(p.TimeoutMs), find)
	if err != nil {
		return nil, wireerr.Classify(err)
	}
	return readwire.Matches(ms, time.Since(start)), nil
}

// resolveOne resolves to exactly one element: its centre or an object.
func (s *Service) resolveOne(ctx context.Context, tc *tabContext, p protocol.ResolveParams, start time.Time) (any, error) {
	one := func(ctx context.Context) (protocol.ResolveResult, error) {
		if p.Mode == protocol.ResolveObject {
			o, err := tc.res.PageObject(ctx, p.Element)
			return protocol.ResolveResult{Count: 1, Object: readwire.Object(o)}, err
		}
		pt, err := tc.res.Center(ctx, p.Element)
		return protocol.ResolveResult{Count: 1, Center: readwire.Center(pt)}, err
	}
	res, err := waitIf(ctx, p.Wait, s.actionTimeout(p.TimeoutMs), one)
	if err != nil {
		return nil, wireerr.Classify(err)
	}
	res.Matches = []protocol.Match{}
	res.TookMs = actwire.TookMs(time.Since(start))
	return res, nil
}

// waitIf calls fn once, or with wait retries it (resolver.Wait) until
// timeout passes.
func waitIf[T any](ctx context.Context, wait bool, timeout time.Duration, fn func(context.Context) (T, error)) (T, error) {
	if !wait {
		return fn(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return resolver.Wait(ctx, fn)
}

// actionTimeout is a call's auto-wait: its own timeoutMs, else timeouts.action.
func (s *Service) actionTimeout(ms int) time.Duration {
	if ms > 0 {
		return time.Duration(ms) * time.Millisecond
	}
	return s.opts.ActionTimeout
}

// scopeNode resolves a locator to the one node a scoped snapshot starts at.
func (s *Service) scopeNode(ctx context.Context, tc *tabContext, locator string) (cdp.BackendNodeID, target.SessionID, error) {
	ms, err := tc.res.All(ctx, locator)
	if err != nil {
		return 0, "", err
	}
	switch len(ms) {
	case 1:
		return ms[0].BackendNodeID, ms[0].SessionID, nil
	case 0:
		return 0, "", protocol.Errorf(protocol.CodeNotFound, "snapshot scope %s: no element matches", locator).With("kind", "transient")
	}
	return 0, "", protocol.Errorf(protocol.CodeAmbiguous, "snapshot scope %s: %d elements match; add nth=… or make it more specific", locator, len(ms)).With("count", len(ms)).With("kind", "permanent")
}
