package browserlink

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/egohost/egohost/internal/link/extwire"
)

// decodeFrame takes every frame encoding/json took, the same way, names
// written as PROTOCOL.md writes them: its fast decoder where that one
// agrees, encoding/json where it refuses (invalid UTF-8, a name twice).
func TestDecodeFrameAsEncodingJSON(t *testing.T) {
	big := `{"id":17,"result":{"result":{"type":"string","value":"` + strings.Repeat(`2\tlink\tLink 123\t4567\n`, 2000) + `"}}}`
	tests := []struct {
		name, frame string
	}{
		{"a reply", `{"id":3,"result":{"result":{"type":"number","value":1}}}`},
		{"a large reply", big},
		{"an event", `{"event":"cdp","tabId":7,"method":"Page.lifecycleEvent","params":{"name":"load"}}`},
		{"a tab event", `{"event":"tab.updated","tab":{"id":7,"windowId":1,"url":"https://example.test/","title":"t","active":true,"attached":false}}`},
		{"an error", `{"id":4,"error":{"code":"detached","message":"gone"}}`},
		{"invalid UTF-8 in a title", "{\"event\":\"tab.updated\",\"tab\":{\"id\":1,\"title\":\"a\xffb\"}}"},
		{"a name twice", `{"id":1,"id":2}`},
		{"unknown names", `{"id":1,"later":{"a":[1,2]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want extwire.Message
			if err := json.Unmarshal([]byte(tt.frame), &want); err != nil {
				t.Fatalf("encoding/json refuses the test's frame: %v", err)
			}
			got, err := decodeFrame([]byte(tt.frame))
			if err != nil {
				t.Fatalf("decodeFrame: %v", err)
			}
			if !sameMessage(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
		})
	}
	for _, frame := range []string{``, `{`, `[1]`, `{"id":"x"}`, `{"id":1.5}`} {
		if _, err := decodeFrame([]byte(frame)); err == nil {
			t.Errorf("decodeFrame(%q): no error", frame)
		}
	}
}

// sameMessage compares two messages, their raw JSON by value.
func sameMessage(a, b extwire.Message) bool {
	compact := func(r json.RawMessage) string {
		var buf bytes.Buffer
		if len(r) == 0 || json.Compact(&buf, r) != nil {
			return string(r)
		}
		return buf.String()
	}
	if compact(a.Result) != compact(b.Result) || compact(a.Params) != compact(b.Params) {
		return false
	}
	a.Result, b.Result, a.Params, b.Params = nil, nil, nil, nil
	return reflect.DeepEqual(a, b)
}

func FuzzDecodeFrame(f *testing.F) {
	f.Add([]byte(`{"id":3,"result":{"result":{"type":"number","value":1}}}`))
	f.Add([]byte(`{"event":"tab.updated","tab":{"id":7,"title":"x"}}`))
	f.Add([]byte(`{"ID":5,"id":6}`))
	f.Add([]byte("{\"method\":\"a\xff\"}"))
	f.Fuzz(func(t *testing.T, frame []byte) {
		var want extwire.Message
		werr := json.Unmarshal(frame, &want)
		got, err := decodeFrame(frame)
		if werr != nil {
			return // refused by both, or taken by the fast decoder only
		}
		if err != nil {
			t.Fatalf("encoding/json takes %q, decodeFrame refuses it: %v", frame, err)
		}
		if renamed(frame) {
			return // a name PROTOCOL.md writes otherwise: encoding/json matched it, the fast decoder need not
		}
		if !sameMessage(got, want) {
			t.Fatalf("%q: got %+v, want %+v", frame, got, want)
		}
	})
}

// renamed says whether a frame writes a message's name in another case
// (encoding/json matches names whatever their case; PROTOCOL.md's are
// exact).
func renamed(frame []byte) bool {
	names := map[string]string{}
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			names[strings.ToLower(name)] = name
			add(f.Type)
		}
	}
	add(reflect.TypeFor[extwire.Message]())
	var v any
	if json.Unmarshal(frame, &v) != nil {
		return true
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if n, ok := names[strings.ToLower(k)]; ok && n != k || walk(e) {
					return true
				}
			}
		case []any:
			for _, e := range v {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

// BenchmarkDecodeFrame reads the reply of a large snapshot's walk (10,000
// records, 250 KB) as the link reads every frame, against encoding/json.
func BenchmarkDecodeFrame(b *testing.B) {
	value, _ := json.Marshal(strings.Repeat("2\tlink\tLink 123\t4567\n", 10000))
	frame := []byte(`{"id":17,"result":{"result":{"type":"string","value":` + string(value) + `}}}`)
	b.Run("decodeFrame", func(b *testing.B) {
		b.SetBytes(int64(len(frame)))
		for b.Loop() {
			if _, err := decodeFrame(frame); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(frame)))
		for b.Loop() {
			var in extwire.Message
			if err := json.Unmarshal(frame, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
