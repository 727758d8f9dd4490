package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
)

func (s *Service) snapshot(ctx context.Context, c *call, p protocol.SnapshotParams) (any, error) {
	return s.again(ctx, "snapshot", func(ctx context.Context) (any, error) { return s.snapshotOnce(ctx, c, p) })
}

func (s *Service) snapshotOnce(ctx context.Context, c *call, p protocol.SnapshotParams) (any, error) {
	if err := p.Check(protocol.MethodSnapshot); err != nil {
		return nil, err
	}
	tc, err := s.tabContextWithin(ctx, c, p.Target, "snapshot", 0)
	if err != nil {
		return nil, err
	}
	if err := tc.checkDialog("snapshot"); err != nil {
		return nil, err
	}
	if p.TimeoutMs < 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "snapshot: timeoutMs must not be negative")
	}
	// The snapshot makes the page's world and installs the module itself:
	// a preparation still running beside it (of a document an action just
	// loaded) would only hold up its first evaluation in a renderer busy
	// loading, as goto's NoPrepare says. The next action makes the
	// resolver's world, where the module then is.
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
	text := snap.Text
	if strings.TrimSpace(text) == "" {
		text = emptyText(p, snap.URL)
	}
	res := protocol.SnapshotResult{
		Text: text, URL: snap.URL, Title: snap.Title, Tab: tc.tabID,
		Stats: protocol.SnapshotStats{
			Elements: snap.Stats.Elements, Refs: snap.Stats.Refs, Frames: snap.Stats.Frames,
			Chars: snap.Stats.Chars, Bytes: snap.Stats.Bytes,
			TookMs:      actwire.TookMs(snap.Stats.Took),
			FrameErrors: snap.Stats.FrameErrors,
		},
	}
	if t := snap.Truncated; t.Cut {
		res.Truncated = &protocol.SnapshotCut{FirstLine: t.FirstLine, ShownLines: t.ShownLines, TotalLines: t.TotalLines, Next: t.Next, HiddenRefs: t.HiddenRefs}
	}
	if p.Refs {
		// One round trip per frame; refs whose element went since the
		// snapshot are left out.
		entries, err := tc.snap.Resolve(ctx, snap.Entries)
		if err != nil {
			return nil, wireerr.Classify(err)
		}
		for _, e := range entries {
			res.Refs = append(res.Refs, protocol.Ref{
				Ref: e.Ref, Role: e.Role, Name: e.Name, Nth: e.Nth, BackendNodeID: int64(e.BackendNodeID),
				FrameID: string(e.FrameID), SessionID: string(e.SessionID),
			})
		}
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

// emptyText is the one line a snapshot that found nothing to show says
// instead of nothing.
func emptyText(p protocol.SnapshotParams, url string) string {
	switch {
	case p.Scope != "":
		return fmt.Sprintf("(nothing to show in %s: %s)\n", p.Scope, url)
	case p.Interactive && p.Viewport:
		return fmt.Sprintf("(no interactive elements in the viewport: %s)\n", url)
	case p.Interactive:
		return fmt.Sprintf("(no interactive elements: %s)\n", url)
	case p.Viewport:
		return fmt.Sprintf("(nothing in the viewport: %s)\n", url)
	case p.Start > 0:
		return fmt.Sprintf("(nothing from line %d on: %s)\n", p.Start, url)
	}
	return fmt.Sprintf("(empty page: %s)\n", url)
}
