package service

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/protocol"
)

// Every method of the table decodes its params the same strict way: an
// unknown field or a params value that is not an object is invalid_params,
// answered before anything else happens (no browser is connected here, so a
// method that let bad params through would answer no_browser instead).
func TestEveryMethodRefusesBadParams(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t)
	methods := make([]string, 0, len(f.s.methods))
	for name := range f.s.methods {
		methods = append(methods, name)
	}
	sort.Strings(methods)
	if len(methods) < 30 {
		t.Fatalf("got %d methods in the table, want every method (30 or more)", len(methods))
	}
	bad := []struct {
		name   string
		params string
	}{
		{"unknown field", `{"bogus":1}`},
		{"unknown field beside known ones", `{"browser":"b1","bogus":1}`},
		{"known field in the wrong case", `{"BROWSER":"b1"}`},
		{"known field of the wrong type", `{"browser":1}`},
		{"object inside an array", `[{"browser":"b1"}]`},
		{"empty array", `[]`},
		{"array", `[1,2]`},
		{"string", `"x"`},
		{"number", `1`},
		{"boolean", `true`},
	}
	for _, m := range methods {
		for _, b := range bad {
			t.Run(m+"/"+b.name, func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				err := a.Call(ctx, m, json.RawMessage(b.params), nil)
				wantCode(t, err, protocol.CodeInvalidParams)
			})
		}
	}
}

// The error says what was wrong, in words an agent can act on.
func TestBadParamsMessages(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t)
	tests := []struct {
		method, params, want string
	}{
		{protocol.MethodTabsList, `{"Browser":"b1"}`, `unknown field "Browser" (did you mean "browser"?)`},
		{protocol.MethodPing, `{"bogus":1}`, `unknown field "bogus" (this method takes no params)`},
		{protocol.MethodTabsClose, `{"tabb":1}`, `unknown field "tabb" (known: browser, tab)`},
		{protocol.MethodBrowsersList, `[]`, `must be a JSON object (params by name), got an array`},
		{protocol.MethodTabsClose, `{"tab":"7"}`, `cannot unmarshal string into Go struct field`},
	}
	for _, tt := range tests {
		err := a.Call(context.Background(), tt.method, json.RawMessage(tt.params), nil)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidParams || !strings.Contains(pe.Message, tt.want) {
			t.Errorf("%s %s: got %v, want invalid_params saying %q", tt.method, tt.params, err, tt.want)
		}
	}
}

// Methods without params take them absent, null or empty.
func TestNoParamsMethodsAcceptNothing(t *testing.T) {
	f := newFixture(t)
	a := f.agent(t)
	for _, m := range []string{protocol.MethodPing, protocol.MethodBrowsersList} {
		for _, params := range []any{nil, json.RawMessage(`null`), json.RawMessage(`{}`)} {
			if err := a.Call(context.Background(), m, params, nil); err != nil {
				t.Errorf("%s with params %s: got %v, want success", m, params, err)
			}
		}
	}
}

// rawAgent is a bare WebSocket to the service, for messages the client
// package never sends.
func rawAgent(t *testing.T, f *fixture) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+f.s.Addr()+protocol.Path, &websocket.DialOptions{
		HTTPHeader: http.Header{"Authorization": {"Bearer " + f.s.Token()}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

func rawRoundTrip(t *testing.T, ws *websocket.Conn, msg string) protocol.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ws.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	_, data, err := ws.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var resp protocol.Response
	if err := json.Unmarshal(data, &resp); err != nil {
		t.Fatalf("reply %s: %v", data, err)
	}
	return resp
}

// A JSON-RPC batch is valid JSON that egohost does not support: it gets
// one invalid_request answer saying so, and the connection goes on.
func TestBatchIsRefused(t *testing.T) {
	f := newFixture(t)
	ws := rawAgent(t, f)
	for _, batch := range []string{
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		` [ ]`,
	} {
		resp := rawRoundTrip(t, ws, batch)
		if resp.Error == nil || resp.Error.Code != protocol.CodeInvalidRequest || string(resp.ID) != "null" {
			t.Fatalf("batch %s: got %+v, want invalid_request with id null", batch, resp)
		}
		if want := "batches are not supported"; !strings.Contains(resp.Error.Message, want) {
			t.Errorf("batch %s: got message %q, want it to say %q", batch, resp.Error.Message, want)
		}
	}
	if resp := rawRoundTrip(t, ws, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); resp.Error != nil || string(resp.ID) != "3" {
		t.Errorf("ping after the batches: got %+v, want a result for id 3", resp)
	}
}

// gate is a test method that holds its slot until released, ignoring its
// context, and records how many run at once.
type gate struct {
	running, peak atomic.Int32
	started       chan struct{}
	release       chan struct{}
}

const methodGate = "test.gate"

func newGate(n int) *gate {
	return &gate{started: make(chan struct{}, n), release: make(chan struct{}, n)}
}

func (g *gate) install(s *Service) {
	s.methods[methodGate] = method{name: methodGate, need: pairing.NeedNone, handler: typed(func(ctx context.Context, _ *call, p struct {
		N int `json:"n"`
	}) (any, error) {
		now := g.running.Add(1)
		for {
			old := g.peak.Load()
			if now <= old || g.peak.CompareAndSwap(old, now) {
				break
			}
		}
		g.started <- struct{}{}
		<-g.release
		g.running.Add(-1)
		return p.N, nil
	})}
}

func (g *gate) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-g.started:
	case <-time.After(10 * time.Second):
		t.Fatal("no gate call started within 10 s")
	}
}

// One connection runs at most MaxInFlight requests at once; the rest wait
// (the service stops reading) and none is lost or refused.
func TestInFlightCapQueuesPipelinedRequests(t *testing.T) {
	const limit, calls = 4, 60
	g := newGate(calls)
	f := newFixtureWith(t, func(o *Options) { o.MaxInFlight = limit }, g.install)
	a := f.agent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got int
			if err := a.Call(ctx, methodGate, map[string]int{"n": i}, &got); err != nil {
				errs <- err
				return
			}
			if got != i {
				errs <- &protocol.Error{Message: "call " + strconv.Itoa(i) + " got the answer of " + strconv.Itoa(got)}
			}
		}()
	}
	// Let one call finish for each one that starts beyond the cap.
	for i := range calls {
		g.waitStarted(t)
		if i >= limit-1 {
			g.release <- struct{}{}
		}
	}
	for range limit - 1 {
		g.release <- struct{}{}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := g.peak.Load(); got != limit {
		t.Errorf("got %d requests running at once, want the cap, %d", got, limit)
	}
}

// When every slot stays busy for a whole request deadline (here: handlers
// that overrun theirs), the next request is refused with busy rather than
// queued without bound; once a slot frees, requests run again.
func TestInFlightCapRefusesWhenStuck(t *testing.T) {
	const limit = 2
	g := newGate(limit)
	f := newFixtureWith(t, func(o *Options) {
		o.MaxInFlight = limit
		o.RequestTimeout = 200 * time.Millisecond
	}, g.install)
	a := f.agent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	done := make(chan error, limit)
	for i := range limit {
		go func() { done <- a.Call(ctx, methodGate, map[string]int{"n": i}, nil) }()
	}
	for range limit {
		g.waitStarted(t)
	}
	err := a.Call(ctx, protocol.MethodPing, nil, nil)
	wantCode(t, err, protocol.CodeBusy)
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Data["limit"] != float64(limit) {
		t.Errorf("busy data: got %v, want limit %d", pe.Data, limit)
	}
	for range limit {
		g.release <- struct{}{}
	}
	for range limit {
		if err := <-done; err != nil {
			t.Errorf("gate call: %v", err)
		}
	}
	// The service was stalled, waiting for this message with no slot: the
	// slots that freed meanwhile admit it.
	if err := a.Call(ctx, protocol.MethodPing, nil, nil); err != nil {
		t.Errorf("ping once the slots are free: got %v, want success", err)
	}
}

// With the cap reached, the next request is not read until a request
// ends: its answer comes after the answer that freed the slot.
func TestInFlightCapHoldsTheNextRequest(t *testing.T) {
	const limit = 2
	g := newGate(limit)
	f := newFixtureWith(t, func(o *Options) { o.MaxInFlight = limit }, g.install)
	ws := rawAgent(t, f)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	send := func(msg string) {
		if err := ws.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	next := func() protocol.Response {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var r protocol.Response
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"test.gate","params":{"n":1}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"test.gate","params":{"n":2}}`)
	g.waitStarted(t)
	g.waitStarted(t)
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	g.release <- struct{}{}
	first, second := next(), next()
	if string(first.ID) == "3" || string(second.ID) != "3" || second.Error != nil {
		t.Errorf("got answers to ids %s then %s (%v), want a gate's answer, then the ping's", first.ID, second.ID, second.Error)
	}
	g.release <- struct{}{}
	if last := next(); last.Error != nil || (string(last.ID) != "1" && string(last.ID) != "2") {
		t.Errorf("last answer: got %+v, want the other gate's", last)
	}
}
