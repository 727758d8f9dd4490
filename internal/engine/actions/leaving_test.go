package actions

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/link/cdptab"
)

// leaving closes at the first navigation of the main frame that starts or
// commits after the action was dispatched (arm), and at nothing else.
func TestWatchLeaving(t *testing.T) {
	const main, child = "MAIN", "CHILD"
	tests := []struct {
		name   string
		armed  bool
		events []navEvent
		want   bool
	}{
		{"nothing happened", true, nil, false},
		{"main frame starts to navigate", true, []navEvent{{kind: navStarted, frameID: main}}, true},
		{"a new document commits", true, []navEvent{{kind: navCommitted, frameID: main}}, true},
		{"before the dispatch", false, []navEvent{{kind: navStarted, frameID: main}}, false},
		{"a child frame navigates", true, []navEvent{{kind: navStarted, frameID: child}}, false},
		{"same-document navigation", true, []navEvent{{kind: navSameDoc, frameID: main}}, false},
		{"lifecycle only", true, []navEvent{{kind: navLifecycle, frameID: main, name: "load"}}, false},
		{"twice", true, []navEvent{{kind: navStarted, frameID: main}, {kind: navCommitted, frameID: main}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ready := make(chan struct{})
			close(ready)
			w := &watch{ready: ready, mainFrame: main, leaving: make(chan struct{}), nav: make(chan navEvent, navBuffer)}
			if tt.armed {
				w.arm()
			}
			put := w.handleEvents("click")
			for _, ev := range tt.events {
				put(cdpEvent(t, ev))
			}
			got := false
			select {
			case <-w.leaving:
				got = true
			default:
			}
			if got != tt.want {
				t.Errorf("leaving closed: got %v, want %v", got, tt.want)
			}
		})
	}
}

// untilClosed's context ends when the channel closes, and with its parent;
// a nil channel never ends it.
func TestUntilClosed(t *testing.T) {
	ch := make(chan struct{})
	ctx, stop := untilClosed(context.Background(), ch)
	defer stop()
	if ctx.Err() != nil {
		t.Fatal("ended before the channel closed")
	}
	close(ch)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second): // a hang bound, not a timing
		t.Fatal("did not end when the channel closed")
	}

	parent, cancel := context.WithCancel(context.Background())
	ctx, stop = untilClosed(parent, nil)
	defer stop()
	cancel()
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("did not end with its parent")
	}
}

// cdpEvent is the CDP event the watch turns into ev.
func cdpEvent(t *testing.T, ev navEvent) cdptab.Event {
	t.Helper()
	var method string
	var params any
	switch ev.kind {
	case navStarted:
		method, params = page.FrameStartedNavigating.Method, page.EventFrameStartedNavigating{FrameID: ev.frameID, LoaderID: "L", URL: "http://x/", NavigationType: page.FrameStartedNavigatingNavigationTypeDifferentDocument}
	case navCommitted:
		method, params = page.FrameNavigated.Method, page.EventFrameNavigated{Frame: &cdp.Frame{ID: ev.frameID, LoaderID: "L", URL: "http://x/"}, Type: page.NavigationTypeNavigation}
	case navSameDoc:
		method, params = page.NavigatedWithinDocument.Method, page.EventNavigatedWithinDocument{FrameID: ev.frameID, URL: "http://x/#a"}
	case navLifecycle:
		method, params = page.LifecycleEvent.Method, page.EventLifecycleEvent{FrameID: ev.frameID, LoaderID: "L", Name: ev.name}
	default:
		t.Fatalf("no CDP event for kind %d", ev.kind)
	}
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return cdptab.Event{Method: method, Params: jsonv2.Value(b)}
}
