package service

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/hub"
	"github.com/egohost/egohost/internal/server/spacemethods"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/internal/server/wireerr"
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
//     (console.list, network.list) while the person has it, nor, once it
//     is handed back, the messages the page logged meanwhile that Chrome
//     replays when egohost's debugger attaches again;
//   - the debugger is detached from each of its tabs an agent's raw CDP
//     reached since it attached (endAgentSessions): what that left on the
//     tab's session (an emulated device or user agent, blocked URLs,
//     script turned off) ends with it.
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

// endSessionTimeout bounds the detach of one tab: a browser that does not
// answer must not hold the person's take over.
const endSessionTimeout = 5 * time.Second

// endAgentSessions detaches the debugger from each of tabs of l that an
// agent's raw CDP reached since it attached (browserlink.MarkAgentCDP), so
// that what it left on the tab's one debugger session ends: Chrome drops a
// session's overrides with it, those no method could undo included (the
// few it keeps are refused to paired agents: pairing/cdp.go's
// outlivesSession). The tab is not fenced (a requested detach):
// the next call attaches again. The detaches go out together, so a
// browser that does not answer holds the person's take over
// endSessionTimeout at most, whatever the number of tabs. It returns how
// many it detached.
func endAgentSessions(ctx context.Context, l *hub.Link, tabs []int) int {
	var (
		wg sync.WaitGroup
		n  atomic.Int32
	)
	for _, tab := range tabs {
		if !l.AgentCDP(tab) {
			continue
		}
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endSessionTimeout)
			defer cancel()
			_, err := l.Call(cctx, extwire.Detach{TabID: tab})
			if err != nil && wireerr.CodeOf(err) != protocol.CodeTabNotFound {
				l.Log.Warn("detach a tab an agent's raw CDP reached", "tab", tab, "err", err)
				return
			}
			n.Add(1)
		})
	}
	wg.Wait()
	return int(n.Load())
}

// regrouped hears that a tab of l moved from group from to group to: one
// that left a space (the person dragged it out, into their own tabs or
// another group; a space's popup window shown as a tab) is theirs now,
// and what agents' raw CDP left on its debugger session ends, as at a
// take over. It runs in the link's reader, so the detach runs beside it.
func (s *Service) regrouped(l *hub.Link, tab, from, to int) {
	if from == 0 || !l.AgentCDP(tab) {
		return
	}
	if _, ok := s.spaces.reg.ByGroup(l.ID, from); !ok {
		return
	}
	go endAgentSessions(context.Background(), l, []int{tab})
}

// heldByPerson reports whether tab of l is in a space the person has
// taken over, or (at not zero) was in one the person had at time at.
func (s *Service) heldByPerson(l *hub.Link, tab int, at time.Time) bool {
	if at.IsZero() {
		return s.spaces.reg.Held(l.ID, l.Layout.GroupOf(tab))
	}
	return s.spaces.reg.HeldAt(l.ID, l.Layout.GroupOf(tab), at)
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
