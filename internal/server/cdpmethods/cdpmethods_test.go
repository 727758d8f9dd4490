package cdpmethods

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/server/cdpsub"
	"github.com/egohost/egohost/protocol"
)

// cdp.send's own checks of its params come before the tab is looked up.
func TestSendParams(t *testing.T) {
	tests := []struct {
		name   string
		method string
		params string
		want   protocol.Code
	}{
		{"no method", "", "", protocol.CodeInvalidParams},
		{"not Domain.method", "evaluate", "", protocol.CodeInvalidParams},
		{"params an array", "Runtime.evaluate", `[1]`, protocol.CodeInvalidParams},
		{"params a string", "Runtime.evaluate", `"x"`, protocol.CodeInvalidParams},
		{"a method the allow-list refuses", "DOM.setFileInputFiles", `{}`, protocol.CodeScopeDenied},
		// A name twice: which one counts would be the parser's choice
		// (Chrome's and the checks' could differ).
		{"a name twice", "Page.navigate", `{"url":"https://example.org/","url":"https://www.bank.example/"}`, protocol.CodeInvalidParams},
		{"a name twice, deeper", "Network.setCookies", `{"cookies":[{"name":"a","value":"b","url":"https://example.com/","url":"https://bank.example/"}]}`, protocol.CodeInvalidParams},
		{"invalid UTF-8", "Runtime.evaluate", "{\"expression\":\"\xff\"}", protocol.CodeInvalidParams},
		{"params null", "Runtime.evaluate", `null`, 0},
		{"no params", "Runtime.evaluate", ``, 0},
		{"params an object", "Runtime.evaluate", `{"expression":"1"}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &fakeCall{paired: true, link: tab("https://example.com/a"), tab: 7, subs: &fakeSubs{}}
			p := protocol.CDPSendParams{Method: tt.method}
			if tt.params != "" {
				p.Params = json.RawMessage(tt.params)
			}
			_, err := New(&fakeService{}, slog.New(slog.DiscardHandler)).Send(context.Background(), c, p)
			if tt.want == 0 {
				if err != nil || len(c.targeted) != 1 {
					t.Fatalf("got %v (the tab looked up %d times), want it sent", err, len(c.targeted))
				}
				return
			}
			if protocol.CodeOf(err) != tt.want {
				t.Fatalf("got %v, want %s", err, tt.want.Name())
			}
			if len(c.targeted) > 0 {
				t.Errorf("the tab was looked up for a call refused on its params")
			}
		})
	}
}

// cdp.send sends the op to the tab it resolved (params "null" as none),
// notes it for the subscriptions that may resume, and answers the
// browser's result ({} for none). (Its run again when nothing reached
// the page: the service's TestCallRunsAgainWhenNothingReachedThePage.)
func TestSend(t *testing.T) {
	tests := []struct {
		name       string
		params     string
		reply      string
		wantParams string
		want       string
	}{
		{"params", `{"maxTotalBufferSize":1000}`, `{"ok":true}`, `{"maxTotalBufferSize":1000}`, `{"ok":true}`},
		{"params null", `null`, `{"ok":true}`, ``, `{"ok":true}`},
		{"no result", ``, ``, ``, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tab("https://example.com/a")
			l.reply = json.RawMessage(tt.reply)
			subs := &fakeSubs{}
			c := &fakeCall{paired: true, link: l, tab: 7, subs: subs}
			svc := &fakeService{}
			p := protocol.CDPSendParams{Target: protocol.Target{Browser: "B1", Tab: 7}, Method: "Network.enable"}
			if tt.params != "" {
				p.Params = json.RawMessage(tt.params)
			}
			res, err := New(svc, slog.New(slog.DiscardHandler)).Send(context.Background(), c, p)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(res.(json.RawMessage)); got != tt.want {
				t.Errorf("result: got %s, want %s", got, tt.want)
			}
			if diff := cmp.Diff([]protocol.Target{{Browser: "B1", Tab: 7}}, c.targeted); diff != "" {
				t.Errorf("targets (-want +got):\n%s", diff)
			}
			if len(l.ops) != 1 || l.ops[0].TabID != 7 || string(l.ops[0].Params) != tt.wantParams {
				t.Errorf("the browser got %+v, want Network.enable on tab 7 with params %s", l.ops, tt.wantParams)
			}
			if want := []string{fmtArgs("B1", 7, "", "Network.enable", tt.wantParams)}; !cmp.Equal(subs.noted, want) {
				t.Errorf("noted: got %v, want %v", subs.noted, want)
			}
		})
	}
}

// timeoutMs bounds the call (the tab's lookup included); a failed lookup
// is the call's answer.
func TestSendTimeoutAndTarget(t *testing.T) {
	gone := protocol.Errorf(protocol.CodeNoBrowser, "no browser is connected")
	c := &fakeCall{err: gone, subs: &fakeSubs{}}
	var deadline time.Time
	svc := &fakeService{}
	_, err := New(svc, slog.New(slog.DiscardHandler)).Send(context.Background(), c, protocol.CDPSendParams{Method: "Runtime.evaluate", TimeoutMs: 1500})
	if !errors.Is(err, gone) {
		t.Fatalf("got %v, want the lookup's error", err)
	}
	deadlineOf := &deadlineCall{fakeCall: c, deadline: &deadline}
	start := time.Now()
	_, _ = New(svc, slog.New(slog.DiscardHandler)).Send(context.Background(), deadlineOf, protocol.CDPSendParams{Method: "Runtime.evaluate", TimeoutMs: 1500})
	end := time.Now()
	if deadline.Before(start.Add(1500*time.Millisecond)) || deadline.After(end.Add(1500*time.Millisecond)) {
		t.Errorf("the lookup's deadline: got %v, want 1.5 s after the call started (%v to %v)", deadline, start, end)
	}
}

// deadlineCall notes the deadline its Target is called with.
type deadlineCall struct {
	*fakeCall
	deadline *time.Time
}

func (c *deadlineCall) Target(ctx context.Context, t protocol.Target) (Link, int, error) {
	*c.deadline, _ = ctx.Deadline()
	return c.fakeCall.Target(ctx, t)
}

// cdp.subscribe subscribes the connection to the tab it resolved, on
// that tab's link.
func TestSubscribe(t *testing.T) {
	l := tab("https://example.com/a")
	subs := &fakeSubs{}
	c := &fakeCall{paired: true, link: l, tab: 7, subs: subs}
	res, err := New(&fakeService{}, slog.New(slog.DiscardHandler)).Subscribe(context.Background(), c, protocol.CDPSubscribeParams{Target: protocol.Target{Tab: 7}, Methods: []string{"Network.requestWillBeSent"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.(protocol.CDPSubscribeResult).Subscription; got != "s1" {
		t.Errorf("subscription: got %q, want s1", got)
	}
	if want := []string{fmtArgs("B1", 7, "Network.requestWillBeSent")}; !cmp.Equal(subs.subscribed, want) || subs.link != cdpsub.Link(l) {
		t.Errorf("subscribed: got %v on %v, want %v on the tab's link", subs.subscribed, subs.link, want)
	}

	gone := protocol.Errorf(protocol.CodeTabNotFound, "no tab 9")
	c = &fakeCall{err: gone, subs: subs}
	if _, err := New(&fakeService{}, slog.New(slog.DiscardHandler)).Subscribe(context.Background(), c, protocol.CDPSubscribeParams{Target: protocol.Target{Tab: 9}}); !errors.Is(err, gone) || len(subs.subscribed) != 1 {
		t.Errorf("got %v (subscribed %v), want the lookup's error and no subscription", err, subs.subscribed)
	}

	// A name no event has is refused before anything is looked up.
	for _, bad := range []string{"", "consoleAPICalled", ".x", "Runtime."} {
		c = &fakeCall{paired: true, link: l, tab: 7, subs: subs}
		_, err := New(&fakeService{}, slog.New(slog.DiscardHandler)).Subscribe(context.Background(), c, protocol.CDPSubscribeParams{Target: protocol.Target{Tab: 7}, Methods: []string{"Runtime.consoleAPICalled", bad}})
		if protocol.CodeOf(err) != protocol.CodeInvalidParams || len(subs.subscribed) != 1 {
			t.Errorf("methods with %q: got %v (subscribed %v), want invalid_params and no subscription", bad, err, subs.subscribed)
		}
	}
}

// An agent with origin rules subscribes to nothing: events of every frame
// and of the tab's later documents would stream past the rules. The
// owner, and an agent without rules, subscribe.
func TestSubscribeWithOriginRules(t *testing.T) {
	tests := []struct {
		name   string
		paired bool
		denied string
		want   protocol.Code
	}{
		{name: "an agent with origin rules", paired: true, denied: "bank.example", want: protocol.CodeForbiddenOriginScope},
		{name: "an agent without", paired: true},
		{name: "the owner", denied: "bank.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			subs := &fakeSubs{}
			c := &fakeCall{paired: tt.paired, denied: tt.denied, link: tab("https://example.com/a"), tab: 7, subs: subs}
			_, err := New(&fakeService{}, slog.New(slog.DiscardHandler)).Subscribe(context.Background(), c, protocol.CDPSubscribeParams{Target: protocol.Target{Tab: 7}})
			if tt.want == 0 && err != nil || tt.want != 0 && protocol.CodeOf(err) != tt.want {
				t.Fatalf("got %v, want %s", err, tt.want.Name())
			}
			if subscribed := len(subs.subscribed) == 1; subscribed != (tt.want == 0) {
				t.Errorf("subscribed %v, want a subscription only when it is let through", subs.subscribed)
			}
			var pe *protocol.Error
			if tt.want != 0 && (!errors.As(err, &pe) || pe.Data["reason"] != "cdp_events" || len(c.targeted) != 0) {
				t.Errorf("got %+v (looked up %v), want data.reason cdp_events and no tab looked up", pe, c.targeted)
			}
		})
	}
}

// cdp.unsubscribe ends one of the connection's subscriptions; a name it
// does not have is invalid_params.
func TestUnsubscribe(t *testing.T) {
	c := &fakeCall{subs: &fakeSubs{names: map[string]bool{"s1": true}}}
	m := New(&fakeService{}, slog.New(slog.DiscardHandler))
	res, err := m.Unsubscribe(context.Background(), c, protocol.CDPUnsubscribeParams{Subscription: "s1"})
	if err != nil || !cmp.Equal(res, any(map[string]any{"unsubscribed": true})) {
		t.Fatalf("got %v, %v; want unsubscribed", res, err)
	}
	_, err = m.Unsubscribe(context.Background(), c, protocol.CDPUnsubscribeParams{Subscription: "s1"})
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidParams || pe.Message != `no subscription "s1"` {
		t.Errorf("again: got %v, want invalid_params, no subscription \"s1\"", err)
	}
}
