package cdpsub

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
)

// fakeLink is a browser link: its events are the test's (emit), its
// calls are recorded and answered with no error.
type fakeLink struct {
	tabs []protocol.Tab
	held bool

	mu     sync.Mutex
	subs   map[int]*browserlink.Subscriber
	nextID int
	calls  []extwire.Op
	wants  map[string]int // WantEvents' methods ("": every event) → wants not released
	closed chan struct{}
}

func newFakeLink(tabs ...protocol.Tab) *fakeLink {
	return &fakeLink{tabs: tabs, subs: map[int]*browserlink.Subscriber{}, closed: make(chan struct{})}
}

func (l *fakeLink) Subscribe(s *browserlink.Subscriber) func() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.nextID++
	id := l.nextID
	l.subs[id] = s
	return func() {
		l.mu.Lock()
		s, ok := l.subs[id]
		delete(l.subs, id)
		l.mu.Unlock()
		if ok {
			s.Done()
		}
	}
}

func (l *fakeLink) Call(_ context.Context, op extwire.Op) (json.RawMessage, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, op)
	return json.RawMessage(`{}`), nil
}

func (l *fakeLink) WantEvents(_ context.Context, methods []string) (func(), error) {
	keys := methods
	if len(keys) == 0 {
		keys = []string{""}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wants == nil {
		l.wants = map[string]int{}
	}
	for _, k := range keys {
		l.wants[k]++
	}
	return sync.OnceFunc(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, k := range keys {
			if l.wants[k]--; l.wants[k] == 0 {
				delete(l.wants, k)
			}
		}
	}), nil
}

// wanted is the wants not released: method ("": every event) → count.
func (l *fakeLink) wanted() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.wants)
}

func (l *fakeLink) Closed() <-chan struct{}                      { return l.closed }
func (l *fakeLink) HeldEvent(*extwire.Message) bool              { return l.held }
func (l *fakeLink) Tabs(context.Context) ([]protocol.Tab, error) { return l.tabs, nil }
func (l *fakeLink) Log() *slog.Logger                            { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// emit delivers an event to the subscribers that take it.
func (l *fakeLink) emit(in *extwire.Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.subs {
		if s.Filter(in) {
			s.Deliver(in)
		}
	}
}

// close ends the link: its subscribers are done.
func (l *fakeLink) close() {
	l.mu.Lock()
	subs := l.subs
	l.subs = map[int]*browserlink.Subscriber{}
	l.mu.Unlock()
	close(l.closed)
	for _, s := range subs {
		s.Done()
	}
}

func (l *fakeLink) ops() []extwire.Op {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]extwire.Op(nil), l.calls...)
}

// fakeBrowsers holds the one browser's current link.
type fakeBrowsers struct {
	mu      sync.Mutex
	link    *fakeLink
	changed chan struct{}
}

func (b *fakeBrowsers) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changed
}

func (b *fakeBrowsers) Link(string) Link {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.link == nil {
		return nil
	}
	return b.link
}

// set makes l the browser's link (nil: none).
func (b *fakeBrowsers) set(l *fakeLink) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.link = l
	close(b.changed)
	b.changed = make(chan struct{})
}

// note is a notification an agent got.
type note struct {
	method string
	params any
}

// fakeAgent records its notifications.
type fakeAgent struct {
	person bool
	notes  chan note
}

func (a *fakeAgent) Notify(method string, params any) { a.notes <- note{method, params} }
func (a *fakeAgent) IsPerson() bool                   { return a.person }

// next returns the agent's next notification.
func (a *fakeAgent) next(t *testing.T) note {
	t.Helper()
	select {
	case n := <-a.notes:
		return n
	case <-time.After(10 * time.Second):
		t.Fatal("no notification within 10 s")
		return note{}
	}
}

// none checks that the agent got no notification.
func (a *fakeAgent) none(t *testing.T) {
	t.Helper()
	select {
	case n := <-a.notes:
		t.Fatalf("got %+v, want no notification", n)
	default:
	}
}

type fixture struct {
	browsers *fakeBrowsers
	agent    *fakeAgent
	set      *Set
}

func newFixture(t *testing.T, l *fakeLink, grace time.Duration) *fixture {
	t.Helper()
	f := &fixture{browsers: &fakeBrowsers{link: l, changed: make(chan struct{})}, agent: &fakeAgent{notes: make(chan note, 64)}}
	opts := &Options{Browsers: f.browsers, ReconnectGrace: grace, RequestTimeout: 10 * time.Second, CodeOf: protocol.CodeOf}
	f.set = NewSet(opts, f.agent)
	t.Cleanup(f.set.Close)
	return f
}

func (f *fixture) subscribe(t *testing.T, l *fakeLink, tab int, methods ...string) string {
	t.Helper()
	res, err := f.set.Subscribe(context.Background(), l, "b1", tab, methods)
	if err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	if res.Tab != tab || res.Browser != "b1" {
		t.Fatalf("Subscribe: got %+v, want tab %d of b1", res, tab)
	}
	return res.Subscription
}

// A subscription delivers the events of its tab it asked for, says when
// the tab is detached, and ends when the tab is closed.
func TestDeliverAndTabClosed(t *testing.T) {
	l := newFakeLink()
	f := newFixture(t, l, time.Minute)
	name := f.subscribe(t, l, 7, "Network.dataReceived")
	if got, want := l.ops(), []extwire.Op{extwire.Attach{TabID: 7}}; !cmp.Equal(got, want) {
		t.Errorf("calls: got %v, want %v", got, want)
	}
	if got, want := l.wanted(), map[string]int{"Network.dataReceived": 1}; !cmp.Equal(got, want) {
		t.Errorf("wanted events: got %v, want %v", got, want)
	}
	l.emit(&extwire.Message{Event: "cdp", TabID: 8, Method: "Network.dataReceived"})
	l.emit(&extwire.Message{Event: "cdp", TabID: 7, Method: "Page.loadEventFired"})
	l.emit(&extwire.Message{Event: "cdp", TabID: 7, SessionID: "S", Method: "Network.dataReceived", Params: json.RawMessage(`{"n":1}`)})
	l.emit(&extwire.Message{Event: "detached", TabID: 7, Reason: "canceled_by_user"})
	l.emit(&extwire.Message{Event: "tab.removed", TabID: 7})
	want := []note{
		{protocol.NotifyCDPEvent, protocol.CDPEvent{Subscription: name, Browser: "b1", Tab: 7, SessionID: "S", Method: "Network.dataReceived", Params: json.RawMessage(`{"n":1}`)}},
		{protocol.NotifyTabDetached, protocol.TabDetached{Subscription: name, Browser: "b1", Tab: 7, Reason: "canceled_by_user"}},
		{protocol.NotifyTabDetached, protocol.TabDetached{Subscription: name, Browser: "b1", Tab: 7, Reason: "tab_closed"}},
		{protocol.NotifySubscriptionEnded, protocol.SubscriptionEnded{Subscription: name, Browser: "b1", Tab: 7, Reason: "tab_closed", Message: "tab 7 was closed"}},
	}
	for i, w := range want {
		if got := f.agent.next(t); !cmp.Equal(got, w, cmp.AllowUnexported(note{})) {
			t.Errorf("notification %d: got %+v, want %+v", i, got, w)
		}
	}
	if f.set.Unsubscribe(name) {
		t.Errorf("Unsubscribe of the ended %s: got true, want false", name)
	}
	if got := l.wanted(); len(got) != 0 {
		t.Errorf("wanted events after the end: got %v, want none", got)
	}
}

// The CDP events of a tab the person holds reach the person only.
func TestHeldTabReachesThePersonOnly(t *testing.T) {
	for _, person := range []bool{false, true} {
		l := newFakeLink()
		l.held = true
		f := newFixture(t, l, time.Minute)
		f.agent.person = person
		f.subscribe(t, l, 7)
		l.emit(&extwire.Message{Event: "cdp", TabID: 7, Method: "Page.loadEventFired"})
		l.emit(&extwire.Message{Event: "detached", TabID: 7, Reason: "target_closed"})
		want := []string{protocol.NotifyTabDetached}
		if person {
			want = []string{protocol.NotifyCDPEvent, protocol.NotifyTabDetached}
		}
		for _, w := range want {
			if got := f.agent.next(t); got.method != w {
				t.Errorf("person %v: got %s, want %s", person, got.method, w)
			}
		}
	}
}

// On the browser's next link a subscription finds its tab, attaches it
// again when its session was lost, enables again the latest enable of
// each domain still enabled (in order, with its params) and goes on.
func TestResumeOnTheNextLink(t *testing.T) {
	l := newFakeLink()
	f := newFixture(t, l, time.Minute)
	name := f.subscribe(t, l, 7)
	other := f.subscribe(t, l, 8)
	for _, c := range []struct {
		tab       int
		sessionID string
		method    string
		params    string
	}{
		{7, "", "Network.enable", `{"maxTotalBufferSize":1}`},
		{7, "", "Runtime.enable", ""},
		{7, "", "Page.enable", ""},
		{7, "", "Runtime.disable", ""},
		{7, "", "Network.enable", `{"maxTotalBufferSize":2}`},
		{7, "CHILD", "DOM.enable", ""},
		{7, "", "Page.navigate", `{"url":"https://example.com/"}`},
		{8, "", "Log.enable", ""},
	} {
		var p json.RawMessage
		if c.params != "" {
			p = json.RawMessage(c.params)
		}
		f.set.NoteCDPSend("b1", c.tab, c.sessionID, c.method, p)
	}
	if got, want := l.wanted(), map[string]int{"": 2}; !cmp.Equal(got, want) {
		t.Errorf("wanted events: got %v, want %v", got, want)
	}
	if !f.set.Unsubscribe(other) {
		t.Fatalf("Unsubscribe %s: got false, want true", other)
	}
	if got, want := l.wanted(), map[string]int{"": 1}; !cmp.Equal(got, want) {
		t.Errorf("wanted events after an unsubscribe: got %v, want %v", got, want)
	}
	l.close()
	back := newFakeLink(protocol.Tab{ID: 7, Attached: false})
	f.browsers.set(back)
	n := f.agent.next(t)
	res, ok := n.params.(protocol.SubscriptionResumed)
	if n.method != protocol.NotifySubscriptionResumed || !ok {
		t.Fatalf("got %+v, want cdp.subscriptionResumed", n)
	}
	if res.Subscription != name || !res.Reattached || !cmp.Equal(res.Reenabled, []string{"Page.enable", "Network.enable"}) {
		t.Errorf("resumed: got %+v, want %s reattached, Page.enable and Network.enable again", res, name)
	}
	wantOps := []extwire.Op{
		extwire.Attach{TabID: 7},
		extwire.CDP{TabID: 7, Method: "Page.enable"},
		extwire.CDP{TabID: 7, Method: "Network.enable", Params: json.RawMessage(`{"maxTotalBufferSize":2}`)},
	}
	if got := back.ops(); !cmp.Equal(got, wantOps) {
		t.Errorf("calls on the new link: got %v, want %v", got, wantOps)
	}
	back.emit(&extwire.Message{Event: "cdp", TabID: 7, Method: "Network.dataReceived"})
	if got := f.agent.next(t); got.method != protocol.NotifyCDPEvent {
		t.Errorf("after the resume: got %+v, want a cdp.event", got)
	}
	if got, want := back.wanted(), map[string]int{"": 1}; !cmp.Equal(got, want) {
		t.Errorf("wanted events on the new link: got %v, want %v", got, want)
	}
	if got := l.wanted(); len(got) != 0 {
		t.Errorf("wanted events on the old link: got %v, want none", got)
	}

	// Back without the tab: it ends.
	back.close()
	f.browsers.set(newFakeLink())
	n = f.agent.next(t)
	if ended, _ := n.params.(protocol.SubscriptionEnded); n.method != protocol.NotifySubscriptionEnded || ended.Reason != "tab_closed" {
		t.Errorf("got %+v, want cdp.subscriptionEnded, tab_closed", n)
	}
	f.agent.none(t)
	if got := back.wanted(); len(got) != 0 {
		t.Errorf("wanted events after the end: got %v, want none", got)
	}
}

// A subscription whose browser stays away ends (browser_disconnected);
// one the agent ended says nothing.
func TestBrowserStaysAway(t *testing.T) {
	l := newFakeLink()
	f := newFixture(t, l, 50*time.Millisecond)
	first, second := f.subscribe(t, l, 7), f.subscribe(t, l, 7)
	f.set.Unsubscribe(first)
	f.browsers.set(nil)
	l.close()
	n := f.agent.next(t)
	if ended, _ := n.params.(protocol.SubscriptionEnded); n.method != protocol.NotifySubscriptionEnded || ended.Subscription != second || ended.Reason != "browser_disconnected" {
		t.Errorf("got %+v, want %s ended, browser_disconnected", n, second)
	}
	f.agent.none(t)
}

// EndIn ends the subscriptions of the named tabs at once, saying why;
// Close ends the others silently, and the set takes no more.
func TestEndInAndClose(t *testing.T) {
	l := newFakeLink()
	f := newFixture(t, l, time.Minute)
	in := f.subscribe(t, l, 7)
	f.subscribe(t, l, 8)
	if n := f.set.EndIn("b2", []int{7}, "user_in_control", "x"); n != 0 {
		t.Errorf("EndIn of another browser: got %d, want 0", n)
	}
	if n := f.set.EndIn("b1", []int{7, 9}, "user_in_control", "the person took over"); n != 1 {
		t.Errorf("EndIn: got %d, want 1", n)
	}
	want := note{protocol.NotifySubscriptionEnded, protocol.SubscriptionEnded{Subscription: in, Browser: "b1", Tab: 7, Reason: "user_in_control", Message: "the person took over"}}
	if got := f.agent.next(t); !cmp.Equal(got, want, cmp.AllowUnexported(note{})) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	f.set.Close()
	f.agent.none(t)
	_, err := f.set.Subscribe(context.Background(), l, "b1", 7, nil)
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeInternal {
		t.Errorf("Subscribe after Close: got %v, want internal (agent is closing)", err)
	}
}
