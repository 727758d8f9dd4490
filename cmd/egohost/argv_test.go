package main

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestArgv(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantFlag  string
		wantBool  bool
		wantInt   int
		wantRest  []string
		wantError string
	}{
		{name: "flags anywhere", args: []string{"a", "--scope", "@3", "-i", "b", "--max=10"}, wantFlag: "@3", wantBool: true, wantInt: 10, wantRest: []string{"a", "b"}},
		{name: "nothing", args: nil},
		{name: "negative numbers are positional", args: []string{"--", "-5"}, wantRest: []string{"-5"}},
		{name: "a value starting with a dash after --", args: []string{"x", "--", "--not-a-flag"}, wantRest: []string{"x", "--not-a-flag"}},
		{name: "unknown flag", args: []string{"--frob"}, wantError: "unknown flag --frob"},
		{name: "bad number", args: []string{"--max", "ten"}, wantError: `--max "ten" is not a whole number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &argv{args: tt.args}
			flag, b, n := a.flag("--scope"), a.boolean("-i", "--interactive"), a.int("--max")
			rest, err := a.rest("verb")
			if tt.wantError != "" {
				var ue usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("got %v, want a usage error with %q", err, tt.wantError)
				}
				return
			}
			if err != nil || flag != tt.wantFlag || b != tt.wantBool || n != tt.wantInt || !slices.Equal(rest, tt.wantRest) {
				t.Errorf("got %q %v %d %q %v, want %q %v %d %q", flag, b, n, rest, err, tt.wantFlag, tt.wantBool, tt.wantInt, tt.wantRest)
			}
		})
	}
}

// Command-line mistakes exit 2 with a message naming the mistake, before
// anything talks to the service.
func TestRunUsageErrors(t *testing.T) {
	t.Setenv("EGOHOST_CONFIG", "")
	t.Setenv("EGOHOST_STATE_DIR", t.TempDir())
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"frob"}, `unknown command "frob"`},
		{[]string{"cdp"}, "usage: egohost cdp"},
		{[]string{"cdp", "Runtime.evaluate", "{not json"}, "not valid JSON"},
		{[]string{"tabs", "--tab", "x"}, `--tab "x" is not a tab ID`},
		{[]string{"click"}, "usage: egohost click"},
		{[]string{"snapshot", "--max", "x"}, "--max"},
		{[]string{"resolve", "#a", "--timeout", "soon"}, "--timeout"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &out, &errb)
			if code != 2 || !strings.Contains(errb.String(), tt.want) || out.Len() != 0 {
				t.Errorf("got exit %d, stderr %q, stdout %q; want exit 2 and %q", code, errb.String(), out.String(), tt.want)
			}
		})
	}
}

func TestRelayModeRefusesForeignOrigin(t *testing.T) {
	t.Setenv("EGOHOST_CONFIG", "")
	t.Setenv("EGOHOST_STATE_DIR", t.TempDir())
	var out, errb bytes.Buffer
	code := run([]string{"chrome-extension://bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/"}, strings.NewReader(""), &out, &errb)
	if code == 0 || out.Len() != 0 {
		t.Errorf("got exit %d and %d bytes on stdout; want a failure and nothing on stdout (it is Chrome's channel)", code, out.Len())
	}
}
