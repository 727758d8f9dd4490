package pairing

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
	"github.com/google/go-cmp/cmp"
)

func TestCheckRequest(t *testing.T) {
	for _, tc := range []struct {
		name     string
		p        protocol.PairRequestParams
		wantWait time.Duration
		wantErr  bool
	}{
		{"defaults", protocol.PairRequestParams{Name: "bot"}, DefaultWait, false},
		{"a wait", protocol.PairRequestParams{Name: "bot", Scopes: []string{"read"}, WaitMs: 1500}, 1500 * time.Millisecond, false},
		{"the longest wait", protocol.PairRequestParams{Name: "bot", WaitMs: int(MaxWait / time.Millisecond)}, MaxWait, false},
		{"too long a wait", protocol.PairRequestParams{Name: "bot", WaitMs: int(MaxWait/time.Millisecond) + 1}, 0, true},
		{"a negative wait", protocol.PairRequestParams{Name: "bot", WaitMs: -1}, 0, true},
		{"no name", protocol.PairRequestParams{}, 0, true},
		{"a bad name", protocol.PairRequestParams{Name: strings.Repeat("x", 100)}, 0, true},
		{"an unknown scope", protocol.PairRequestParams{Name: "bot", Scopes: []string{"root"}}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scopes, wait, err := CheckRequest(tc.p)
			if tc.wantErr {
				if protocol.CodeOf(err) != protocol.CodeInvalidParams {
					t.Errorf("got %v, want invalid_params", err)
				}
				return
			}
			if err != nil || wait != tc.wantWait || len(scopes) == 0 {
				t.Errorf("got %v, %v, %v, want scopes, wait %v", scopes, wait, err, tc.wantWait)
			}
		})
	}
}

func TestProcessWireOtherUser(t *testing.T) {
	if got := (&Process{UID: os.Getuid() + 1}).Wire(); !got.OtherUser {
		t.Errorf("another uid: got %+v, want otherUser", got)
	}
	if got := (&Process{PID: 1, UID: os.Getuid()}).Wire(); got.OtherUser {
		t.Errorf("our uid: got %+v, want not otherUser", got)
	}
	if (*Process)(nil).Wire() != nil {
		t.Error("no process: want nil")
	}
}

func TestAskError(t *testing.T) {
	other := errors.New("pair bot: context canceled")
	for _, tc := range []struct {
		name       string
		err        error
		wantCode   protocol.Code
		wantReason any
	}{
		{"busy", fmt.Errorf("pair bot: %w: too many", ErrBusy), protocol.CodePairingBusy, nil},
		{"denied", fmt.Errorf("pair bot: %w by the person", ErrDenied), protocol.CodePairingDenied, "denied"},
		{"expired", fmt.Errorf("pair bot: %w", ErrExpired), protocol.CodePairingDenied, "expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e *protocol.Error
			if !errors.As(AskError(tc.err), &e) {
				t.Fatalf("got %v, want a wire error", AskError(tc.err))
			}
			if e.Code != tc.wantCode || e.Message != tc.err.Error() || e.Data["reason"] != tc.wantReason {
				t.Errorf("got %v %q reason %v, want %v %q reason %v", e.Code.Name(), e.Message, e.Data["reason"], tc.wantCode.Name(), tc.err, tc.wantReason)
			}
		})
	}
	if got := AskError(other); got != other {
		t.Errorf("another error: got %v, want it as it is", got)
	}
}

// DecideRequest answers a waiting request by name or ID; an approval that
// replaces a live pairing needs replace.
func TestDecideRequest(t *testing.T) {
	store, err := Open(filepath.Join(t.TempDir(), "agents.json"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.Add("bot", []Scope{Read}, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		asked    string // the request waiting ("": none)
		key      string // "id": the request's ID
		answer   Answer
		replace  bool
		wantName string
		wantErr  string // in the invalid_params message ("": none)
		wantData string // the error's replaces
	}{
		{"approved", "new", "new", Answer{Approve: true}, false, "new", "", ""},
		{"by its id", "new", "id", Answer{Approve: true}, false, "new", "", ""},
		{"denied", "new", "new", Answer{}, false, "new", "", ""},
		{"none waits", "", "ghost", Answer{Approve: true}, false, "ghost", `no pairing request waiting for "ghost"`, ""},
		{"replacing without replace", "bot", "bot", Answer{Approve: true}, false, "bot", "bot is paired already", "bot"},
		{"replacing with replace", "bot", "bot", Answer{Approve: true}, true, "bot", "", ""},
		{"denying needs no replace", "bot", "bot", Answer{}, false, "bot", "", ""},
		{"a scope not asked for", "new", "new", Answer{Approve: true, Scopes: []Scope{CDP}}, false, "new", "was not asked for", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPending(DefaultLimits, time.Now, nil)
			asked := make(chan error, 1)
			if tc.asked != "" {
				go func() {
					_, err := p.Ask(context.Background(), Request{Name: tc.asked, Scopes: []Scope{Space}}, time.Minute, nil)
					asked <- err
				}()
				waitList(t, p, 1)
				defer func() {
					p.Decide(tc.asked, Answer{}) // ends it when Decide did not
					<-asked
				}()
			}
			key := tc.key
			if key == "id" {
				key = p.List()[0].ID
			}
			req, err := DecideRequest(p, store, key, tc.answer, tc.replace)
			if req.Name != tc.wantName {
				t.Errorf("got the request of %q, want %q", req.Name, tc.wantName)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Errorf("got %v, want nil", err)
				}
				return
			}
			var e *protocol.Error
			if !errors.As(err, &e) || e.Code != protocol.CodeInvalidParams || !strings.Contains(e.Message, tc.wantErr) {
				t.Fatalf("got %v, want invalid_params with %q", err, tc.wantErr)
			}
			if got, _ := e.Data["replaces"].(string); got != tc.wantData {
				t.Errorf("got replaces %q, want %q", got, tc.wantData)
			}
		})
	}
}

func TestStoreLive(t *testing.T) {
	store, err := Open(filepath.Join(t.TempDir(), "agents.json"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"bot", "gone"} {
		if _, _, err := store.Add(name, []Scope{Read}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := store.Revoke("gone"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want bool
	}{{"bot", true}, {"gone", false}, {"never", false}} {
		if ag, ok := store.Live(tc.name); ok != tc.want || ok && (ag.Name != tc.name || ag.Revoked) {
			t.Errorf("Live(%q): got %+v %v, want live %v", tc.name, ag, ok, tc.want)
		}
	}
}

func TestWire(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	ag := Agent{Name: "bot", ID: "id", Scopes: []Scope{Read, Space}, Paired: at, Process: &Process{PID: 7, Exe: "/bin/bot", UID: -1}, Revoked: true}
	proc := &protocol.PeerProcess{PID: 7, Exe: "/bin/bot", UID: -1}
	paired := protocol.PairedAgent{Name: "bot", Scopes: []string{"read", "space"}, Paired: at, Process: proc, Revoked: true, Connected: 2}
	if diff := cmp.Diff(paired, ag.Wire(2)); diff != "" {
		t.Errorf("Agent.Wire (-want +got):\n%s", diff)
	}
	req := Request{ID: "r1", Name: "bot", Scopes: []Scope{CDP}, Asked: at, Expires: at.Add(time.Minute)}
	want := protocol.PairingRequest{ID: "r1", Name: "bot", Scopes: []string{"cdp"}, Asked: at, Expires: at.Add(time.Minute), Replaces: &paired}
	if diff := cmp.Diff(want, req.Wire(&paired)); diff != "" {
		t.Errorf("Request.Wire (-want +got):\n%s", diff)
	}
}

func TestNotice(t *testing.T) {
	for _, tc := range []struct {
		name      string
		pending   []protocol.PairingRequest
		wantBadge string
	}{
		{"none", []protocol.PairingRequest{}, ""},
		{"two", []protocol.PairingRequest{{Name: "a"}, {Name: "b"}}, "2"},
	} {
		n := Notice(tc.pending)
		if n.Badge != tc.wantBadge || len(n.Pending) != len(tc.pending) {
			t.Errorf("%s: got badge %q with %d, want %q with %d", tc.name, n.Badge, len(n.Pending), tc.wantBadge, len(tc.pending))
		}
	}
}
