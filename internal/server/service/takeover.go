package service

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/egohost/egohost/internal/server/hub"
	"github.com/egohost/egohost/internal/server/spacemethods"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/protocol"
)

// When the person takes a space over, nothing the agents have running
// there goes on, and nothing the person does there reaches an agent
// (PROTOCOL.md §3.6):
//
//   - every agent call in flight that reached one of the space's tabs ends
//     at once with user_in_control (its context is cancelled with that
//     cause);
//   - every agent's cdp.subscribe subscription on one of its tabs ends with
//     a cdp.subscriptionEnded notice, reason user_in_control; until then
//     (and for a tab that joins the space later) its events are dropped.
//     Subscriptions do not come back by themselves when the space is handed
//     back: the agent waits with spaces.waitForControl and subscribes again;
//   - the work calls started on the space's tabs and did not wait for (a
//     new document's preparation: tabContext.background) ends, and an
//     agent's call starts none there while the person has it;
//   - the space's tabs record no console messages or network requests
//     (console.list, network.list) while the person has it.
//
// The person's own connections (the popup, the owner's CLI without a name)
// are not agents: their calls and subscriptions go on.

// noteSpace records that the call reached a tab of space id.
func (c *call) noteSpace(id string) {
	c.mu.Lock()
	if !slices.Contains(c.spaces, id) {
		c.spaces = append(c.spaces, id)
	}
	c.mu.Unlock()
}

// takenOver returns the call's error as user_in_control when the call was
// ended because the person took its space over.
func takenOver(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	var pe *protocol.Error
	if cause := context.Cause(ctx); errors.As(cause, &pe) && pe.Code == protocol.CodeUserInControl {
		return cause
	}
	return err
}

// heldByPerson reports whether tab of l is in a space the person has
// taken over.
func (s *Service) heldByPerson(l *hub.Link, tab int) bool {
	return s.spaces.reg.Held(l.ID, l.Layout.GroupOf(tab))
}

// stopAgentsIn ends what agents have running in space sp of browser l,
// which the person just took over (its state is Person already), and
// returns how many calls and subscriptions it ended.
func (s *Service) stopAgentsIn(l *link, sp spaces.Space) (calls, subs int) {
	var tabs []int
	if l != nil && sp.Group != 0 {
		tabs = l.Layout.TabsInGroup(sp.Group)
	}
	cause := spacemethods.UserInControl(sp)
	for _, lc := range s.conns.List() {
		a := lc.Conn
		if isPerson(a.agentName()) {
			continue
		}
		var cancels []context.CancelCauseFunc
		for _, r := range s.conns.Calls(a) {
			c := r.Call
			c.mu.Lock()
			if slices.Contains(c.spaces, sp.ID) && c.cancel != nil {
				cancels = append(cancels, c.cancel)
			}
			c.mu.Unlock()
		}
		for _, cancel := range cancels {
			cancel(cause)
		}
		if l != nil {
			subs += a.subs.EndIn(l.ID, tabs, "user_in_control", fmt.Sprintf("the person took over space %s: its events no longer reach agents; wait with spaces.waitForControl, then subscribe again", sp.ID))
		}
		calls += len(cancels)
	}
	// What calls started there and did not wait for (a new document's
	// preparation) ends too: it would go on in the person's tab.
	if l != nil {
		for _, id := range tabs {
			if t := l.Tabs.Followed(id); t != nil {
				t.StopBackground()
			}
		}
	}
	return calls, subs
}
