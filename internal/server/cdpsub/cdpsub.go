// Package cdpsub runs the agents' cdp.subscribe subscriptions
// (PROTOCOL.md §3.2): the CDP events of one tab, delivered to one agent
// as cdp.event notifications. A subscription listens on its browser's
// link, keeps only the events it was asked for, and lives as long as its
// tab, not as long as one link: when the link ends (the relay restarts,
// Chrome stops the extension's worker), it waits for the same browser to
// be back (within Options.ReconnectGrace), finds its tab, attaches the tab
// again if its debugger session was lost and enables again the domains
// the agent enabled through cdp.send, and goes on
// (cdp.subscriptionResumed). It ends, saying why (cdp.subscriptionEnded),
// when its tab is gone, its browser stays away, or the service ends it
// (Set.EndIn); the agent ending it, or leaving, ends it without a word.
//
// What a call may subscribe to (the access checks, which tab) is the
// service's; a Set is one agent's subscriptions, and the service gives it
// the browsers' links (Browsers) and the agent they deliver to (Agent).
package cdpsub

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
)

// Agent is the agent a Set's subscriptions deliver to (the service's
// agent).
type Agent interface {
	// Notify sends the agent a notification.
	Notify(method string, params any)
	// IsPerson reports whether the agent is the person: they get the
	// events of the tabs they took over too.
	IsPerson() bool
}

// Link is one link of a browser as a subscription uses it: it listens on
// its events and calls its ops.
type Link interface {
	// Subscribe, Call and Closed are the browser link's (browserlink.Link).
	Subscribe(*browserlink.Subscriber) (cancel func())
	Call(ctx context.Context, op extwire.Op) (json.RawMessage, error)
	Closed() <-chan struct{}
	// HeldEvent reports whether an event is the person's (hub.Link's):
	// its tab is in a space they took over, or the page logged it while
	// they held it (replayed at an enable): not the agents'.
	HeldEvent(in *extwire.Message) bool
	// Tabs lists the browser's tabs (tabs.list).
	Tabs(ctx context.Context) ([]protocol.Tab, error)
	// Log is the link's logger.
	Log() *slog.Logger
	// WantEvents makes the browser's extension forward the events of
	// methods (all when empty), which it may hold back when no one reads
	// them (extwire.EventsQuiet), until release is called; release must
	// not block.
	WantEvents(ctx context.Context, methods []string) (release func(), err error)
}

// Browsers is where a subscription finds its browser's next link.
type Browsers interface {
	// Changed is closed when the links next change: take it before Link,
	// so that a change after the look closes it.
	Changed() <-chan struct{}
	// Link returns the browser's link, nil when none is connected.
	Link(browser string) Link
}

// Options configure the subscriptions of a service.
type Options struct {
	Browsers       Browsers
	ReconnectGrace time.Duration // how long a subscription waits for its browser to be back (timeouts.reconnect)
	RequestTimeout time.Duration // bounds a resume's calls on the new link
	// CodeOf is the agents' code of an error a link's call returned.
	CodeOf func(error) protocol.Code
}

// buffer is how many events a subscription holds for a slow agent (more
// are dropped, never slowing the link).
const buffer = 4096

// Set is one agent's subscriptions, by name.
type Set struct {
	opts  *Options
	agent Agent

	mu     sync.Mutex
	subs   map[string]*subscription // nil once closed
	next   int
	active sync.WaitGroup // the subscriptions' forwarders
}

// NewSet returns an empty set of agent's subscriptions.
func NewSet(opts *Options, agent Agent) *Set {
	return &Set{opts: opts, agent: agent, subs: make(map[string]*subscription)}
}

// Subscribe starts a subscription to the events of tab (of browser, on
// its link l) that methods names (all when empty), and attaches the tab
// (events flow only while the debugger is attached).
func (s *Set) Subscribe(ctx context.Context, l Link, browser string, tab int, methods []string) (protocol.CDPSubscribeResult, error) {
	sub := &subscription{set: s, browser: browser, tab: tab, methods: make(map[string]bool, len(methods))}
	for _, m := range methods {
		sub.methods[m] = true
	}
	runCtx, cancel := context.WithCancel(context.Background())
	sub.cancel = cancel
	s.mu.Lock()
	if s.subs == nil {
		s.mu.Unlock()
		cancel()
		return protocol.CDPSubscribeResult{}, protocol.Errorf(protocol.CodeInternal, "agent is closing")
	}
	s.next++
	sub.name = "s" + strconv.Itoa(s.next)
	s.subs[sub.name] = sub
	s.active.Add(1)
	s.mu.Unlock()

	q := sub.listen(l)
	go sub.run(runCtx, q)
	if err := sub.want(ctx, l); err != nil {
		s.Unsubscribe(sub.name)
		return protocol.CDPSubscribeResult{}, err
	}
	if _, err := l.Call(ctx, extwire.Attach{TabID: tab}); err != nil {
		s.Unsubscribe(sub.name)
		return protocol.CDPSubscribeResult{}, err
	}
	return protocol.CDPSubscribeResult{Subscription: sub.name, Tab: tab, Browser: browser}, nil
}

// Unsubscribe ends the subscription name without a notice (the agent
// asked); false when there is none.
func (s *Set) Unsubscribe(name string) bool {
	s.mu.Lock()
	sub, ok := s.subs[name]
	delete(s.subs, name)
	s.mu.Unlock()
	if ok {
		sub.stop()
	}
	return ok
}

// EndIn ends at once the subscriptions of browser's tabs, telling the
// agent why (reason and msg of cdp.subscriptionEnded), and returns how
// many it ended.
func (s *Set) EndIn(browser string, tabs []int, reason, msg string) int {
	s.mu.Lock()
	var ends []*subscription
	for name, sub := range s.subs {
		if sub.browser == browser && slices.Contains(tabs, sub.tab) {
			delete(s.subs, name)
			ends = append(ends, sub)
		}
	}
	s.mu.Unlock()
	for _, sub := range ends {
		sub.stop()
		sub.notifyEnded(reason, msg)
	}
	return len(ends)
}

// Close ends every subscription without a notice (the agent left), and
// returns once their forwarders have ended. A closed set takes no new
// subscription.
func (s *Set) Close() {
	s.mu.Lock()
	for _, sub := range s.subs {
		sub.stop()
	}
	s.subs = nil
	s.mu.Unlock()
	s.active.Wait()
}

// forget drops a subscription that already ended.
func (s *Set) forget(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.subs, name)
}

// enableCall is a Domain.enable the agent sent through cdp.send.
type enableCall struct {
	method string
	params json.RawMessage
}

// NoteCDPSend records a Domain.enable (or .disable) the agent sent through
// cdp.send to the main session of a tab, for its live subscriptions of
// that tab: what a resumed subscription enables again.
func (s *Set) NoteCDPSend(browser string, tab int, sessionID, method string, params json.RawMessage) {
	domain, verb, _ := strings.Cut(method, ".")
	if sessionID != "" || (verb != "enable" && verb != "disable") {
		return // a child session's ID does not outlive its link
	}
	s.mu.Lock()
	var subs []*subscription
	for _, sub := range s.subs {
		if sub.browser == browser && sub.tab == tab {
			subs = append(subs, sub)
		}
	}
	s.mu.Unlock()
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
