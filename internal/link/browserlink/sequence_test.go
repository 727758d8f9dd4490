package browserlink

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/nativemsg"
)

// seqRequest is a cdp op as the extension reads it.
type seqRequest struct {
	ID     int64           `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Then   *struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"then"`
}

// A sequence reaches the extension in order, all of it before any reply
// (one round trip), and each reply lands in its own command's result,
// whatever order the replies come in; an error of one command is the
// sequence's error.
func TestCallSequence(t *testing.T) {
	l, ext := pipeLink(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	got := make(chan []string, 1)
	go func() {
		r := nativemsg.NewReader(ext, nativemsg.MaxHostFrame)
		w := nativemsg.NewWriter(ext, nativemsg.MaxHostFrame)
		for round := 0; ; round++ {
			var reqs []seqRequest
			var methods []string
			for range 3 { // the whole sequence before answering anything
				frame, err := r.Read()
				if err != nil {
					return
				}
				var q seqRequest
				json.Unmarshal(frame, &q)
				reqs = append(reqs, q)
				methods = append(methods, q.Method)
			}
			got <- methods
			for i := len(reqs) - 1; i >= 0; i-- { // answered last first
				reply := map[string]any{"id": reqs[i].ID, "result": map[string]string{"echo": reqs[i].Method}}
				if round == 1 && i == 1 {
					reply = map[string]any{"id": reqs[i].ID, "error": map[string]string{"code": "cdp_error", "message": "no such thing"}}
				}
				b, _ := json.Marshal(reply)
				w.Write(b)
			}
		}
	}()

	s := l.Session(3)
	var a, b, c struct {
		Echo string `json:"echo"`
	}
	cmds := []cdptab.Command{{Method: "A.one", Result: &a}, {Method: "B.two", Params: map[string]int{"x": 1}, Result: &b}, {Method: "C.three", Result: &c}}
	if err := s.CallSequence(ctx, cmds); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"A.one", "B.two", "C.three"}, <-got); diff != "" {
		t.Errorf("order on the wire (-want +got):\n%s", diff)
	}
	if a.Echo != "A.one" || b.Echo != "B.two" || c.Echo != "C.three" {
		t.Errorf("results: got %q %q %q, want each its own", a.Echo, b.Echo, c.Echo)
	}
	err := cdptab.CallSequence(ctx, cdp.Session(s), []cdptab.Command{{Method: "A.one"}, {Method: "B.two"}, {Method: "C.three"}})
	<-got
	if e := (*Error)(nil); !errors.As(err, &e) || e.Kind != KindExtension || e.Ext.Code != extwire.ErrCDP {
		t.Errorf("got %v, want the second command's cdp error", err)
	}
}

// A command of a sequence with a bound (Within) that gets no answer in
// time is not waited for past it and is no error; the others' answers
// still count. Without the bound the sequence waits for it.
func TestCallSequenceWithin(t *testing.T) {
	l, ext := pipeLink(t, Options{})
	go func() {
		r := nativemsg.NewReader(ext, nativemsg.MaxHostFrame)
		w := nativemsg.NewWriter(ext, nativemsg.MaxHostFrame)
		for {
			frame, err := r.Read()
			if err != nil {
				return
			}
			var q struct {
				ID     int64  `json:"id"`
				Method string `json:"method"`
			}
			json.Unmarshal(frame, &q)
			if q.Method == "Input.move" {
				continue // never answered, as a hidden tab's mouse move
			}
			b, _ := json.Marshal(map[string]any{"id": q.ID, "result": map[string]string{"echo": q.Method}})
			w.Write(b)
		}
	}()
	s := l.Session(3)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var press struct {
		Echo string `json:"echo"`
	}
	start := time.Now()
	err := s.CallSequence(ctx, []cdptab.Command{{Method: "Input.move", Within: 50 * time.Millisecond}, {Method: "Input.press", Result: &press}})
	if err != nil {
		t.Fatalf("got %v, want no error", err)
	}
	if press.Echo != "Input.press" {
		t.Errorf("press result: got %q, want its answer", press.Echo)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v: the bound was not kept", took)
	}
	short, cancel2 := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel2()
	if err := s.CallSequence(short, []cdptab.Command{{Method: "Input.move"}, {Method: "Input.press"}}); err == nil {
		t.Error("without a bound: got no error, want the move's timeout")
	}
}

// A command's Then goes in the same request (the extension sends it on
// the first's answer) and its result lands in the Then's own; a failure
// the extension marks as the Then's is a *cdptab.ThenError, the first's
// is not; a Then the extension skipped (a dialog) leaves its result as it
// was.
func TestCallSequenceThen(t *testing.T) {
	l, ext := pipeLink(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	replies := []func(q seqRequest) map[string]any{
		func(q seqRequest) map[string]any {
			return map[string]any{"id": q.ID, "result": map[string]any{"result": map[string]string{"echo": q.Method}, "then": map[string]string{"echo": q.Then.Method + string(q.Then.Params)}}}
		},
		func(q seqRequest) map[string]any {
			return map[string]any{"id": q.ID, "error": map[string]any{"code": "detached", "message": "gone", "reason": "target_closed", "then": true}}
		},
		func(q seqRequest) map[string]any {
			return map[string]any{"id": q.ID, "error": map[string]any{"code": "cdp_error", "message": "no such thing"}}
		},
		func(q seqRequest) map[string]any {
			return map[string]any{"id": q.ID, "result": map[string]any{"result": map[string]string{"echo": q.Method}, "skipped": "dialog"}}
		},
	}
	go func() {
		r := nativemsg.NewReader(ext, nativemsg.MaxHostFrame)
		w := nativemsg.NewWriter(ext, nativemsg.MaxHostFrame)
		for _, reply := range replies {
			frame, err := r.Read()
			if err != nil {
				return
			}
			var q seqRequest
			json.Unmarshal(frame, &q)
			if q.Then == nil { // no then on the wire: no answer, and the call fails by its timeout
				return
			}
			b, _ := json.Marshal(reply(q))
			w.Write(b)
		}
	}()
	s := l.Session(3)
	type echo struct {
		Echo string `json:"echo"`
	}
	var press, release echo
	cmd := func() cdptab.Command {
		press, release = echo{}, echo{}
		return cdptab.Command{Method: "Input.press", Result: &press, Then: &cdptab.Command{Method: "Input.release", Params: map[string]int{"x": 1}, Result: &release}}
	}
	if err := s.CallSequence(ctx, []cdptab.Command{cmd()}); err != nil {
		t.Fatal(err)
	}
	if press.Echo != "Input.press" || release.Echo != `Input.release{"x":1}` {
		t.Errorf("results: got %q and %q, want each its own (the release with its params)", press.Echo, release.Echo)
	}
	var then *cdptab.ThenError
	if err := s.CallSequence(ctx, []cdptab.Command{cmd()}); !errors.As(err, &then) {
		t.Errorf("the release's failure: got %v, want a ThenError", err)
	} else if e := (*Error)(nil); !errors.As(err, &e) || !e.Permanent() {
		t.Errorf("the release's failure: got %v, want the link's detached error inside", err)
	}
	if err := s.CallSequence(ctx, []cdptab.Command{cmd()}); err == nil || errors.As(err, &then) {
		t.Errorf("the press's failure: got %v, want an error that is not a ThenError", err)
	}
	if err := s.CallSequence(ctx, []cdptab.Command{cmd()}); !errors.As(err, &then) || !errors.Is(err, cdptab.ErrThenSkipped) || press.Echo != "Input.press" || release.Echo != "" {
		t.Errorf("a skipped release: got %v, %q and %q, want a ThenError of ErrThenSkipped, the press's result and none for the release", err, press.Echo, release.Echo)
	}
}
