package service

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/protocol"
)

// Only a paired agent whose policy names a kind of the method is asked;
// the methods that may ask get timeouts.confirm more.
func TestConfirmKinds(t *testing.T) {
	s := &Service{opts: Options{Confirm: confirm.Policy{Agents: map[string][]confirm.Rule{
		"uploader": {{Origins: []string{"*"}, Actions: []confirm.Kind{confirm.Upload}}},
		"quiet":    {},
		"careful":  {{Origins: []string{"*"}, Actions: []confirm.Kind{confirm.NavigateNewOrigin, confirm.CookieWrite, confirm.Download, confirm.Submit}}},
	}}}}
	s.methods = methodsByName(s.registry())
	paired := func(name string) grant {
		return grant{kind: grantPaired, name: name, scopes: []pairing.Scope{pairing.Space}}
	}
	tests := []struct {
		name   string
		g      grant
		method string
		want   int
	}{
		{"owner", ownerGrant, protocol.MethodClick, 0},
		{"person", personGrant, protocol.MethodClick, 0},
		{"default policy click", paired("bot"), protocol.MethodClick, 2},
		{"default policy press", paired("bot"), protocol.MethodPress, 2},
		{"default policy fill", paired("bot"), protocol.MethodFill, 0},
		{"an agent with its own rules", paired("uploader"), protocol.MethodClick, 0},
		{"an agent that asks nothing", paired("quiet"), protocol.MethodClick, 0},
		{"default policy goto", paired("bot"), protocol.MethodGoto, 0},
		{"navigate_new_origin: goto", paired("careful"), protocol.MethodGoto, 1},
		{"navigate_new_origin: a new tab", paired("careful"), protocol.MethodTabsOpen, 1},
		{"navigate_new_origin: back", paired("careful"), protocol.MethodBack, 1},
		{"reload stays on its origin", paired("careful"), protocol.MethodReload, 0},
		{"a click can submit or leave the origin", paired("careful"), protocol.MethodClick, 2},
		{"cookie_write: set", paired("careful"), protocol.MethodCookiesSet, 1},
		{"cookie_write: clear", paired("careful"), protocol.MethodCookiesClear, 1},
		{"cookies.get writes nothing", paired("careful"), protocol.MethodCookiesGet, 0},
		{"download", paired("careful"), protocol.MethodDownload, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.confirmKinds(tt.g, tt.method); len(got) != tt.want {
				t.Errorf("got %v, want %d kinds", got, tt.want)
			}
		})
	}
	o := Options{RequestTimeout: 30 * time.Second, ConfirmTimeout: 2 * time.Minute}
	for _, tt := range []struct {
		method string
		mayAsk bool
		want   time.Duration
	}{
		{protocol.MethodClick, true, 150 * time.Second},
		{protocol.MethodClick, false, 30 * time.Second}, // the owner's, or no policy naming it
		{protocol.MethodFill, false, 30 * time.Second},
	} {
		if got := s.methods[tt.method].deadline(o, tt.mayAsk); got != tt.want {
			t.Errorf("%s's deadline (may ask %v): got %v, want %v", tt.method, tt.mayAsk, got, tt.want)
		}
	}
}

// The policy check of a call nobody asks about costs next to nothing
// (issue 26: at most 20 µs).
func BenchmarkConfirmKinds(b *testing.B) {
	s := &Service{opts: Options{Confirm: confirm.Policy{Agents: map[string][]confirm.Rule{"quiet": {}}}}}
	s.methods = methodsByName(s.registry())
	g := grant{kind: grantPaired, name: "quiet"}
	for b.Loop() {
		if s.confirmKinds(g, protocol.MethodClick) != nil {
			b.Fatal("asked")
		}
	}
}

// Every way a call comes in gets its method's deadline from the one place
// (Service.call): a click an agent's policy may ask the person about gets
// the confirmation's wait on top of the request's, whether the agent sent
// it or its script did (a script's calls had the request's deadline only,
// so a confirmation asked inside a script ended before the person could
// answer).
func TestCallDeadlineFromItsRow(t *testing.T) {
	var mu sync.Mutex
	var got time.Duration
	f := newFixtureWith(t, func(o *Options) {
		o.RequestTimeout = 30 * time.Second
		o.ConfirmTimeout = 2 * time.Minute
	}, func(s *Service) {
		m := s.methods[protocol.MethodClick]
		m.handler = typed(func(ctx context.Context, _ *call, _ protocol.ClickParams) (any, error) {
			d, _ := ctx.Deadline()
			mu.Lock()
			got = time.Until(d)
			mu.Unlock()
			return protocol.ActionResult{}, nil
		})
		s.methods[protocol.MethodClick] = m
	})
	bot := &agent{s: f.s, grant: grant{kind: grantPaired, name: "bot", scopes: []pairing.Scope{pairing.Space}}}
	owner := &agent{s: f.s, grant: ownerGrant}
	click := json.RawMessage(`{"target":"#buy"}`)
	for _, tt := range []struct {
		name string
		run  func() error
		want time.Duration
	}{
		{"the owner's click", func() error {
			_, err := f.s.call(context.Background(), owner, nil, protocol.MethodClick, click)
			return err
		}, 30 * time.Second},
		{"an agent's click its policy asks about", func() error {
			_, err := f.s.call(context.Background(), bot, nil, protocol.MethodClick, click)
			return err
		}, 150 * time.Second},
		{"the same click from its script", func() error {
			_, err := scriptCalls{s: f.s, a: bot}.Call(context.Background(), protocol.MethodClick, click)
			return err
		}, 150 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.run(); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if got > tt.want || got < tt.want-10*time.Second {
				t.Errorf("got a deadline %v away, want %v", got.Round(time.Second), tt.want)
			}
		})
	}
}
