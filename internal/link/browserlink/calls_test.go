package browserlink

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
)

// callHarness is a link over a pipe: the test plays the extension.
type callHarness struct {
	ext *nativemsg.Writer
	in  *nativemsg.Reader
}

// pipeLink is a link over a pipe, served until the test ends (its Serve
// is waited for): the test plays the extension on the end it returns.
// opts.IDs, when nil, is a counter of the link's own.
func pipeLink(t *testing.T, opts Options) (*Link, net.Conn) {
	t.Helper()
	svc, ext := net.Pipe()
	if opts.IDs == nil {
		opts.IDs = new(atomic.Int64)
	}
	l := New(svc, opts)
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.Serve(nativemsg.NewReader(svc, nativemsg.MaxHostFrame))
	}()
	t.Cleanup(func() {
		ext.Close()
		<-done
	})
	return l, ext
}

func startCallLink(t *testing.T, opts Options) *callHarness {
	t.Helper()
	_, ext := pipeLink(t, opts)
	return &callHarness{ext: nativemsg.NewWriter(ext, nativemsg.MaxHostFrame), in: nativemsg.NewReader(ext, nativemsg.MaxHostFrame)}
}

func (h *callHarness) send(t *testing.T, msg string) {
	t.Helper()
	if err := h.ext.Write([]byte(msg)); err != nil {
		t.Fatalf("write %s: %v", msg, err)
	}
}

// reply reads frames until a extwire.CallReply.
func (h *callHarness) reply(t *testing.T) extwire.CallReply {
	t.Helper()
	got := make(chan extwire.CallReply, 1)
	go func() {
		for {
			b, err := h.in.Read()
			if err != nil {
				close(got)
				return
			}
			var r extwire.CallReply
			if json.Unmarshal(b, &r) == nil && r.Event == "callReply" {
				got <- r
				return
			}
		}
	}()
	select {
	case r, ok := <-got:
		if !ok {
			t.Fatal("link closed before a call reply")
		}
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no call reply within 10 s")
	}
	return extwire.CallReply{}
}

func TestExtensionCalls(t *testing.T) {
	call := func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		switch method {
		case "echo":
			return params, nil
		case "fail":
			return nil, protocol.Errorf(protocol.CodeNotFound, "nothing here")
		case "plain":
			return nil, errors.New("plain error")
		case "unencodable":
			return func() {}, nil
		}
		return nil, protocol.Errorf(protocol.CodeMethodNotFound, "unknown %s", method)
	}
	tests := []struct {
		name       string
		msg        string
		wantResult string
		wantCode   protocol.Code
		wantMsg    string // the link's own refusal, worded by Options.ReplyError (the service's codes: service.TestReplyError)
	}{
		{"result", `{"call":5,"method":"echo","params":{"a":1}}`, `{"a":1}`, 0, ""},
		{"protocol error", `{"call":6,"method":"fail"}`, "", protocol.CodeNotFound, "nothing here"},
		{"plain error is internal", `{"call":7,"method":"plain"}`, "", protocol.CodeInternal, ""},
		{"result that does not encode", `{"call":8,"method":"unencodable"}`, "", protocol.CodeInternal, ""},
		{"no method", `{"call":9}`, "", protocol.CodeInternal, "call 9: " + ErrNoMethod.Error()},
	}
	h := startCallLink(t, Options{Call: call})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h.send(t, tt.msg)
			r := h.reply(t)
			var in struct{ Call int64 }
			json.Unmarshal([]byte(tt.msg), &in)
			if r.Call != in.Call {
				t.Errorf("got reply to call %d, want %d", r.Call, in.Call)
			}
			if string(r.Result) != tt.wantResult {
				t.Errorf("got result %s, want %s", r.Result, tt.wantResult)
			}
			var code protocol.Code
			if r.Error != nil {
				code = r.Error.Code
			}
			if code != tt.wantCode {
				t.Errorf("got error %v, want code %d", r.Error, tt.wantCode)
			}
			if tt.wantMsg != "" && r.Error.Message != tt.wantMsg {
				t.Errorf("got message %q, want %q", r.Error.Message, tt.wantMsg)
			}
		})
	}
}

func TestExtensionCallsWithoutAHandler(t *testing.T) {
	var got error
	h := startCallLink(t, Options{ReplyError: func(err error) *protocol.Error { got = err; return protocol.AsError(err) }})
	h.send(t, `{"call":1,"method":"popup.status"}`)
	if r := h.reply(t); r.Error == nil || !errors.Is(got, ErrNoCalls) {
		t.Fatalf("got %+v (%v), want ErrNoCalls", r, got)
	}
}

// TestExtensionCallsOverTheCapAreRefused: calls beyond MaxCalls are refused
// with busy at once; the running ones still answer.
func TestExtensionCallsOverTheCapAreRefused(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	call := func(ctx context.Context, method string, _ json.RawMessage) (any, error) {
		started <- struct{}{}
		select {
		case <-release:
			return "done", nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	refused := make(chan error, 1)
	h := startCallLink(t, Options{Call: call, MaxCalls: 2, ReplyError: func(err error) *protocol.Error { refused <- err; return protocol.AsError(err) }})
	h.send(t, `{"call":1,"method":"slow"}`)
	h.send(t, `{"call":2,"method":"slow"}`)
	for range 2 {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatal("calls did not start")
		}
	}
	h.send(t, `{"call":3,"method":"slow"}`)
	var busy *BusyError
	if r := h.reply(t); r.Call != 3 || r.Error == nil || !errors.As(<-refused, &busy) || busy.Limit != 2 {
		t.Fatalf("got %+v, want call 3 refused with busy (limit 2)", r)
	}
	close(release)
	seen := map[int64]bool{}
	for range 2 {
		r := h.reply(t)
		if string(r.Result) != `"done"` {
			t.Errorf("call %d: got %s %v, want \"done\"", r.Call, r.Result, r.Error)
		}
		seen[r.Call] = true
	}
	if !seen[1] || !seen[2] {
		t.Errorf("got replies %v, want calls 1 and 2", seen)
	}
}

func TestNotifySendsANotice(t *testing.T) {
	svc, ext := net.Pipe()
	var ids atomic.Int64
	l := New(svc, Options{IDs: &ids})
	defer ext.Close()
	go l.Notify("pairing", map[string]any{"badge": "1"})
	b, err := nativemsg.NewReader(ext, nativemsg.MaxHostFrame).Read()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"event":"notice","topic":"pairing","params":{"badge":"1"}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
