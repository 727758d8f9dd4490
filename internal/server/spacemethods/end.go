package spacemethods

import (
	"context"
	"slices"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// Complete ends a space (the agent's current one when it names none):
// its tabs are closed, or with keep left to the person in a group marked
// done.
func (m *Methods) Complete(ctx context.Context, c Call, p protocol.SpacesCompleteParams) (any, error) {
	return m.endSpace(ctx, c, p.Space, p.Keep)
}

// Close ends a space and closes its tabs.
func (m *Methods) Close(ctx context.Context, c Call, p protocol.SpaceParams) (any, error) {
	return m.endSpace(ctx, c, p.Space, false)
}

// endSpace ends a space: its tabs are closed, or kept for the person in
// a group marked done.
func (m *Methods) endSpace(ctx context.Context, c Call, id string, keep bool) (any, error) {
	sp, err := m.spaceOf(c, id)
	if err != nil {
		return nil, err
	}
	if sp.State == spaces.Person && !c.Person() {
		return nil, UserInControl(sp)
	}
	res := protocol.SpacesCompleteResult{Space: sp.ID, Closed: []int{}, Kept: []int{}}
	if b, ok := m.svc.Browser(sp.Browser); ok && sp.Group != 0 {
		tabs := b.TabsInGroup(sp.Group)
		if keep {
			title := sp.DoneTitle()
			reload, closeFirst := b.ScriptedAdvice(tabs)
			res.Scripted = reload
			// The answer goes to the agent: of the tabs to close, it
			// names the space's, not the person's own.
			for _, t := range closeFirst {
				if slices.Contains(tabs, t) {
					res.CloseFirst = append(res.CloseFirst, t)
				}
			}
			// The person is not asked to look: the group's title, in
			// the tab strip, says it.
			switch {
			case len(closeFirst) > 0:
				title += spaces.CloseFirstSuffix
			case len(reload) > 0:
				title += spaces.ScriptedSuffix
			}
			if _, err := b.Call(ctx, extwire.GroupsUpdate{GroupID: sp.Group, Title: title}); err != nil {
				return nil, err
			}
			b.EndAgentSessions(ctx, tabs) // the tabs are the person's now
			res.Kept = tabs
		} else {
			for _, t := range tabs {
				if _, err := b.Call(ctx, extwire.TabsClose{TabID: t}); err != nil && wireerr.CodeOf(err) != protocol.CodeTabNotFound {
					return nil, err
				}
				res.Closed = append(res.Closed, t)
			}
		}
	}
	m.svc.Spaces().Remove(sp.ID)
	m.svc.Save()
	m.log.Info("space ended", "space", sp.ID, "agent", sp.Agent, "keep", keep, "by", c.Who())
	return res, nil
}

// EndSpacesOf ends the spaces of a revoked agent, c being the revoking
// call: their tabs stay, the person's, in groups marked done. Spaces
// belong to an agent's name, so without this an agent paired later under
// the same name would take them, and their tabs, over. A space whose
// group cannot be retitled (its browser is away) ends all the same.
func (m *Methods) EndSpacesOf(ctx context.Context, c Call, agent string) {
	if agent == "" {
		return // List("") is every space
	}
	for _, sp := range m.svc.Spaces().List(agent) {
		if _, err := m.endSpace(ctx, c, sp.ID, true); err != nil {
			m.log.Warn("a revoked agent's space: its group was not marked done", "space", sp.ID, "agent", agent, "err", err)
			m.svc.Spaces().Remove(sp.ID)
			m.svc.Save()
		}
	}
}
