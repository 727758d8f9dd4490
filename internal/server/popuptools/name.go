package popuptools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"

	"github.com/egohost/egohost/internal/engine/locator"
	"github.com/egohost/egohost/internal/engine/overlay"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/server/readwire"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

// Name fills in res for the picked element of tab t: its role, name, box,
// ref and URL, and the candidate locators in rank order, each checked by
// the resolver; res.Locator is the first that matches it alone (else the
// first that matches it among others, with nth=).
func (m *Methods) Name(ctx context.Context, t Tab, picked overlay.Picked, res *protocol.PopupPickResult) error {
	node, err := cdp.Call(ctx, t.Page(), dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: picked.BackendNodeID})
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
		if ms, err := t.Resolver().All(ctx, "css="+picked.CSS); err == nil {
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
		ms, err := t.Resolver().All(ctx, c.Locator)
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
	res.Ref = pickedRef(ctx, t.Snapshots(), picked.BackendNodeID)
	if u, err := m.s.TopURL(ctx, t.Page()); err == nil {
		res.URL = u
	}
	return nil
}

// pickedRef is the element's ref in the tab's latest snapshot, taking a
// full snapshot when the latest has none for it (refs stay the same across
// snapshots, so agents' refs keep working); "" when it gets none.
func pickedRef(ctx context.Context, tab Snapshots, id cdp.BackendNodeID) string {
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
