package agentconn

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/egohost/egohost/protocol"
)

// handlerFunc is a Handler made of a function.
type handlerFunc func(ctx context.Context, method string, params json.RawMessage) (any, error)

func (f handlerFunc) Call(ctx context.Context, method string, params json.RawMessage) (any, error) {
	return f(ctx, method, params)
}

// pong answers every call with "pong".
var pong = handlerFunc(func(context.Context, string, json.RawMessage) (any, error) { return "pong", nil })

var testLimits = Limits{MaxMessage: 1 << 20, MaxInFlight: 64, RequestTimeout: 30 * time.Second}

// dialServed serves h with lim on a WebSocket test server, and dials it
// with a bare WebSocket, for messages a client never sends.
func dialServed(t *testing.T, lim Limits, h Handler) *websocket.Conn {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := Accept(w, r, slog.New(slog.DiscardHandler))
		if err != nil {
			return
		}
		defer c.Close()
		c.Serve(r.Context(), lim, h)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ws
}

func send(t *testing.T, ws *websocket.Conn, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ws.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

func next(t *testing.T, ws *websocket.Conn) protocol.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
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

func roundTrip(t *testing.T, ws *websocket.Conn, msg string) protocol.Response {
	t.Helper()
	send(t, ws, msg)
	return next(t, ws)
}

func TestParseRequest(t *testing.T) {
	tests := []struct {
		name   string
		typ    websocket.MessageType
		data   string
		want   protocol.Code // 0: a request
		wantID string
	}{
		{"request", websocket.MessageText, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0, "1"},
		{"notification", websocket.MessageText, `{"jsonrpc":"2.0","method":"ping"}`, 0, ""},
		{"binary", websocket.MessageBinary, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, protocol.CodeInvalidRequest, ""},
		{"batch", websocket.MessageText, " \n[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", protocol.CodeInvalidRequest, ""},
		{"not JSON", websocket.MessageText, `{"jsonrpc":`, protocol.CodeParseError, ""},
		{"no version", websocket.MessageText, `{"id":7,"method":"ping"}`, protocol.CodeInvalidRequest, "7"},
		{"no method", websocket.MessageText, `{"jsonrpc":"2.0","id":"x"}`, protocol.CodeInvalidRequest, `"x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, e := parseRequest(tt.typ, []byte(tt.data))
			var got protocol.Code
			if e != nil {
				got = e.Code
			}
			if got != tt.want || string(req.ID) != tt.wantID {
				t.Errorf("got code %d, id %q; want code %d, id %q", got, req.ID, tt.want, tt.wantID)
			}
		})
	}
}

// FuzzParseRequest: any message is a request with a method, or an error
// that carries the ID to answer; never a panic.
func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[]`, `{"id":7}`, ``, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		req, e := parseRequest(websocket.MessageText, []byte(data))
		if e == nil && (req.Method == "" || req.JSONRPC != protocol.Version) {
			t.Errorf("%q: got %+v and no error, want a request with a method", data, req)
		}
	})
}

// A JSON-RPC batch is valid JSON that egohost does not support: it gets
// one invalid_request answer saying so, and the connection goes on.
func TestBatchIsRefused(t *testing.T) {
	ws := dialServed(t, testLimits, pong)
	for _, batch := range []string{
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		` [ ]`,
	} {
		resp := roundTrip(t, ws, batch)
		if resp.Error == nil || resp.Error.Code != protocol.CodeInvalidRequest || string(resp.ID) != "null" {
			t.Fatalf("batch %s: got %+v, want invalid_request with id null", batch, resp)
		}
		if want := "batches are not supported"; !strings.Contains(resp.Error.Message, want) {
			t.Errorf("batch %s: got message %q, want it to say %q", batch, resp.Error.Message, want)
		}
	}
	if resp := roundTrip(t, ws, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); resp.Error != nil || string(resp.ID) != "3" {
		t.Errorf("ping after the batches: got %+v, want a result for id 3", resp)
	}
}

// A handler's error is the reply's: a *protocol.Error as it is, any
// other error made one (a deadline is timeout, else internal); a result
// that does not encode is internal.
func TestReplyErrors(t *testing.T) {
	ws := dialServed(t, testLimits, handlerFunc(func(_ context.Context, method string, _ json.RawMessage) (any, error) {
		switch method {
		case "refused":
			return nil, protocol.Errorf(protocol.CodeScopeDenied, "no")
		case "late":
			return nil, context.DeadlineExceeded
		case "broken":
			return nil, errors.New("broken")
		default:
			return func() {}, nil
		}
	}))
	for method, want := range map[string]protocol.Code{
		"refused": protocol.CodeScopeDenied, "late": protocol.CodeTimeout, "broken": protocol.CodeInternal, "unencodable": protocol.CodeInternal,
	} {
		resp := roundTrip(t, ws, `{"jsonrpc":"2.0","id":1,"method":"`+method+`"}`)
		if resp.Error == nil || resp.Error.Code != want {
			t.Errorf("%s: got %+v, want %s", method, resp, want.Name())
		}
	}
}

// A message over the cap closes the connection, and Serve says why.
func TestMessageTooBig(t *testing.T) {
	served := make(chan error, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := Accept(w, r, slog.New(slog.DiscardHandler))
		if err != nil {
			return
		}
		defer c.Close()
		served <- c.Serve(r.Context(), Limits{MaxMessage: 64, MaxInFlight: 1, RequestTimeout: time.Second}, pong)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"`+strings.Repeat("x", 100)+`"}`))
	select {
	case err := <-served:
		if !errors.Is(err, ErrMessageTooBig) {
			t.Errorf("Serve: got %v, want ErrMessageTooBig", err)
		}
	case <-ctx.Done():
		t.Fatal("Serve did not return after a message over the cap")
	}
}

// gate is a test handler that holds its slot until released, ignoring
// its context, and records how many run at once. Other methods answer
// "pong".
type gate struct {
	running, peak atomic.Int32
	started       chan struct{}
	release       chan struct{}
}

func newGate(n int) *gate {
	return &gate{started: make(chan struct{}, n), release: make(chan struct{}, n)}
}

// releaseAll lets every gate call still held end (at a test's end).
func (g *gate) releaseAll() { close(g.release) }

func (g *gate) Call(_ context.Context, method string, params json.RawMessage) (any, error) {
	if method != "test.gate" {
		return "pong", nil
	}
	var p struct {
		N int `json:"n"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, err
	}
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
}

func (g *gate) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-g.started:
	case <-time.After(10 * time.Second):
		t.Fatal("no gate call started within 10 s")
	}
}

func gateCall(id int) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"test.gate","params":{"n":` + strconv.Itoa(id) + `}}`
}

// One connection runs at most MaxInFlight requests at once; the rest wait
// (the service stops reading) and none is lost or refused.
func TestInFlightCapQueuesPipelinedRequests(t *testing.T) {
	const limit, calls = 4, 60
	g := newGate(calls)
	ws := dialServed(t, Limits{MaxMessage: 1 << 20, MaxInFlight: limit, RequestTimeout: 30 * time.Second}, g)
	t.Cleanup(g.releaseAll)
	for i := range calls {
		send(t, ws, gateCall(i))
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
	answered := map[string]bool{}
	for range calls {
		resp := next(t, ws)
		if resp.Error != nil || string(resp.Result) != string(resp.ID) {
			t.Errorf("call %s: got %s, %v; want its own n", resp.ID, resp.Result, resp.Error)
		}
		answered[string(resp.ID)] = true
	}
	if len(answered) != calls {
		t.Errorf("got %d calls answered, want %d", len(answered), calls)
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
	ws := dialServed(t, Limits{MaxMessage: 1 << 20, MaxInFlight: limit, RequestTimeout: 200 * time.Millisecond}, g)
	t.Cleanup(g.releaseAll)
	for i := range limit {
		send(t, ws, gateCall(i))
	}
	for range limit {
		g.waitStarted(t)
	}
	resp := roundTrip(t, ws, `{"jsonrpc":"2.0","id":"p1","method":"ping"}`)
	if resp.Error == nil || resp.Error.Code != protocol.CodeBusy || string(resp.ID) != `"p1"` {
		t.Fatalf("ping with every slot stuck: got %+v, want busy", resp)
	}
	if resp.Error.Data["limit"] != float64(limit) {
		t.Errorf("busy data: got %v, want limit %d", resp.Error.Data, limit)
	}
	for range limit {
		g.release <- struct{}{}
	}
	for range limit {
		if resp := next(t, ws); resp.Error != nil {
			t.Errorf("gate call %s: %v", resp.ID, resp.Error)
		}
	}
	// The service was stalled, waiting for this message with no slot: the
	// slots that freed meanwhile admit it.
	if resp := roundTrip(t, ws, `{"jsonrpc":"2.0","id":"p2","method":"ping"}`); resp.Error != nil {
		t.Errorf("ping once the slots are free: got %v, want success", resp.Error)
	}
}

// With the cap reached, the next request is not read until a request
// ends: its answer comes after the answer that freed the slot.
func TestInFlightCapHoldsTheNextRequest(t *testing.T) {
	const limit = 2
	g := newGate(limit)
	ws := dialServed(t, Limits{MaxMessage: 1 << 20, MaxInFlight: limit, RequestTimeout: 30 * time.Second}, g)
	t.Cleanup(g.releaseAll)
	send(t, ws, gateCall(1))
	send(t, ws, gateCall(2))
	g.waitStarted(t)
	g.waitStarted(t)
	send(t, ws, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	g.release <- struct{}{}
	first, second := next(t, ws), next(t, ws)
	if string(first.ID) == "3" || string(second.ID) != "3" || second.Error != nil {
		t.Errorf("got answers to ids %s then %s (%v), want a gate's answer, then the ping's", first.ID, second.ID, second.Error)
	}
	g.release <- struct{}{}
	if last := next(t, ws); last.Error != nil || (string(last.ID) != "1" && string(last.ID) != "2") {
		t.Errorf("last answer: got %+v, want the other gate's", last)
	}
}
