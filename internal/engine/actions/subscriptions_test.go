package actions_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
)

// countingTab is a fake tab that counts the event subscriptions a call
// opens.
type countingTab struct {
	*cdpfake.Session
	subscribes, streams atomic.Int32
}

func (t *countingTab) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	t.subscribes.Add(1)
	return t.Session.Subscribe(method)
}

func (t *countingTab) Stream(methods ...string) (<-chan cdptab.Event, func()) {
	t.streams.Add(1)
	return t.Session.Stream(methods...)
}

func (t *countingTab) Child(target.SessionID) cdp.Session { return t.Session }
func (t *countingTab) Children() []cdptab.Child           { return nil }

// An eval watches the tab's page events (dialogs, navigations) through one
// subscription, not one per event method: each subscription is a buffer
// the service allocates per call (issue 8, item 9).
func TestEvalOpensOneEventSubscription(t *testing.T) {
	s := cdpfake.New()
	s.Reply("Page.enable", struct{}{})
	s.Reply("Page.setLifecycleEventsEnabled", struct{}{})
	s.Reply("Page.getFrameTree", map[string]any{"frameTree": map[string]any{"frame": map[string]any{"id": "F", "loaderId": "L", "url": "https://example.test/"}}})
	s.Reply("Runtime.evaluate", map[string]any{"result": map[string]any{"type": "number", "value": 3}})
	tab := &countingTab{Session: s}
	r := actions.New(tab, nil, actions.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := r.Evaluate(ctx, "1 + 2", 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Value) != "3" {
		t.Errorf("value: got %s, want 3", res.Value)
	}
	if got, want := tab.subscribes.Load()+tab.streams.Load(), int32(1); got != want {
		t.Errorf("event subscriptions of one eval: got %d (%d per-method, %d streams), want %d", got, tab.subscribes.Load(), tab.streams.Load(), want)
	}
}

// An eval that ends before Chrome answers Page.enable (the watch's setup
// runs beside it) does not cut the setup short: the next calls find the
// Page domain on and send it no more.
func TestPageSetupOutlivesAQuickEval(t *testing.T) {
	s := cdpfake.New()
	release, answered := make(chan struct{}), make(chan struct{})
	s.Handle("Page.enable", func(ctx context.Context, _ json.RawMessage) (any, error) {
		select {
		case <-release: // Chrome answers after the eval's own reply
			return struct{}{}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	s.Handle("Page.setLifecycleEventsEnabled", func(context.Context, json.RawMessage) (any, error) {
		close(answered)
		return struct{}{}, nil
	})
	s.Reply("Page.getFrameTree", map[string]any{"frameTree": map[string]any{"frame": map[string]any{"id": "F", "loaderId": "L", "url": "https://example.test/"}}})
	s.Reply("Runtime.evaluate", map[string]any{"result": map[string]any{"type": "number", "value": 3}})
	tab := &countingTab{Session: s}
	setup := &actions.TabSetup{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	eval := func() {
		t.Helper()
		r := actions.New(tab, nil, actions.Options{Setup: setup})
		if _, err := r.Evaluate(ctx, "1 + 2", 0); err != nil {
			t.Fatal(err)
		}
	}
	eval() // answered while Page.enable is still in flight
	close(release)
	select {
	case <-answered:
	case <-time.After(2 * time.Second):
		t.Fatal("the Page domain's setup ended with the eval that started it")
	}
	eval()
	eval()
	if got := s.Count("Page.enable"); got != 1 {
		t.Errorf("Page.enable sent %d times over three evals, want once", got)
	}
	if got := s.Count("Page.setLifecycleEventsEnabled"); got != 1 {
		t.Errorf("Page.setLifecycleEventsEnabled sent %d times over three evals, want once", got)
	}
}

// A call that joined another call's Page setup, which then failed, turns
// the domain on with a setup of its own (whose commands count in its own
// browserlink.Attempt), instead of taking the other call's error.
func TestAJoinedPageSetupThatFailsIsTriedAgain(t *testing.T) {
	s := cdpfake.New()
	release, waiting := make(chan struct{}), make(chan struct{})
	var enables atomic.Int32
	s.Handle("Page.enable", func(ctx context.Context, _ json.RawMessage) (any, error) {
		if enables.Add(1) == 1 {
			close(waiting)
			<-release // the first setup fails once the second call waits for it
			return nil, &cdpfake.Error{Method: "Page.enable", Message: "session closed"}
		}
		return struct{}{}, nil
	})
	s.Reply("Page.setLifecycleEventsEnabled", struct{}{})
	setup := &actions.TabSetup{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	first := make(chan error, 1)
	go func() { first <- setup.EnableOn(ctx, s, false, false) }()
	<-waiting
	second := make(chan error, 1)
	go func() { second <- setup.EnableOn(ctx, s, false, false) }()
	time.Sleep(50 * time.Millisecond) // the second call waits for the first's setup
	close(release)
	if err := <-first; err == nil {
		t.Error("the call whose setup failed: no error")
	}
	if err := <-second; err != nil {
		t.Errorf("the call that joined it: %v, want the domain on by a setup of its own", err)
	}
	if err := setup.EnableOn(ctx, s, false, false); err != nil || enables.Load() != 2 {
		t.Errorf("a third call: %v, Page.enable sent %d times; want no error and 2 (the domain was on)", err, enables.Load())
	}
}
