package service

import (
	"context"
	"errors"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/readwire"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
)

func (s *Service) snapshot(ctx context.Context, c *call, p protocol.SnapshotParams) (any, error) {
	return s.again(ctx, "snapshot", func(ctx context.Context) (any, error) { return s.snapshotOnce(ctx, c, p) })
}

func (s *Service) snapshotOnce(ctx context.Context, c *call, p protocol.SnapshotParams) (any, error) {
	tc, err := s.pageTab(ctx, c, protocol.MethodSnapshot, p, p.Target, 0)
	if err != nil {
		return nil, err
	}
	if p.TimeoutMs < 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "snapshot: timeoutMs must not be negative")
	}
	// The snapshot makes the page's world and installs the module itself
	// (or walks in the world a preparation made already: a world it has
	// begun is made in full, see snapshot.Tab.UseMainWorld): a preparation
	// still running beside it (of a document an action just loaded) would
	// only hold up its first evaluation in a renderer busy loading, as
	// goto's NoPrepare says. The next action makes the resolver's world,
	// where the module then is.
	tc.tab.StopBackground()
	opts := snapshot.Options{
		Interactive:  p.Interactive,
		Viewport:     p.Viewport,
		URLs:         p.URLs,
		MaxChars:     p.MaxChars,
		Start:        p.Start,
		DiffPrevious: p.Diff,
		Reach:        tc.reach,
		Parsed:       true, // a page still being parsed: see below
	}
	if tc.reach != nil {
		opts.Viewer = c.conn.grant.name
	}
	if p.Scope != "" {
		if _, ok := refmap.ParseRef(p.Scope); ok {
			opts.Scope = p.Scope
		} else {
			node, session, err := s.scopeNode(ctx, tc, p.Scope)
			if err != nil {
				return nil, wireerr.Classify(err)
			}
			opts.ScopeNode, opts.ScopeSession = node, session
		}
	}
	snap, err := tc.snap.Snapshot(ctx, opts)
	if errors.Is(err, snapshot.ErrLoading) {
		// Still being parsed: wait for DOMContentLoaded, then take it as
		// it is then.
		if err := s.waitParsed(ctx, c, tc, actwire.Millis(p.TimeoutMs)); err != nil {
			return nil, err
		}
		opts.Parsed = false
		snap, err = tc.snap.Snapshot(ctx, opts)
	}
	if err != nil {
		return nil, wireerr.Classify(err)
	}
	res := readwire.Snapshot(tc.tabID, p, snap)
	if p.Refs {
		// One round trip per frame; refs whose element went since the
		// snapshot are left out.
		entries, err := tc.snap.Resolve(ctx, snap.Entries)
		if err != nil {
			return nil, wireerr.Classify(err)
		}
		res.Refs = readwire.Refs(entries)
	}
	return res, nil
}

// waitParsed waits, within d (default timeouts.action), for the document
// a snapshot found still being parsed (snapshot.ErrLoading) to reach
// DOMContentLoaded, so that a snapshot taken just after a tab opened
// shows the page, not nothing.
func (s *Service) waitParsed(ctx context.Context, c *call, tc *tabContext, d time.Duration) error {
	_, err := s.withRunner(ctx, c, protocol.Target{Browser: tc.link.ID, Tab: tc.tabID}, "snapshot", d, func(ctx context.Context, _ *tabContext, r *actions.Runner) (any, error) {
		return r.WaitLoad(ctx, actions.LoadDOMContentLoaded, d)
	})
	return err
}
