package cdpdirect

import (
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

func TestWellFormed(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"nothing to do", `{"a":"b\n"}`, `{"a":"b\n"}`},
		{"a pair stays", `"\ud83d\ude00"`, `"\ud83d\ude00"`},
		{"an upper-case pair stays", `"\uD83D\uDE00"`, `"\uD83D\uDE00"`},
		{"a lone high half", `"A\ud800B"`, `"A\ufffdB"`},
		{"a lone high half at the end", `"A\ud800"`, `"A\ufffd"`},
		{"a lone low half", `"C\udc00D"`, `"C\ufffdD"`},
		{"two high halves", `"\ud800\ud801\udc00"`, `"\ufffd\ud801\udc00"`},
		{"a low half before a high one", `"\udc00\ud800"`, `"\ufffd\ufffd"`},
		{"an escaped backslash is not an escape", `"\\ud800"`, `"\\ud800"`},
		{"a backslash before the escape", `"\\\ud800"`, `"\\\ufffd"`},
		{"other escapes", `"\u00e9\t\ud7ff\ue000"`, `"\u00e9\t\ud7ff\ue000"`},
		{"not hex", `"\ud8zz"`, `"\ud8zz"`},
		{"many", `["\ud800","ok","\udfff x"]`, `["\ufffd","ok","\ufffd x"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(WellFormed([]byte(tt.in))); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestWellFormedDecodes(t *testing.T) {
	var s []string
	if err := jsonv2.Unmarshal(WellFormed([]byte(`["A\ud800B","\ud83d\ude00","\udc00"]`)), &s); err != nil {
		t.Fatal(err)
	}
	if want := []string{"A\uFFFDB", "😀", "\uFFFD"}; len(s) != 3 || s[0] != want[0] || s[1] != want[1] || s[2] != want[2] {
		t.Errorf("got %q, want %q", s, want)
	}
}

func FuzzWellFormed(f *testing.F) {
	f.Add(`"\ud800"`)
	f.Add(`"\\\ud83d\ude00\udc00"`)
	f.Fuzz(func(t *testing.T, in string) {
		out := WellFormed([]byte(in))
		var v any
		if jsonv2.Unmarshal([]byte(in), &v) == nil {
			// Valid before: valid after, and the same.
			if string(out) != in {
				t.Errorf("changed valid JSON %q to %q", in, out)
			}
		}
	})
}
