package actions

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
)

// pollQuiet drives a hidden tab's quiet window from Go: it asks again
// (poll) while the page answers pending, and ends at the cap.
func TestPollQuiet(t *testing.T) {
	s := Settle{Quiet: 20 * time.Millisecond, Cap: time.Second}
	pending := quietResult{Pending: true, Since: 5, Mutations: 3}
	quiet := quietResult{Quiet: true, Mutations: 3}
	tests := []struct {
		name      string
		answers   []quietResult // the page's answers, in order; the last repeats
		cap       time.Duration
		wantCalls int
		want      quietResult
	}{
		{"a visible tab: one call", []quietResult{quiet}, time.Second, 1, quiet},
		{"hidden: pending, then quiet", []quietResult{pending, pending, quiet}, time.Second, 3, quiet},
		{"an error ends it", []quietResult{pending, {err: errors.New("gone")}}, time.Second, 2, quietResult{}},
		{"the cap ends it, not quiet", []quietResult{pending}, 50 * time.Millisecond, -1, quietResult{Mutations: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tt.cap)
			defer cancel()
			var polls []bool
			got := pollQuiet(ctx, s, func(poll bool) quietResult {
				polls = append(polls, poll)
				return tt.answers[min(len(polls), len(tt.answers))-1]
			})
			if tt.wantCalls > 0 && len(polls) != tt.wantCalls {
				t.Errorf("calls: got %d, want %d", len(polls), tt.wantCalls)
			}
			for i, p := range polls {
				if p != (i > 0) {
					t.Errorf("call %d: poll %v, want %v", i, p, i > 0)
				}
			}
			if got.Quiet != tt.want.Quiet || got.Pending || got.Mutations != tt.want.Mutations || (got.err != nil) != (tt.answers[len(tt.answers)-1].err != nil) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// fakeTab is a cdpfake session as a Tab with no child sessions.
type fakeTab struct{ *cdpfake.Session }

func (t fakeTab) Child(target.SessionID) cdp.Session { return t.Session }
func (t fakeTab) Children() []cdptab.Child           { return nil }

// A tab hidden after the checks (the person switched tabs) never answers
// the mouse move before a press: the click goes on with the press and the
// release (Chrome dispatches the queued move before the press).
func TestClickAtAfterAMoveWithoutAnswer(t *testing.T) {
	fake := cdpfake.New()
	fake.Handle(input.DispatchMouseEvent.Method, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p input.DispatchMouseEventParams
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		if p.Type == input.DispatchMouseEventTypeMouseMoved {
			<-ctx.Done() // an animation frame that never comes
			return nil, ctx.Err()
		}
		return struct{}{}, nil
	})
	r := New(fakeTab{fake}, nil, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.clickAt(ctx, Point{X: 10, Y: 20}, true, input.MouseButtonLeft, 1, 1, 0); err != nil {
		t.Fatalf("clickAt: %v", err)
	}
	var got []string
	for _, c := range fake.Calls() {
		var p input.DispatchMouseEventParams
		if err := json.Unmarshal(c.Params, &p); err != nil {
			t.Fatal(err)
		}
		got = append(got, string(p.Type))
	}
	if want := "mouseMoved mousePressed mouseReleased"; strings.Join(got, " ") != want {
		t.Errorf("events: got %v, want %s", got, want)
	}
}

// sequencingTab is a fake Tab that is a cdptab.Sequencer: it records each
// sequence's commands.
type sequencingTab struct {
	fakeTab
	seqs [][]cdptab.Command
	err  error // every sequence's
}

// A release the extension did not send (a dialog opened on the press) is
// the click's error, not a click that happened.
func TestClickAtReleaseSkipped(t *testing.T) {
	tab := &sequencingTab{fakeTab: fakeTab{cdpfake.New()}, err: &cdptab.ThenError{Err: cdptab.ErrThenSkipped}}
	r := New(tab, nil, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the dialog ended the action (its watcher cancels the call)
	err := r.clickAt(ctx, Point{X: 10, Y: 20}, true, input.MouseButtonLeft, 1, 1, 0)
	if !errors.Is(err, cdptab.ErrThenSkipped) {
		t.Errorf("got %v, want the skipped release", err)
	}
}

func (t *sequencingTab) CallSequence(ctx context.Context, cmds []cdptab.Command) error {
	t.seqs = append(t.seqs, cmds)
	return t.err
}

// A click's move and first press go in one sequence (the press dispatches
// the move queued for the next animation frame at once: no frame's wait,
// one round trip), each release as its press's Then (sent by the
// extension on the press's answer: no round trip to the service between
// them); every later press waits for the answer to the release before it,
// as a person's does (a dialog the click opens stops the double click
// there). Only the move's wait is bounded. A hidden tab's click has no
// move.
func TestClickAtSendsOneSequence(t *testing.T) {
	tests := []struct {
		name  string
		move  bool
		count int
		seqs  []string // each sequence's events, a Then after its command's "→"
	}{
		{"click", true, 1, []string{"mouseMoved/0 mousePressed/1→mouseReleased/1"}},
		{"double click", true, 2, []string{"mouseMoved/0 mousePressed/1→mouseReleased/1", "mousePressed/2→mouseReleased/2"}},
		{"click in a hidden tab", false, 1, []string{"mousePressed/1→mouseReleased/1"}},
	}
	event := func(params any) string {
		p := params.(input.DispatchMouseEventParams)
		return string(p.Type) + "/" + strconv.FormatInt(p.ClickCount, 10)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab := &sequencingTab{fakeTab: fakeTab{cdpfake.New()}}
			tab.Session.Reply(input.DispatchMouseEvent.Method, struct{}{})
			r := New(tab, nil, Options{})
			if err := r.clickAt(context.Background(), Point{X: 10, Y: 20}, tt.move, input.MouseButtonLeft, 1, tt.count, 0); err != nil {
				t.Fatalf("clickAt: %v", err)
			}
			var seqs []string
			for _, cmds := range tab.seqs {
				var seq []string
				for i, c := range cmds {
					e := event(c.Params)
					if c.Then != nil {
						e += "→" + event(c.Then.Params)
					}
					seq = append(seq, e)
					if bounded := c.Within > 0; bounded != (c.Params.(input.DispatchMouseEventParams).Type == input.DispatchMouseEventTypeMouseMoved) {
						t.Errorf("command %d: bound %v, want one on the move only", i, c.Within)
					}
				}
				seqs = append(seqs, strings.Join(seq, " "))
			}
			if !slices.Equal(seqs, tt.seqs) {
				t.Errorf("got sequences %q, want %q", seqs, tt.seqs)
			}
			if calls := tab.Session.Calls(); len(calls) != 0 {
				t.Errorf("got %d events sent one by one, want none", len(calls))
			}
		})
	}
}
