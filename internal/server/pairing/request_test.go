package pairing

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
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
