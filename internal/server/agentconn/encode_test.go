package agentconn

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/egohost/egohost/protocol"
)

// recorder is a transport that keeps what is written to it.
type recorder struct{ frames [][]byte }

func (r *recorder) SetReadLimit(int64) {}
func (r *recorder) Read(ctx context.Context) (websocket.MessageType, []byte, error) {
	<-ctx.Done()
	return 0, nil, ctx.Err()
}
func (r *recorder) Write(_ context.Context, _ websocket.MessageType, b []byte) error {
	r.frames = append(r.frames, b)
	return nil
}
func (r *recorder) CloseNow() error { return nil }

// rawOf is v encoded on its own, as a json.RawMessage.
func rawOf(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The frames are the protocol's messages (protocol.Response,
// protocol.Message) with the payload encoded on its own first: the same
// bytes, written in one pass.
func TestRepliesAndNotificationsAreTheWireMessages(t *testing.T) {
	payloads := []struct {
		name string
		v    any
	}{
		{"nothing (null)", nil},
		{"a struct", protocol.TabResult{Tab: protocol.Tab{ID: 3, Title: "<b>Shop</b> & more", URL: "http://x/?a=1&b=2"}}},
		{"a string with quotes, newlines and U+2028", "say \"hi\"\n\u2028"},
		{"raw JSON from the browser, spaced, with markup", json.RawMessage(` {"result" : {"value": "<a>"} } `)},
		{"a nil raw message", json.RawMessage(nil)},
	}
	for _, p := range payloads {
		t.Run(p.name, func(t *testing.T) {
			rec := &recorder{}
			c := newConn(rec, slog.New(slog.DiscardHandler))
			c.reply(json.RawMessage("7"), p.v, nil)
			c.Notify("cdp.event", p.v)
			if len(rec.frames) != 2 {
				t.Fatalf("got %d frames, want a reply and a notification", len(rec.frames))
			}
			wantReply := rawOf(t, protocol.Response{JSONRPC: protocol.Version, ID: json.RawMessage("7"), Result: rawOf(t, p.v)})
			if string(rec.frames[0]) != string(wantReply) {
				t.Errorf("reply: got %s, want %s", rec.frames[0], wantReply)
			}
			wantNote := rawOf(t, protocol.Message{JSONRPC: protocol.Version, Method: "cdp.event", Params: rawOf(t, p.v)})
			if string(rec.frames[1]) != string(wantNote) {
				t.Errorf("notification: got %s, want %s", rec.frames[1], wantNote)
			}
		})
	}
}

// A result that cannot be JSON is answered with internal, under the
// request's ID, and nothing of it is written.
func TestUnencodableResultIsInternal(t *testing.T) {
	rec := &recorder{}
	c := newConn(rec, slog.New(slog.DiscardHandler))
	c.reply(json.RawMessage(`"a"`), map[string]any{"ok": 1, "f": func() {}}, nil)
	if len(rec.frames) != 1 {
		t.Fatalf("got %d frames, want 1", len(rec.frames))
	}
	var resp protocol.Response
	if err := json.Unmarshal(rec.frames[0], &resp); err != nil {
		t.Fatal(err)
	}
	if string(resp.ID) != `"a"` || resp.Result != nil || resp.Error == nil || resp.Error.Code != protocol.CodeInternal || !strings.Contains(resp.Error.Message, "encode result") {
		t.Errorf("got %s, want internal (encode result) under id \"a\" and no result", rec.frames[0])
	}
}

// BenchmarkReply answers with a relayed CDP reply of 1 MiB (a screenshot's
// size) and with a snapshot of 250 KB of text (the 5,000-item page's
// interactive one): the result encoded on its own then again in the
// response (wire), and in one pass (direct, what reply sends).
// Run: go test ./internal/server/agentconn -run '^$' -bench Reply
func BenchmarkReply(b *testing.B) {
	line := "- listitem: link \"Item 1234 — details\" @5678\n"
	results := []struct {
		name string
		v    any
		size int
	}{
		{"cdp-1MiB", json.RawMessage(`{"data":"` + strings.Repeat("iVBORw0K", 1<<17) + `"}`), 1 << 20},
		{"snapshot-250KB", protocol.SnapshotResult{Text: strings.Repeat(line, 250_000/len(line)), URL: "http://127.0.0.1/list/5000", Tab: 1}, 250_000},
	}
	for _, r := range results {
		b.Run(r.name+"/wire", func(b *testing.B) {
			b.SetBytes(int64(r.size))
			for b.Loop() {
				inner, err := json.Marshal(r.v)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(protocol.Response{JSONRPC: protocol.Version, ID: json.RawMessage("1"), Result: inner}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(r.name+"/direct", func(b *testing.B) {
			rec := &recorder{}
			c := newConn(rec, slog.New(slog.DiscardHandler))
			b.SetBytes(int64(r.size))
			for b.Loop() {
				c.reply(json.RawMessage("1"), r.v, nil)
				rec.frames = rec.frames[:0]
			}
		})
	}
}
