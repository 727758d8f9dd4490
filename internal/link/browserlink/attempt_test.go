package browserlink

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/nativemsg"
)

// request is a request the extension side of attemptLink read.
type request struct {
	ID       int64 `json:"id"`
	Op       string
	Reattach bool
}

// attemptLink is a link over a pipe whose extension side answers each
// request with the frames answer gives; detaches counts the detached
// events the link's Event hook saw.
func attemptLink(t *testing.T, answer func(req request) []string) (l *Link, detaches *atomic.Int32) {
	t.Helper()
	detaches = new(atomic.Int32)
	l, ext := pipeLink(t, Options{Event: func(in *extwire.Message) {
		if in.Event == "detached" {
			detaches.Add(1)
		}
	}})
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
	return l, detaches
}

func refusedReply(id int64) string {
	return fmt.Sprintf(`{"id":%d,"error":{"code":"detached","message":"m","reason":"not_attached","refused":true}}`, id)
}

const refusedDetach = `{"event":"detached","tabId":4,"reason":"not_attached","refused":true}`

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
			return []string{`{"event":"detached","tabId":4,"reason":"not_attached"}`}
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
