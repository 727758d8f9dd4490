package browserlink

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
)

// attemptLink is a link over a pipe whose extension side answers each
// request with answer(id); events is what the link's Event hook saw.
func attemptLink(t *testing.T, answer func(id int64) []string) (*Link, *atomic.Int32) {
	t.Helper()
	svc, ext := net.Pipe()
	var ids atomic.Int64
	var detaches atomic.Int32
	l := New(svc, Options{IDs: &ids, Event: func(in *Message) {
		if in.Event == "detached" {
			detaches.Add(1)
		}
	}})
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.Serve(nativemsg.NewReader(svc, nativemsg.MaxHostFrame))
	}()
	go func() {
		r, w := nativemsg.NewReader(ext, nativemsg.MaxHostFrame), nativemsg.NewWriter(ext, nativemsg.MaxHostFrame)
		for {
			b, err := r.Read()
			if err != nil {
				return
			}
			var req struct{ ID int64 }
			json.Unmarshal(b, &req)
			for _, frame := range answer(req.ID) {
				if w.Write([]byte(frame)) != nil {
					return
				}
			}
		}
	}()
	t.Cleanup(func() {
		ext.Close()
		<-done
	})
	return l, &detaches
}

// A call's Attempt says whether anything it sent reached the page: only
// requests Chrome refused (the detached event lists them, or their error
// says refused) and requests never sent did not.
func TestAttempt(t *testing.T) {
	cdpOp := CDP{TabID: 4, Method: "Runtime.evaluate"}
	tests := []struct {
		name          string
		op            Op
		answer        func(id int64) []string
		cancel        bool // the call's context has ended before it sends
		wantUnreached bool
		wantCode      protocol.Code
	}{
		{"refused, listed in the detached event", cdpOp, func(id int64) []string {
			return []string{fmt.Sprintf(`{"event":"detached","tabId":4,"reason":"not_attached","refused":[%d]}`, id),
				fmt.Sprintf(`{"id":%d,"error":{"code":"detached","message":"m","reason":"not_attached","refused":true}}`, id)}
		}, false, true, protocol.CodeDetached},
		{"refused reply", cdpOp, func(id int64) []string {
			return []string{fmt.Sprintf(`{"id":%d,"error":{"code":"detached","message":"m","reason":"not_attached","refused":true}}`, id)}
		}, false, true, protocol.CodeDetached},
		{"detached while it ran", cdpOp, func(id int64) []string {
			return []string{`{"event":"detached","tabId":4,"reason":"not_attached"}`}
		}, false, false, protocol.CodeDetached},
		{"answered", cdpOp, func(id int64) []string { return []string{fmt.Sprintf(`{"id":%d,"result":{}}`, id)} }, false, false, 0},
		{"a CDP error", cdpOp, func(id int64) []string {
			return []string{fmt.Sprintf(`{"id":%d,"error":{"code":"cdp_error","message":"m"}}`, id)}
		}, false, false, protocol.CodeCDP},
		{"not sent: its caller gave up", cdpOp, nil, true, true, protocol.CodeTimeout},
		{"a listing does not count", TabsList{}, func(id int64) []string {
			return []string{fmt.Sprintf(`{"id":%d,"error":{"code":"internal","message":"m"}}`, id)}
		}, false, false, protocol.CodeExtension},
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
			if got := protocol.CodeOf(err); err != nil && got != tt.wantCode || err == nil && tt.wantCode != 0 {
				t.Errorf("got error %v, want code %s", err, tt.wantCode.Name())
			}
			if got := att.Unreached(); got != tt.wantUnreached {
				t.Errorf("Unreached: got %v, want %v", got, tt.wantUnreached)
			}
			if tt.name == "refused, listed in the detached event" && detaches.Load() != 1 {
				t.Error("the refused request was answered before the link handled the detach")
			}
		})
	}
}
