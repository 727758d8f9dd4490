// Package readwire maps what the page engine reads to the wire
// (protocol): a snapshot (snapshot), the resolver's matches (resolver)
// and the element a person picked (overlay), as the results of snapshot,
// resolve, locators and the popup's highlight and pick. It runs nothing
// itself: the service finds the tab, checks the caller, waits and reads,
// then maps what it read with these.
package readwire

import (
	"fmt"
	"strings"
	"time"

	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
	"github.com/egohost/egohost/resolver"
)

// Snapshot is snapshot's result on the wire for snap, taken in tab with
// params p: a snapshot that found nothing to show says so in one line
// (EmptyText). Its refs are Refs of the entries still there.
func Snapshot(tab int, p protocol.SnapshotParams, snap *snapshot.Snapshot) protocol.SnapshotResult {
	text := snap.Text
	if strings.TrimSpace(text) == "" {
		text = EmptyText(p, snap.URL)
	}
	res := protocol.SnapshotResult{
		Text: text, URL: snap.URL, Title: snap.Title, Tab: tab,
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
	return res
}

// EmptyText is the one line a snapshot of url with params p that found
// nothing to show says instead of nothing.
func EmptyText(p protocol.SnapshotParams, url string) string {
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

// Refs are a snapshot's resolved ref entries on the wire (nil for none).
func Refs(entries []refmap.Entry) []protocol.Ref {
	var out []protocol.Ref
	for _, e := range entries {
		out = append(out, protocol.Ref{
			Ref: e.Ref, Role: e.Role, Name: e.Name, Nth: e.Nth, BackendNodeID: int64(e.BackendNodeID),
			FrameID: string(e.FrameID), SessionID: string(e.SessionID),
		})
	}
	return out
}

// Box is the resolver's box of an element on the wire (nil for none):
// its centre and its size.
func Box(b *resolver.Box) *protocol.Box {
	if b == nil {
		return nil
	}
	return &protocol.Box{X: b.X, Y: b.Y, Width: b.Width, Height: b.Height}
}

// Matches is resolve's result (mode matches) for the elements ms its
// target matched, in took: each match, and the centre when it matched
// exactly one element with a box.
func Matches(ms []resolver.Match, took time.Duration) protocol.ResolveResult {
	res := protocol.ResolveResult{Count: len(ms), Matches: make([]protocol.Match, 0, len(ms))}
	for _, m := range ms {
		res.Matches = append(res.Matches, protocol.Match{BackendNodeID: int64(m.BackendNodeID), Role: m.Role, Name: m.Name, FrameID: string(m.FrameID), SessionID: string(m.SessionID), Box: Box(m.Box)})
	}
	if len(ms) == 1 && ms[0].Box != nil {
		res.Center = &protocol.Point{X: ms[0].Box.X, Y: ms[0].Box.Y, SessionID: string(ms[0].SessionID)}
	}
	res.TookMs = actwire.TookMs(took)
	return res
}

// Center is the one element's centre pt on the wire (resolve's mode
// center).
func Center(pt resolver.Point) *protocol.Point {
	return &protocol.Point{X: pt.X, Y: pt.Y, SessionID: string(pt.SessionID)}
}

// Object is the one element's remote object o on the wire (resolve's mode
// object).
func Object(o resolver.Object) *protocol.Object {
	return &protocol.Object{ObjectID: string(o.ObjectID), SessionID: string(o.SessionID)}
}
