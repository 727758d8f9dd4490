package audit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/egohost/egohost/protocol"
)

// form.fill's audit line names every field, its action and target, each
// target cut to its share: a hostile agent's long first target cannot
// push the later fields (a password field, say) out of the line, nor a
// target with "; " in it pass for two fields unnoticed (the count says
// how many there were); no text or value is in it.
func TestFormFillAuditLineNamesEveryField(t *testing.T) {
	long := strings.Repeat("x", 400)
	raw, _ := json.Marshal(map[string]any{"fields": []any{
		map[string]any{"target": long, "action": "fill", "text": "secret-1"},
		map[string]any{"target": "label=Password", "action": "fill", "text": "secret-2"},
		map[string]any{"target": "#agree", "action": "check"},
		map[string]any{"target": "#country", "action": "select", "values": []string{"secret-3"}},
	}})
	var params map[string]json.RawMessage
	if err := json.Unmarshal(raw, &params); err != nil {
		t.Fatal(err)
	}
	e := Sanitise(CallEntry(protocol.MethodFormFill, params))
	for _, want := range []string{"4 fields: ", "fill label=Password", "check #agree", "select #country"} {
		if !strings.Contains(e.Target, want) {
			t.Errorf("audit target %q: want %q in it", e.Target, want)
		}
	}
	if strings.Contains(e.Target, "secret") {
		t.Errorf("audit target %q holds a field's text or value", e.Target)
	}
	if e.Length == nil || *e.Length != len("secret-1secret-2secret-3") {
		t.Errorf("audit length: got %v, want %d", e.Length, len("secret-1secret-2secret-3"))
	}
}

// A call's entry shows what it aimed at, never a value it sent.
func TestCallEntry(t *testing.T) {
	n := func(i int) *int { return &i }
	tests := []struct {
		name, method, params string
		want                 Entry
	}{
		{"fill: a length", protocol.MethodFill, `{"target":"#q","text":"sécret"}`, Entry{Target: "#q", Length: n(6)}},
		{"drag: both ends", protocol.MethodDrag, `{"target":"#a","to":"#b"}`, Entry{Target: "#a -> #b"}},
		{"press a named key", protocol.MethodPress, `{"key":"Control+a"}`, Entry{Key: "Control+a"}},
		{"press a character: a length", protocol.MethodPress, `{"key":"x"}`, Entry{Length: n(1)}},
		{"eval: a length and a hash", protocol.MethodEval, `{"expression":"1+1"}`, Entry{Length: n(3), SHA256: protocol.TokenHash("1+1")}},
		{"cdp.send: the CDP method only", protocol.MethodCDPSend, `{"method":"Page.navigate","params":{"url":"https://x"}}`, Entry{Target: "Page.navigate"}},
		{"cookies.set: the name only", protocol.MethodCookiesSet, `{"name":"sid","value":"v"}`, Entry{Target: "sid"}},
		{"goto: no query", protocol.MethodGoto, `{"url":"https://u:p@example.com/a?token=1#f"}`, Entry{URL: "https://example.com/a"}},
		{"a non-string target", protocol.MethodClick, `{"target":3}`, Entry{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var params map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tt.params), &params); err != nil {
				t.Fatal(err)
			}
			tt.want.Method = tt.method
			got, _ := json.Marshal(CallEntry(tt.method, params))
			want, _ := json.Marshal(tt.want)
			if string(got) != string(want) {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

func TestStripQuery(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/a?token=1#frag": "https://example.com/a",
		"https://user:pw@example.com/":       "https://example.com/",
		"about:blank":                        "about:blank",
		"%zz":                                "",
	} {
		if got := StripQuery(in); got != want {
			t.Errorf("StripQuery(%q): got %q, want %q", in, got, want)
		}
	}
}

// A string member read without decoding is what json.Unmarshal returns;
// any string that needs decoding (escapes, invalid UTF-8) goes through it,
// and what is no JSON string is no string.
func TestStrIsWhatUnmarshalReads(t *testing.T) {
	for _, raw := range []string{
		`""`, `"plain"`, `"é ü 日本 🙂"`, "\"\u2028 line separator\"", `"tab\there"`, `"quote \" inside"`,
		`"back\\slash"`, `"\u00e9"`, `"\ud83d\ude42"`, "\"bad \xff utf-8\"", "\"raw\ttab\"", "\"raw\nnewline\"",
		`"unterminated`, `"`, `"a"b"`, `5`, `null`, `["x"]`, `{"a":"b"}`, `"x" `,
	} {
		var want string
		wantOK := len(raw) > 0 && raw[0] == '"' && json.Unmarshal([]byte(raw), &want) == nil
		got, ok := members{"text": json.RawMessage(raw)}.str("text")
		if ok != wantOK || got != want {
			t.Errorf("str(%q): got %q, %v; want %q, %v", raw, got, ok, want, wantOK)
		}
	}
}

// BenchmarkCallEntryLargeText: the audit line of a call with 16 MiB of
// text (debug.echo's bound): its length, read without decoding it.
func BenchmarkCallEntryLargeText(b *testing.B) {
	raw, _ := json.Marshal(strings.Repeat("x", 16<<20))
	params := map[string]json.RawMessage{"data": raw}
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if e := CallEntry("debug.echo", params); e.Length == nil || *e.Length != 16<<20 {
			b.Fatalf("got %v, want the length", e.Length)
		}
	}
}
