package service

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
)

// cdpSubscription is one cdp.subscribe subscription: the CDP events of one
// tab, delivered to one agent as cdp.event notifications. It lives as long
// as its tab, not as long as one browser link: when the link ends (the
// relay restarts, Chrome stops the extension's worker), it waits for the
// same browser to be back (within timeouts.reconnect), finds its tab,
// attaches the tab again if its debugger session was lost and enables
// again the domains the agent enabled through cdp.send, and goes on
// (cdp.subscriptionResumed). It ends by itself (cdp.subscriptionEnded)
// only when its tab is gone.
type cdpSubscription struct {
	s       *Service
	a       *agent
	name    string
	browser string
	tab     int
	methods map[string]bool // the events it wants; empty: all

	mu       sync.Mutex
	enables  []enableCall // the domains the agent enabled on the tab while it was live, in order
	unlisten func()       // ends delivery from the current link
	stopped  bool         // the agent ended it, or left: no notice
	cancel   context.CancelFunc
}

// enableCall is a Domain.enable the agent sent through cdp.send.
type enableCall struct {
	method string
	params json.RawMessage
}

// agentSubscriptionBuffer is how many events a cdp.subscribe subscription
// holds for a slow agent (more are dropped, never slowing the link).
const agentSubscriptionBuffer = 4096

// subscribe starts a subscription to tab's events on l and attaches the
// tab (events flow only while the debugger is attached).
func (s *Service) subscribe(ctx context.Context, c *call, l *link, tab int, methods []string) (protocol.CDPSubscribeResult, error) {
	a := c.conn
	sub := &cdpSubscription{s: s, a: a, browser: l.ID, tab: tab, methods: make(map[string]bool, len(methods))}
	for _, m := range methods {
		sub.methods[m] = true
	}
	runCtx, cancel := context.WithCancel(context.Background())
	sub.cancel = cancel
	a.mu.Lock()
	if a.subs == nil {
		a.mu.Unlock()
		cancel()
		return protocol.CDPSubscribeResult{}, protocol.Errorf(protocol.CodeInternal, "agent is closing")
	}
	a.nextSub++
	sub.name = "s" + strconv.Itoa(a.nextSub)
	a.subs[sub.name] = sub
	a.mu.Unlock()

	q := sub.listen(l)
	a.subWG.Add(1)
	go sub.run(runCtx, q)
	if _, err := l.Call(ctx, extwire.Attach{TabID: tab}); err != nil {
		a.unsubscribe(sub.name)
		return protocol.CDPSubscribeResult{}, err
	}
	return protocol.CDPSubscribeResult{Subscription: sub.name, Tab: tab, Browser: l.ID}, nil
}

// stop ends the subscription without a notice (the agent asked, or left).
// It is called with the agent's mu held: it must not take it.
func (sub *cdpSubscription) stop() {
	sub.mu.Lock()
	sub.stopped = true
	sub.mu.Unlock()
	sub.dropListener()
	sub.cancel()
}

// dropListener ends the delivery listen started, if one runs.
func (sub *cdpSubscription) dropListener() {
	sub.mu.Lock()
	unlisten := sub.unlisten
	sub.unlisten = nil
	sub.mu.Unlock()
	if unlisten != nil {
		unlisten()
	}
}

// endNow ends the subscription at once and tells the agent why (the
// person took over the space of its tab: takeover.go). It must be called
// without the agent's mu held.
func (sub *cdpSubscription) endNow(reason, msg string) {
	sub.stop()
	sub.a.forget(sub.name)
	sub.a.notify(context.Background(), protocol.NotifySubscriptionEnded, protocol.SubscriptionEnded{
		Subscription: sub.name, Browser: sub.browser, Tab: sub.tab, Reason: reason, Message: msg,
	})
}

func (sub *cdpSubscription) isStopped() bool {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return sub.stopped
}

// listen subscribes to the tab's events on l; the queue closes when the
// link ends or the subscription stops. A stopped subscription gets a
// closed queue.
func (sub *cdpSubscription) listen(l *link) *browserlink.Queue[*extwire.Message] {
	q := browserlink.NewQueue[*extwire.Message](agentSubscriptionBuffer)
	sub.mu.Lock()
	defer sub.mu.Unlock()
	if sub.stopped {
		q.Close()
		return q
	}
	agentsOnly := !isPerson(sub.a.agentName())
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
			if agentsOnly && in.Event == "cdp" && l.Held(sub.tab) {
				return // the person's doings in a space they took over (takeover.go)
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
func (sub *cdpSubscription) run(ctx context.Context, q *browserlink.Queue[*extwire.Message]) {
	defer sub.a.subWG.Done()
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
func (sub *cdpSubscription) deliver(q *browserlink.Queue[*extwire.Message]) (closed bool) {
	for in := range q.C {
		if in.Event == "cdp" {
			sub.a.notify(context.Background(), protocol.NotifyCDPEvent, protocol.CDPEvent{
				Subscription: sub.name, Browser: sub.browser, Tab: in.TabID, SessionID: in.SessionID, Method: in.Method, Params: in.Params,
			})
			continue
		}
		reason := in.Reason
		if in.Event == "tab.removed" {
			reason = "tab_closed"
		}
		sub.a.notify(context.Background(), protocol.NotifyTabDetached, protocol.TabDetached{Subscription: sub.name, Browser: sub.browser, Tab: in.TabID, Reason: reason})
		if in.Event == "tab.removed" {
			sub.dropListener()
			return true
		}
	}
	return false
}

// end drops the subscription and tells the agent why, once.
func (sub *cdpSubscription) end(reason, msg string) {
	sub.a.forget(sub.name)
	sub.cancel()
	sub.a.notify(context.Background(), protocol.NotifySubscriptionEnded, protocol.SubscriptionEnded{
		Subscription: sub.name, Browser: sub.browser, Tab: sub.tab, Reason: reason, Message: msg,
	})
}

// resume waits for the subscription's browser to be back, at most until
// timeouts.reconnect after its link dropped (at down), and resumes the
// subscription on its new link. When it cannot, q is nil, and reason and
// msg say why (the subscription ends).
func (sub *cdpSubscription) resume(ctx context.Context, down time.Time) (q *browserlink.Queue[*extwire.Message], reason, msg string) {
	s := sub.s
	giveUp := time.NewTimer(time.Until(down.Add(s.opts.ReconnectGrace)))
	defer giveUp.Stop()
	for {
		changed := s.hub.Changed()
		l := s.hub.Get(sub.browser)
		if l != nil {
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
				if code := codeOf(err); code != protocol.CodeBrowserGone {
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
			return nil, "browser_disconnected", fmt.Sprintf("browser %s did not come back within timeouts.reconnect (%v): its tab is gone for this subscription; subscribe again once the browser is back in browsers.list", sub.browser, s.opts.ReconnectGrace)
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
func (sub *cdpSubscription) resumeOn(ctx context.Context, l *link, down time.Time) (*browserlink.Queue[*extwire.Message], error) {
	ctx, cancel := context.WithTimeout(ctx, sub.s.opts.RequestTimeout)
	defer cancel()
	tabs, err := sub.s.listTabs(ctx, l)
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
	res := protocol.SubscriptionResumed{Subscription: sub.name, Browser: sub.browser, Tab: sub.tab, Reattached: !tab.Attached}
	if res.Reattached {
		if _, err := l.Call(ctx, extwire.Attach{TabID: sub.tab}); err != nil {
			sub.unlistenFrom(q)
			return nil, err
		}
		for _, e := range sub.enabled() {
			if _, err := l.Call(ctx, extwire.CDP{TabID: sub.tab, Method: e.method, Params: e.params}); err != nil {
				l.Log.Warn("a resumed subscription could not enable a domain again", "subscription", sub.name, "tab", sub.tab, "method", e.method, "err", err)
				continue
			}
			res.Reenabled = append(res.Reenabled, e.method)
		}
	}
	res.MissedMs = time.Since(down).Milliseconds()
	l.Log.Info("subscription resumed", "subscription", sub.name, "tab", sub.tab, "missed", time.Since(down).Round(time.Millisecond), "reattached", res.Reattached, "reenabled", res.Reenabled)
	sub.a.notify(context.Background(), protocol.NotifySubscriptionResumed, res)
	return q, nil
}

// unlistenFrom ends the delivery that listen started (the queue it gave).
func (sub *cdpSubscription) unlistenFrom(q *browserlink.Queue[*extwire.Message]) {
	sub.dropListener()
	q.Close()
}

// enabled returns the domains to enable again, in the order enabled.
func (sub *cdpSubscription) enabled() []enableCall {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	return append([]enableCall(nil), sub.enables...)
}

// noteCDPSend records a Domain.enable (or .disable) the agent sent through
// cdp.send to the main session of a tab, for its live subscriptions of
// that tab: what a resumed subscription enables again.
func (a *agent) noteCDPSend(browser string, tab int, sessionID, method string, params json.RawMessage) {
	domain, verb, _ := strings.Cut(method, ".")
	if sessionID != "" || (verb != "enable" && verb != "disable") {
		return // a child session's ID does not outlive its link
	}
	a.mu.Lock()
	var subs []*cdpSubscription
	for _, sub := range a.subs {
		if sub.browser == browser && sub.tab == tab {
			subs = append(subs, sub)
		}
	}
	a.mu.Unlock()
	for _, sub := range subs {
		sub.mu.Lock()
		kept := sub.enables[:0]
		for _, e := range sub.enables {
			if d, _, _ := strings.Cut(e.method, "."); d != domain {
				kept = append(kept, e)
			}
		}
		sub.enables = kept
		if verb == "enable" {
			sub.enables = append(sub.enables, enableCall{method: method, params: params})
		}
		sub.mu.Unlock()
	}
}
