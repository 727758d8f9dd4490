package browserlink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/nativemsg"
)

// request is a request the extension side of attemptLink read.
type request struct {
	ID        int64 `json:"id"`
	Op        string
	Reattach  bool
	Method    string
	SessionID string
	Then      *struct{ Method string }
}

// attemptLink is a link over a pipe whose extension side answers each
// request with the frames answer gives; detaches counts the detached
// events the link's Event hook saw.
func attemptLink(t *testing.T, answer func(req request) []string) (l *Link, detaches *atomic.Int32) {
	t.Helper()
	detaches = new(atomic.Int32)
	l, _ = pipeLinkWith(t, Options{Event: func(in *extwire.Message) {
		if in.Event == "detached" {
			detaches.Add(1)
		}
	}}, answer)
	return l, detaches
}

// pipeLinkWith is a link with opts over a pipe whose extension side
// answers each request with the frames answer gives.
func pipeLinkWith(t *testing.T, opts Options, answer func(req request) []string) (*Link, net.Conn) {
	t.Helper()
	l, ext := pipeLink(t, opts)
	go func() {
		r, w := nativemsg.NewReader(ext, nativemsg.MaxHostFrame), nativemsg.NewWriter(ext, nativemsg.MaxHostFrame)
		for {
			b, err := r.Read()
			if err != nil {
				return
			}
			var req request
			json.Unmarshal(b, &req)
			for _, frame := range answer(req) {
				if w.Write([]byte(frame)) != nil {
					return
				}
			}
		}
	}()
	return l, ext
}

func refusedReply(id int64) string {
	return fmt.Sprintf(`{"id":%d,"error":{"code":"detached","message":"m","reason":"not_attached","refused":true}}`, id)
}

const (
	refusedDetach = `{"event":"detached","tabId":4,"reason":"not_attached","refused":true}`
	detachedEvent = `{"event":"detached","tabId":4,"reason":"not_attached"}`
)

// A call's Attempt says whether anything it sent reached the page: only
// requests Chrome refused (a refused detach, or their error says refused)
// and requests never sent did not.
func TestAttempt(t *testing.T) {
	cdpOp := extwire.CDP{TabID: 4, Method: "Runtime.evaluate"}
	tests := []struct {
		name          string
		op            extwire.Op
		answer        func(req request) []string
		cancel        bool // the call's context has ended before it sends
		wantUnreached bool
		wantKind      Kind
		wantExt       string // the extension's error code of a KindExtension
	}{
		{"answered by a refused detach", cdpOp, func(req request) []string {
			return []string{refusedDetach, refusedReply(req.ID)}
		}, false, true, KindDetached, ""},
		{"refused reply", cdpOp, func(req request) []string { return []string{refusedReply(req.ID)} }, false, true, KindExtension, extwire.ErrDetached},
		{"detached while it ran", cdpOp, func(req request) []string {
			return []string{detachedEvent, fmt.Sprintf(`{"id":%d,"error":{"code":"detached","message":"m","reason":"not_attached"}}`, req.ID)}
		}, false, false, KindExtension, extwire.ErrDetached},
		{"sent before the service heard of a detach: the fence refused it", cdpOp, func(req request) []string {
			return []string{detachedEvent, refusedReply(req.ID)}
		}, false, true, KindExtension, extwire.ErrDetached},
		{"detached and never answered: fails after the bound, may have run", cdpOp, func(req request) []string {
			return []string{detachedEvent}
		}, false, false, KindDetached, ""},
		{"answered", cdpOp, func(req request) []string { return []string{fmt.Sprintf(`{"id":%d,"result":{}}`, req.ID)} }, false, false, 0, ""},
		{"a CDP error", cdpOp, func(req request) []string {
			return []string{fmt.Sprintf(`{"id":%d,"error":{"code":"cdp_error","message":"m"}}`, req.ID)}
		}, false, false, KindExtension, extwire.ErrCDP},
		{"not sent: its caller gave up", cdpOp, nil, true, true, KindTimeout, ""},
		{"a listing does not count", extwire.TabsList{}, func(req request) []string {
			return []string{fmt.Sprintf(`{"id":%d,"error":{"code":"internal","message":"m"}}`, req.ID)}
		}, false, false, KindExtension, "internal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, detaches := attemptLink(t, tt.answer)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ctx, att := Track(ctx)
			if tt.cancel {
				cctx, stop := context.WithCancel(ctx)
				stop()
				ctx = cctx
			}
			_, err := l.Call(ctx, tt.op)
			var e *Error
			switch {
			case err == nil && tt.wantKind != 0, err != nil && !errors.As(err, &e):
				t.Errorf("got error %v, want kind %d", err, tt.wantKind)
			case e != nil && (e.Kind != tt.wantKind || e.Kind == KindExtension && e.Ext.Code != tt.wantExt):
				t.Errorf("got error %v (kind %d), want kind %d %s", err, e.Kind, tt.wantKind, tt.wantExt)
			}
			if got := att.Unreached(); got != tt.wantUnreached {
				t.Errorf("Unreached: got %v, want %v", got, tt.wantUnreached)
			}
			if tt.name == "answered by a refused detach" && detaches.Load() != 1 {
				t.Error("the refused request was answered before the link handled the detach")
			}
		})
	}
}

// After a refused detach, the tab's next command carries reattach (the
// extension refuses the tab's commands until one does), and only that one.
func TestReattachAfterARefusedDetach(t *testing.T) {
	seen := make(chan request, 8)
	n := 0
	l, _ := attemptLink(t, func(req request) []string {
		seen <- req
		if n++; n == 1 {
			return []string{refusedDetach, refusedReply(req.ID)}
		}
		return []string{fmt.Sprintf(`{"id":%d,"result":{}}`, req.ID)}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []bool
	for range 3 {
		l.Call(ctx, extwire.CDP{TabID: 4, Method: "Runtime.evaluate"})
		got = append(got, (<-seen).Reattach)
	}
	if want := []bool{false, true, false}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reattach on the three commands: got %v, want %v", got, want)
	}
}

// After any detach the tab's next command carries reattach, and a Session
// made before the detach sends nothing more (what it was used for went
// with the old debugger session): its command fails, refused, not sent.
func TestSessionOfAnEndedDebuggerSessionSendsNothing(t *testing.T) {
	seen := make(chan request, 8)
	n := 0
	l, _ := attemptLink(t, func(req request) []string {
		seen <- req
		if n++; n == 1 {
			return []string{detachedEvent, fmt.Sprintf(`{"id":%d,"result":{}}`, req.ID)}
		}
		return []string{fmt.Sprintf(`{"id":%d,"result":{}}`, req.ID)}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	old := l.Session(4)
	if err := old.Call(ctx, "Runtime.evaluate", nil, nil); err != nil {
		t.Fatalf("the first command: %v", err)
	}
	<-seen
	tctx, att := Track(ctx)
	err := old.Call(tctx, "Runtime.evaluate", nil, nil)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindDetached || !e.Refused {
		t.Errorf("a command of the old session: got %v, want a refused detached error", err)
	}
	if !att.Unreached() {
		t.Error("a command not sent: got Unreached false, want true")
	}
	if err := l.Session(4).Call(ctx, "Runtime.evaluate", nil, nil); err != nil {
		t.Fatalf("a new session's command: %v", err)
	}
	if req := <-seen; !req.Reattach {
		t.Error("the first command after the detach: got no reattach, want reattach")
	}
	select {
	case req := <-seen:
		t.Errorf("the extension got %+v from the old session, want nothing", req)
	default:
	}
}

// A caller ended by its tab's detach (what the service's call guard does
// on the event) still learns what became of its command: the fence's
// refusal that follows the event says it did not run, so the call may
// run again.
func TestCallerEndedByTheDetachHearsTheRefusal(t *testing.T) {
	var cancelCall context.CancelFunc
	release := make(chan struct{})
	l, _ := pipeLinkWith(t, Options{Event: func(in *extwire.Message) {
		if in.Event == "detached" {
			cancelCall() // before the extension's answer to the command is read
		}
	}}, func(req request) []string {
		<-release
		return []string{detachedEvent, refusedReply(req.ID)}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ctx, att := Track(ctx)
	ctx, cancelCall = context.WithCancel(ctx)
	defer cancelCall()
	close(release)
	_, err := l.Call(ctx, extwire.CDP{TabID: 4, Method: "Runtime.evaluate"})
	if err == nil {
		t.Fatal("got no error, want one")
	}
	if !att.Unreached() {
		t.Errorf("got Unreached false (error %v), want true: the fence refused the command", err)
	}
}

// Asking for the tabs, or for the person's tab, reaches no page: a call
// that asked for the person's tab and then had every command refused did
// nothing, and may run again.
func TestTabQuestionsDoNotCountAsReached(t *testing.T) {
	for _, ask := range []extwire.Op{extwire.TabsList{}, extwire.TabsFocused{}} {
		t.Run(ask.OpName(), func(t *testing.T) {
			l, _ := attemptLink(t, func(req request) []string {
				if req.Op == "cdp" {
					return []string{refusedReply(req.ID)}
				}
				return []string{fmt.Sprintf(`{"id":%d,"result":{"tab":{"id":4}}}`, req.ID)}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ctx, att := Track(ctx)
			if _, err := l.Call(ctx, ask); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Call(ctx, extwire.CDP{TabID: 4, Method: "Runtime.evaluate"}); err == nil {
				t.Fatal("the refused command succeeded")
			}
			if !att.Unreached() {
				t.Errorf("after %s and a refused command: Unreached false, want true (nothing reached the page)", ask.OpName())
			}
		})
	}
}
