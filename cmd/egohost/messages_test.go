package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := verbs[tt.verb]
			if _, err := v.params(&argv{args: tt.args}, protocol.Target{}); err != nil {
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

func TestSleepRequest(t *testing.T) {
	tests := []struct {
		args             []string
		want             time.Duration
		wantJSON, wantOK bool
		wantErr          string
	}{
		{args: []string{"2000"}, want: 2 * time.Second, wantOK: true},
		{args: []string{"1.5s", "--json"}, want: 1500 * time.Millisecond, wantJSON: true, wantOK: true},
		{args: []string{"--ms", "50", "--tab", "3"}, want: 50 * time.Millisecond, wantOK: true},
		{args: []string{"--ms=250ms"}, want: 250 * time.Millisecond, wantOK: true},
		{args: []string{"@2000"}},
		{args: []string{"#id"}},
		{args: []string{"--text", "Saved"}},
		{args: []string{"2000", "--state", "visible"}}, // the wait verb refuses it
		{args: []string{"--ms", "50", "#id"}, wantErr: "usage: egohost wait --ms N"},
		{args: []string{"--ms", "soon"}, wantErr: `wait --ms "soon"`},
		{args: []string{"-5"}, wantErr: "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			d, asJSON, ok, err := sleepRequest(tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("got error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || d != tt.want || asJSON != tt.wantJSON || ok != tt.wantOK {
				t.Errorf("got %v, %v, %v, %v; want %v, %v, %v", d, asJSON, ok, err, tt.want, tt.wantJSON, tt.wantOK)
			}
		})
	}
}

// A bare number is never a ref for wait, and --timeout takes milliseconds.
func TestWaitAndTimeoutParams(t *testing.T) {
	v := (&env{}).verbs()["wait"]
	if _, err := v.params(&argv{args: []string{"2000", "--state", "visible"}}, protocol.Target{}); err == nil || !strings.Contains(err.Error(), "write @2000") {
		t.Errorf("wait 2000 --state visible: got %v, want a usage error pointing at @2000", err)
	}
	p, err := v.params(&argv{args: []string{"@2000"}, timeout: 1500 * time.Millisecond}, protocol.Target{})
	if wp, _ := p.(protocol.WaitParams); err != nil || wp.Element != "@2000" || wp.TimeoutMs != 1500 {
		t.Errorf("wait @2000: got %+v, %v; want the ref and timeoutMs 1500", p, err)
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
