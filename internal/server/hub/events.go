package hub

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/extwire"
)

// quietMethods are the CDP events no part of the service reads and that
// come in numbers: every chunk of every response, the raw headers of every
// request and response (again), cache and priority notes, every WebSocket
// frame and server-sent event, and the load events the lifecycle events
// already carry. The extension does not forward them unless an agent
// subscribed to them (extwire.EventsQuiet): Chrome hands them to the
// extension all the same, but the browser's native messaging, the relay
// and the service are spared the copies. TestQuietEventsAreReadByNoOne
// fails when code of the service starts reading one.
var quietMethods = []string{
	"Network.dataReceived",
	"Network.requestWillBeSentExtraInfo",
	"Network.responseReceivedExtraInfo",
	"Network.requestServedFromCache",
	"Network.resourceChangedPriority",
	"Network.policyUpdated",
	"Network.webSocketFrameReceived",
	"Network.webSocketFrameSent",
	"Network.webSocketFrameError",
	"Network.eventSourceMessageReceived",
	"Page.domContentEventFired",
	"Page.loadEventFired",
}

// quietLifecycle are the names of the Page.lifecycleEvent events the
// service does not read (it waits for init, commit, DOMContentLoaded,
// load and networkIdle): Chrome's paint and interactivity milestones,
// four or more of each document's ten.
var quietLifecycle = []string{
	"firstPaint",
	"firstContentfulPaint",
	"firstImagePaint",
	"firstMeaningfulPaintCandidate",
	"firstMeaningfulPaint",
	"networkAlmostIdle",
	"InteractiveTime",
}

// lifecycleMethod is the event whose names quietLifecycle lists.
const lifecycleMethod = "Page.lifecycleEvent"

// quietTimeout bounds one events.quiet call (the extension answers it at
// once).
const quietTimeout = 10 * time.Second

// events is what a browser's extension forwards of the CDP events: all
// but the quiet ones no subscription wants.
type events struct {
	// turn is held while a set is sent, so that the extension gets the
	// sets in the order they were made, and a want returns only once the
	// extension forwards what it wants; a want waits for it within its
	// context. Made at first use (the zero value is ready).
	turn chan struct{}

	mu    sync.Mutex
	wants map[string]int // CDP method → the subscriptions that want it
	all   int            // the subscriptions that want every event
	sent  extwire.EventsQuiet
	known bool // sent is what the extension has (false before the first set, and after a failed call)
	off   bool // the extension has no events.quiet op (an older one): it forwards every event
}

// quiet is the set the extension should have now. e.mu is held.
func (e *events) quiet() extwire.EventsQuiet {
	var q extwire.EventsQuiet
	if e.all > 0 {
		return q
	}
	for _, m := range quietMethods {
		if e.wants[m] == 0 {
			q.Methods = append(q.Methods, m)
		}
	}
	if e.wants[lifecycleMethod] == 0 {
		q.Lifecycle = quietLifecycle
	}
	return q
}

// want counts a subscription to methods (every event when empty) up (by
// 1) or down (by -1).
func (e *events) want(methods []string, by int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(methods) == 0 {
		e.all += by
		return
	}
	if e.wants == nil {
		e.wants = make(map[string]int)
	}
	for _, m := range methods {
		if e.wants[m] += by; e.wants[m] <= 0 {
			delete(e.wants, m)
		}
	}
}

// syncQuiet sends the extension the quiet set of now when it is not the
// one it has, and returns once the extension has it.
func (l *Link) syncQuiet(ctx context.Context) error {
	e := &l.events
	e.mu.Lock()
	if e.turn == nil {
		e.turn = make(chan struct{}, 1)
	}
	turn := e.turn
	e.mu.Unlock()
	select {
	case turn <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("events.quiet: %w", ctx.Err())
	}
	defer func() { <-turn }()
	e.mu.Lock()
	q := e.quiet()
	same := e.off || e.known && slices.Equal(q.Methods, e.sent.Methods) && slices.Equal(q.Lifecycle, e.sent.Lifecycle)
	e.mu.Unlock()
	if same {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, quietTimeout)
	defer cancel()
	_, err := l.Call(ctx, q)
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		var le *browserlink.Error
		if errors.As(err, &le) && le.Kind == browserlink.KindExtension && le.Ext != nil && le.Ext.Code == extwire.ErrUnknownOp {
			e.off = true // it forwards everything
			return nil
		}
		e.known = false
		return fmt.Errorf("events.quiet: %w", err)
	}
	e.sent, e.known = q, true
	return nil
}

// quietEvents gives the extension its first quiet set, after its hello.
func (l *Link) quietEvents(ctx context.Context) {
	if err := l.syncQuiet(ctx); err != nil && ctx.Err() == nil {
		l.Log.Debug("quiet events not set: the extension forwards every event", "err", err)
	}
}

// WantEvents makes the extension forward the CDP events of methods (every
// event when methods is empty) until release is called: a cdp.subscribe
// subscription's. It returns once the extension forwards them, or fails
// when it could not be told within ctx. release may be called more than
// once, and with locks held: it does not block.
func (l *Link) WantEvents(ctx context.Context, methods []string) (release func(), err error) {
	methods = slices.Clone(methods) // counted down with release
	e := &l.events
	e.want(methods, 1)
	release = sync.OnceFunc(func() {
		e.want(methods, -1)
		go func() {
			select {
			case <-l.Closed():
				return // nothing to tell
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*quietTimeout) // a turn, then a call
			defer cancel()
			if err := l.syncQuiet(ctx); err != nil {
				l.Log.Debug("quiet events not set again", "err", err)
			}
		}()
	})
	if err := l.syncQuiet(ctx); err != nil {
		release()
		return nil, err
	}
	return release, nil
}
