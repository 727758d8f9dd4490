package rpcclient

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/egohost/egohost/protocol"
)

// wireRequest is a call's frame as the protocol defines it: the params
// encoded on their own, then the request with them as a json.RawMessage.
func wireRequest(t testing.TB, id, method string, params any) []byte {
	t.Helper()
	var raw json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			t.Fatal(err)
		}
		raw = b
	}
	b, err := json.Marshal(protocol.Request{JSONRPC: protocol.Version, ID: json.RawMessage(id), Method: method, Params: raw})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEncodeRequestIsTheWireRequest(t *testing.T) {
	var nilTarget *protocol.Target
	tests := []struct {
		name   string
		params any
	}{
		{"no params", nil},
		{"a struct", protocol.ClickParams{Target: protocol.Target{Tab: 7}, Element: "role=button[name=\"Buy\"]"}},
		{"a map", map[string]any{"b": 1, "a": []string{"x"}}},
		{"a typed nil pointer is null", nilTarget},
		{"raw JSON with spaces and markup is compacted and escaped", json.RawMessage(` { "expression" : "'<a>' && 1" } `)},
		{"a string with markup, quotes and newlines", protocol.DebugEchoParams{Data: "<b>\"x\"\n\u2028&"}},
		{"CDP params nested as raw JSON", protocol.CDPSendParams{Method: "Runtime.evaluate", Params: json.RawMessage(`{"expression": "1 < 2"}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encodeRequest("42", "m.x", tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if want := wireRequest(t, "42", "m.x", tt.params); string(got) != string(want) {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

func TestEncodeRequestRefusesBadParams(t *testing.T) {
	if _, err := encodeRequest("1", "m", map[string]any{"f": func() {}}); err == nil {
		t.Error("params that cannot be JSON: got no error")
	}
	if _, err := encodeRequest("1", "m", json.RawMessage(`{"a":`)); err == nil {
		t.Error("raw params that are not JSON: got no error")
	}
}

// BenchmarkEncodeRequest encodes a call with 1 MiB of data in its params:
// the params encoded on their own then copied into the request (wire), and
// straight into the request (direct, what Call sends).
// Run: go test ./internal/rpcclient -run '^$' -bench EncodeRequest
func BenchmarkEncodeRequest(b *testing.B) {
	params := protocol.DebugEchoParams{Data: strings.Repeat("abcdefgh", 1<<17)}
	b.Run("wire", func(b *testing.B) {
		b.SetBytes(int64(len(params.Data)))
		for b.Loop() {
			wireRequest(b, "1", protocol.MethodDebugEcho, params)
		}
	})
	b.Run("direct", func(b *testing.B) {
		b.SetBytes(int64(len(params.Data)))
		for b.Loop() {
			if _, err := encodeRequest("1", protocol.MethodDebugEcho, params); err != nil {
				b.Fatal(err)
			}
		}
	})
}
