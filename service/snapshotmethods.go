package service

import (
	"context"
	"encoding/json"

	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
	"github.com/egohost/egohost/snapshot"
)

func (s *Service) snapshotHandlers() map[string]handler {
	return map[string]handler{
		protocol.MethodSnapshot: s.snapshot,
	}
}

func (s *Service) snapshot(ctx context.Context, _ *agent, params json.RawMessage) (any, error) {
	var p protocol.SnapshotParams
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	if p.MaxChars < 0 || p.Start < 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "snapshot: maxChars and start must not be negative")
	}
	tc, err := s.tabContext(ctx, p.Target)
	if err != nil {
		return nil, err
	}
	if err := tc.checkDialog("snapshot"); err != nil {
		return nil, err
	}
	opts := snapshot.Options{
		Interactive:  p.Interactive,
		Viewport:     p.Viewport,
		MaxChars:     p.MaxChars,
		Start:        p.Start,
		DiffPrevious: p.Diff,
	}
	if p.Scope != "" {
		if _, ok := refmap.ParseRef(p.Scope); ok {
			opts.Scope = p.Scope
		} else {
			node, session, err := s.scopeNode(ctx, tc, p.Scope)
			if err != nil {
				return nil, classify(err)
			}
			opts.ScopeNode, opts.ScopeSession = node, session
		}
	}
	snap, err := tc.snap.Snapshot(ctx, opts)
	if err != nil {
		return nil, classify(err)
	}
	res := protocol.SnapshotResult{
		Text: snap.Text, URL: snap.URL, Title: snap.Title, Tab: tc.tabID,
		Stats: protocol.SnapshotStats{
			Elements: snap.Stats.Elements, Refs: snap.Stats.Refs, Frames: snap.Stats.Frames,
			Chars: snap.Stats.Chars, Bytes: snap.Stats.Bytes,
			TookMs:      float64(snap.Stats.Took.Microseconds()) / 1000,
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
			return nil, classify(err)
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
