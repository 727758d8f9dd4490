package tabmethods

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/protocol"
)

// TestPing: the service's folders and the tokenless counts are the
// owner's only.
func TestPing(t *testing.T) {
	for _, owner := range []bool{false, true} {
		m, _, c := fixture("")
		c.owner = owner
		c.svc.reconnecting = []protocol.Browser{{ID: "b2"}}
		got, err := m.Ping(context.Background(), c, rpcparams.None{})
		if err != nil {
			t.Fatal(err)
		}
		want := protocol.PingResult{Version: "1.2.3", PID: os.Getpid(), Browsers: 1, Reconnecting: 1}
		if owner {
			want.Tokenless, want.StateDir, want.DataDir = &protocol.TokenlessStats{}, "/state", "/data"
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("ping, owner %v (-want +got):\n%s", owner, diff)
		}
	}
}

// TestBrowsers: browsers.list lists the connected and the reconnecting.
func TestBrowsers(t *testing.T) {
	m, _, c := fixture("bot")
	c.svc.reconnecting = []protocol.Browser{{ID: "b2"}}
	got, err := m.Browsers(context.Background(), c, rpcparams.None{})
	if err != nil {
		t.Fatal(err)
	}
	want := protocol.BrowsersListResult{Browsers: []protocol.Browser{{ID: "b1", RelayPID: 42}}, Reconnecting: []protocol.Browser{{ID: "b2"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("browsers.list (-want +got):\n%s", diff)
	}
}

// TestEcho: debug.echo caps its data and sums what came back.
func TestEcho(t *testing.T) {
	sum := sha256.Sum256([]byte("hello"))
	tests := []struct {
		name     string
		data     string
		reply    reply
		want     any
		wantCode protocol.Code
	}{
		{"the data back", "hello", reply{raw: `{"data":"hello"}`}, protocol.DebugEchoResult{Length: 5, SHA256: hex.EncodeToString(sum[:])}, 0},
		{"over the cap", strings.Repeat("x", maxEcho+1), reply{}, nil, protocol.CodeTooLarge},
		{"a bad reply", "hello", reply{raw: `[]`}, nil, protocol.CodeExtension},
		{"the extension fails", "hello", reply{err: protocol.Errorf(protocol.CodeExtension, "no")}, nil, protocol.CodeExtension},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, b, c := fixture("")
			b.answer("echo", tt.reply)
			got, err := m.Echo(context.Background(), c, protocol.DebugEchoParams{Data: tt.data})
			if code := codeOf(err); code != tt.wantCode {
				t.Fatalf("got %v, want code %v", err, tt.wantCode)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("debug.echo (-want +got):\n%s", diff)
			}
			if tt.wantCode == protocol.CodeTooLarge {
				if len(b.ops) != 0 {
					t.Errorf("got ops %d, want none", len(b.ops))
				}
				if got := protocol.AsError(err).Data["limit"]; got != maxEcho {
					t.Errorf("got limit %v, want %d", got, maxEcho)
				}
			}
		})
	}
}
