package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

// What the CLI prints for people, from the service's answers.
func TestHumanMessages(t *testing.T) {
	verbs := (&env{}).verbs()
	tests := []struct {
		name string
		verb string
		args []string // parsed first, for the printers that need the params
		raw  string
		want string
	}{
		{name: "screenshot of the full page", verb: "screenshot", args: []string{"/tmp/x.png", "--full"},
			raw: `{"tab":1,"path":"/tmp/x.png","bytes":2048,"width":1280,"height":4000,"fullPage":true}`, want: "wrote /tmp/x.png: full page, 1280×4000, 2.0 KiB\n"},
		{name: "screenshot of the viewport", verb: "screenshot", args: []string{"/tmp/x.png"},
			raw: `{"tab":1,"path":"/tmp/x.png","bytes":10,"width":1280,"height":657}`, want: "wrote /tmp/x.png: viewport, 1280×657, 10 bytes\n"},
		{name: "wait --url keeps &", verb: "wait", args: []string{"--url", "**b=2"},
			raw: `{"tab":1,"what":"url **b=2","tookMs":4,"value":"http://x/form?a=1\u0026b=2\u003c"}`, want: "waited 4 ms for url **b=2: \"http://x/form?a=1&b=2<\"\n"},
		{name: "press into the focused element", verb: "press", args: []string{"Enter"},
			raw: `{"action":"press","element":"<input id=\"q\">","tookMs":12}`, want: "pressed Enter on <input id=\"q\"> in 12 ms\n"},
		{name: "press with nothing focused", verb: "press", args: []string{"Tab"},
			raw: `{"action":"press","tookMs":3}`, want: "pressed Tab with nothing focused (the page got the keys) in 3 ms\n"},
		{name: "type into the focused element", verb: "type", args: []string{"hello"},
			raw: `{"action":"type","element":"<textarea>","value":"hello","tookMs":30}`, want: "typed \"hello\" into <textarea> → \"hello\" in 30 ms\n"},
		{name: "tabs with positions", verb: "tabs",
			raw:  `{"tabs":[{"id":7,"url":"about:blank","title":"a"},{"id":9,"active":true,"attached":true,"url":"http://x/","title":"b"}]}`,
			want: "#  TAB  ACTIVE  ATTACHED  TITLE  URL\n0  7                      a      about:blank\n1  9    *       *         b      http://x/\n"},
		{name: "a cut snapshot names the flags", verb: "snapshot",
			raw:  `{"text":"- button \"a\" [ref=@1]\n[cut: lines 3-9 of 9 not shown (100 chars, 2 refs). Get them with start=3 (same options), or narrow with scope (a ref or locator), viewport or interactive-only]\n","truncated":{"firstLine":0,"shownLines":2,"totalLines":9,"next":3,"hiddenRefs":2}}`,
			want: "- button \"a\" [ref=@1]\n[cut: lines 3-9 of 9 not shown (100 chars, 2 refs). Get them with --start 3 (same options), or narrow with --scope (a ref or locator), --viewport or -i]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := verbs[tt.verb]
			// The printers of press and type learn the key from the params.
			verbs = (&env{}).verbs()
			v = verbs[tt.verb]
			fs := pflag.NewFlagSet(tt.verb, pflag.ContinueOnError)
			build := v.flags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if _, err := build(common{}, fs.Args()); err != nil {
				t.Fatalf("params: %v", err)
			}
			var b strings.Builder
			if err := v.human(&b, json.RawMessage(tt.raw)); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}

// The service's words for its params become the CLI's flags.
func TestCLIWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{`2 browsers are connected (b1, b2): name one with "browser"`, "2 browsers are connected (b1, b2): name one with --browser ID"},
		{"snapshot: maxChars and start must not be negative", "snapshot: --max and --start must not be negative"},
		{"tabs.open: noWait excludes until and timeoutMs", "tabs.open: --no-wait excludes --until and --timeout"},
		{`cookies.set: sameSite "x" is not Strict, Lax or None`, `cookies set: --same-site "x" is not Strict, Lax or None`},
		{"click count 4: want 1, 2 or 3", "click --count 4: want 1, 2 or 3"},
		{`unknown mouse button "x": want left, right or middle`, `unknown --button "x": want left, right or middle`},
		{"script.run: a timeout of 2h0m0s exceeds timeouts.script_max (10m0s)", "run: --timeout 2h0m0s exceeds timeouts.script_max (10m0s)"},
		{"snapshot: 120 more lines. Get them with start=80 (same options), or narrow with scope (a ref or locator), viewport or interactive-only",
			"snapshot: 120 more lines. Get them with --start 80 (same options), or narrow with --scope (a ref or locator), --viewport or -i"},
		{"wait: timeoutMs must not be negative", "wait: --timeout must not be negative"},
		{"type: delayMs must not be negative", "type: --delay must not be negative"},
		{"no element matches #start", "no element matches #start"},
	}
	for _, tt := range tests {
		if got := cliWords(tt.in); got != tt.want {
			t.Errorf("cliWords(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
	// Every word is used above, and its literal is in what its pattern
	// matches: a pattern is compiled only for a message holding it.
	for _, w := range cliWordList {
		used := false
		for _, tt := range tests {
			if m := regexp.MustCompile(w.pattern).FindString(tt.in); m != "" {
				used = true
				if !strings.Contains(m, w.literal) {
					t.Errorf("%q matches %q, which does not hold its literal %q", w.pattern, tt.in, w.literal)
				}
			}
		}
		if !used {
			t.Errorf("no case above for %q", w.pattern)
		}
	}
}

// A service error printed with --json keeps its code and data, in the
// CLI's words.
func TestJSONServiceError(t *testing.T) {
	var out, errb strings.Builder
	err := protocol.Errorf(protocol.CodeAmbiguousBrowser, `2 browsers are connected (b1, b2): name one with "browser"`)
	if code := exitCode(&out, &errb, true, err); code != 1 || errb.Len() != 0 {
		t.Fatalf("got exit %d, stderr %q; want 1 and nothing", code, errb.String())
	}
	want := `{"error":{"code":1009,"name":"ambiguous_browser","message":"2 browsers are connected (b1, b2): name one with --browser ID","data":{"name":"ambiguous_browser"}}}` + "\n"
	if out.String() != want {
		t.Errorf("got %s, want %s", out.String(), want)
	}
	out.Reset()
	lost := lostService("click", fmt.Errorf("call: %w", client.ErrConnectionLost))
	if code := exitCode(&out, &errb, true, lost); code != 3 || !strings.Contains(out.String(), `"name":"service_lost"`) {
		t.Errorf("service lost: got exit %d, %s; want 3 and service_lost", code, out.String())
	}
}

func TestTabAtIndex(t *testing.T) {
	tabs := []protocol.Tab{{ID: 7}, {ID: 9}}
	if id, err := tabAtIndex(tabs, 1); err != nil || id != 9 {
		t.Errorf("index 1: got %d, %v; want 9", id, err)
	}
	if _, err := tabAtIndex(tabs, 2); err == nil || !strings.Contains(err.Error(), "there are 2 tabs (0 to 1") {
		t.Errorf("index 2: got %v", err)
	}
	if _, err := tabAtIndex(nil, 0); err == nil || !strings.Contains(err.Error(), "no tabs") {
		t.Errorf("no tabs: got %v", err)
	}
}

func TestUnescapeHTML(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"u":"a\u0026b\u003cc\u003ed"}`, `{"u":"a&b<c>d"}`},
		{`{"u":"a\\u0026b"}`, `{"u":"a\\u0026b"}`}, // an escaped backslash, then text
		{`{"u":"\"\u0026"}`, `{"u":"\"&"}`},
		{`{"n":1,"s":"\u00e9"}`, `{"n":1,"s":"\u00e9"}`},
	}
	for _, tt := range tests {
		if got := string(unescapeHTML([]byte(tt.in))); got != tt.want {
			t.Errorf("unescapeHTML(%s): got %s, want %s", tt.in, got, tt.want)
		}
	}
}

func FuzzUnescapeHTML(f *testing.F) {
	for _, s := range []string{`{"u":"a\u0026b"}`, `"\\u0026"`, `["\u003c",1,{"k":"\u003e"}]`, `"\"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var before any
		if json.Unmarshal([]byte(s), &before) != nil {
			return
		}
		out := unescapeHTML([]byte(s))
		var after any
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("%s → %s: no longer JSON: %v", s, out, err)
		}
		a, _ := json.Marshal(before)
		b, _ := json.Marshal(after)
		if string(a) != string(b) {
			t.Errorf("%s → %s: value changed", s, out)
		}
	})
}
