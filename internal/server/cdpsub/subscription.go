package cdpsub

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
)

// subscription is one cdp.subscribe subscription: the CDP events of one
// tab, delivered to one agent.
type subscription struct {
	set     *Set
	name    string
	browser string
	tab     int
	methods map[string]bool // the events it wants; empty: all

	mu       sync.Mutex
	enables  []enableCall // the domains the agent enabled on the tab while it was live, in order
	unlisten func()       // ends delivery from the current link
	unwant   func()       // lets the current link's extension hold back the events again (Link.WantEvents)
	stopped  bool         // the agent ended it, or left: no notice
	cancel   context.CancelFunc
}

// stop ends the subscription without a notice (the agent asked, or left).
// It is called with the set's mu held: it must not take it.
func (sub *subscription) stop() {
	sub.mu.Lock()
	sub.stopped = true
	sub.mu.Unlock()
	sub.dropListener()
	sub.cancel()
}

// dropListener ends the delivery listen started, if one runs, and the
// want of its events.
func (sub *subscription) dropListener() {
	sub.mu.Lock()
	unlisten, unwant := sub.unlisten, sub.unwant
	sub.unlisten, sub.unwant = nil, nil
	sub.mu.Unlock()
	if unlisten != nil {
		unlisten()
	}
	if unwant != nil {
		unwant()
	}
}

// want makes l's extension forward the events the subscription wants (it
// holds back some no one reads); dropListener ends that.
func (sub *subscription) want(ctx context.Context, l Link) error {
	methods := make([]string, 0, len(sub.methods))
	for m := range sub.methods {
		methods = append(methods, m)
	}
	release, err := l.WantEvents(ctx, methods)
	if err != nil {
		return err
	}
	sub.mu.Lock()
	if sub.stopped {
		sub.mu.Unlock()
		release()
		return nil
	}
	if sub.unwant != nil {
		sub.unwant() // a want of a link before: it does not block
	}
	sub.unwant = release
	sub.mu.Unlock()
	return nil
}

func (sub *subscription) isStopped() bool {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return sub.stopped
}

// listen subscribes to the tab's events on l; the queue closes when the
// link ends or the subscription stops. A stopped subscription gets a
// closed queue.
func (sub *subscription) listen(l Link) *browserlink.Queue[*extwire.Message] {
	q := browserlink.NewQueue[*extwire.Message](buffer)
	agentsOnly := !sub.set.agent.IsPerson()
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.stopped {
		q.Close()
		return q
	}
	sub.unlisten = l.Subscribe(&browserlink.Subscriber{
		Filter: func(in *extwire.Message) bool {
			switch in.Event {
			case "cdp":
				return in.TabID == sub.tab && (len(sub.methods) == 0 || sub.methods[in.Method])
			case "detached", "tab.removed":
				return in.TabID == sub.tab
			}
			return false
		},
		Deliver: func(in *extwire.Message) {
			if agentsOnly && in.Event == "cdp" && l.HeldEvent(in) {
				return // the person's doings in a space they took over, or replayed from that time
			}
			q.Put(in)
		},
		Done: q.Close,
	})
	return q
}

// run delivers the events, and resumes the subscription on the browser's
// next link when its link ends, until the tab is gone or the subscription
// stops.
func (sub *subscription) run(ctx context.Context, q *browserlink.Queue[*extwire.Message]) {
	defer sub.set.active.Done()
	for {
		closed := sub.deliver(q)
		if sub.isStopped() {
			return
		}
		if closed {
			sub.end("tab_closed", fmt.Sprintf("tab %d was closed", sub.tab))
			return
		}
		var reason, msg string
		if q, reason, msg = sub.resume(ctx, time.Now()); q == nil {
			if !sub.isStopped() {
				sub.end(reason, msg)
			}
			return
		}
	}
}

// deliver forwards the queue's events to the agent until the queue closes
// (the link ended, or the subscription stopped) or the tab is closed
// (closed is true).
func (sub *subscription) deliver(q *browserlink.Queue[*extwire.Message]) (closed bool) {
	to := sub.set.agent
	for in := range q.C {
		if in.Event == "cdp" {
			to.Notify(protocol.NotifyCDPEvent, protocol.CDPEvent{
				Subscription: sub.name, Browser: sub.browser, Tab: in.TabID, SessionID: in.SessionID, Method: in.Method, Params: in.Params,
			})
			continue
		}
		reason := in.Reason
		if in.Event == "tab.removed" {
			reason = "tab_closed"
		}
		to.Notify(protocol.NotifyTabDetached, protocol.TabDetached{Subscription: sub.name, Browser: sub.browser, Tab: in.TabID, Reason: reason})
		if in.Event == "tab.removed" {
			sub.dropListener()
			return true
		}
	}
	return false
}

// end drops the subscription and tells the agent why, once.
func (sub *subscription) end(reason, msg string) {
	sub.set.forget(sub.name)
	sub.dropListener()
	sub.cancel()
	sub.notifyEnded(reason, msg)
}

// notifyEnded tells the agent the subscription ended, and why.
func (sub *subscription) notifyEnded(reason, msg string) {
	sub.set.agent.Notify(protocol.NotifySubscriptionEnded, protocol.SubscriptionEnded{
		Subscription: sub.name, Browser: sub.browser, Tab: sub.tab, Reason: reason, Message: msg,
	})
}

// resume waits for the subscription's browser to be back, at most until
// ReconnectGrace after its link dropped (at down), and resumes the
// subscription on its new link. When it cannot, q is nil, and reason and
// msg say why (the subscription ends).
func (sub *subscription) resume(ctx context.Context, down time.Time) (q *browserlink.Queue[*extwire.Message], reason, msg string) {
	opts := sub.set.opts
	giveUp := time.NewTimer(time.Until(down.Add(opts.ReconnectGrace)))
	defer giveUp.Stop()
	for {
		changed := opts.Browsers.Changed()
		if l := opts.Browsers.Link(sub.browser); l != nil {
			select {
			case <-l.Closed(): // dropped again, not yet taken out
			default:
				q, err := sub.resumeOn(ctx, l, down)
				if err == nil {
					return q, "", ""
				}
				if ctx.Err() != nil {
					return nil, "", ""
				}
				if code := opts.CodeOf(err); code != protocol.CodeBrowserGone {
					reason = code.Name()
					if code == protocol.CodeTabNotFound {
						reason = "tab_closed"
					}
					return nil, reason, fmt.Sprintf("browser %s is back, but subscription %s could not resume: %v", sub.browser, sub.name, err)
				}
				// The link dropped while it resumed: wait for the next one.
			}
		}
		select {
		case <-changed:
		case <-giveUp.C:
			return nil, "browser_disconnected", fmt.Sprintf("browser %s did not come back within timeouts.reconnect (%v): its tab is gone for this subscription; subscribe again once the browser is back in browsers.list", sub.browser, opts.ReconnectGrace)
		case <-ctx.Done():
			return nil, "", ""
		}
	}
}

// resumeOn resumes the subscription on link l: its tab must be there;
// when the tab's debugger session was lost (Chrome stopped the extension's
// worker, which drops its sessions) it is attached again and the agent's
// domains enabled again. Delivery starts before that, so no event of the
// enables is lost.
func (sub *subscription) resumeOn(ctx context.Context, l Link, down time.Time) (*browserlink.Queue[*extwire.Message], error) {
	ctx, cancel := context.WithTimeout(ctx, sub.set.opts.RequestTimeout)
	defer cancel()
	tabs, err := l.Tabs(ctx)
	if err != nil {
		return nil, err
	}
	var tab *protocol.Tab
	for i := range tabs {
		if tabs[i].ID == sub.tab {
			tab = &tabs[i]
		}
	}
	if tab == nil {
		return nil, protocol.Errorf(protocol.CodeTabNotFound, "tab %d is not there any more", sub.tab)
	}
	q := sub.listen(l)
	if err := ctx.Err(); err != nil {
		return nil, err // stopped meanwhile
	}
	if err := sub.want(ctx, l); err != nil {
		sub.unlistenFrom(q)
		return nil, err
	}
	res := protocol.SubscriptionResumed{Subscription: sub.name, Browser: sub.browser, Tab: sub.tab, Reattached: !tab.Attached}
	if res.Reattached {
		if _, err := l.Call(ctx, extwire.Attach{TabID: sub.tab}); err != nil {
			sub.unlistenFrom(q)
			return nil, err
		}
		for _, e := range sub.enabled() {
			if _, err := l.Call(ctx, extwire.CDP{TabID: sub.tab, Method: e.method, Params: e.params}); err != nil {
				l.Log().Warn("a resumed subscription could not enable a domain again", "subscription", sub.name, "tab", sub.tab, "method", e.method, "err", err)
				continue
			}
			res.Reenabled = append(res.Reenabled, e.method)
		}
	}
	res.MissedMs = time.Since(down).Milliseconds()
	l.Log().Info("subscription resumed", "subscription", sub.name, "tab", sub.tab, "missed", time.Since(down).Round(time.Millisecond), "reattached", res.Reattached, "reenabled", res.Reenabled)
	sub.set.agent.Notify(protocol.NotifySubscriptionResumed, res)
	return q, nil
}

// unlistenFrom ends the delivery that listen started (the queue it gave).
func (sub *subscription) unlistenFrom(q *browserlink.Queue[*extwire.Message]) {
	sub.dropListener()
	q.Close()
}

// enabled returns the domains to enable again, in the order enabled.
func (sub *subscription) enabled() []enableCall {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return append([]enableCall(nil), sub.enables...)
}
