package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// parsed is what a command line turned into: the verb's call, or the exit
// code and what was printed.
type parsed struct {
	verb           string
	params         string // JSON
	code           int
	stdout, stderr string
}

// parse runs the command line through the real command tree, with the
// service's calls taken by the test.
func parse(t *testing.T, args ...string) parsed {
	t.Helper()
	t.Setenv("EGOHOST_CONFIG", "")
	t.Setenv("EGOHOST_STATE_DIR", t.TempDir())
	var out, errb bytes.Buffer
	var p parsed
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, call: func(verb string, params any) error {
		b, err := json.Marshal(params)
		p.verb, p.params = verb, string(b)
		return err
	}}
	p.code = c.execute(context.Background(), args)
	p.stdout, p.stderr = out.String(), errb.String()
	return p
}

func TestVerbParams(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantVerb string
		want     string
	}{
		{"flags anywhere", []string{"snapshot", "--scope", "@3", "-i", "--max=10"}, "snapshot", `{"interactive":true,"scope":"@3","maxChars":10}`},
		{"-- ends the flags", []string{"fill", "label=Name", "--", "--append"}, "fill", `{"target":"label=Name","text":"--append"}`},
		{"--append before --", []string{"fill", "label=Name", "--append", "--", "-x"}, "fill", `{"target":"label=Name","text":"-x","append":true}`},
		{"a negative wheel", []string{"scroll", "--dy", "-300"}, "scroll", `{"dy":-300}`},
		{"common flags", []string{"click", "@4", "--tab", "12", "--browser", "b2", "--timeout", "1500"}, "click", `{"browser":"b2","tab":12,"target":"@4","timeoutMs":1500}`},
		{"modifiers", []string{"click", "@4", "--modifiers", "Shift,Control"}, "click", `{"target":"@4","modifiers":["Shift","Control"]}`},
		{"dblclick counts two", []string{"dblclick", "@4"}, "dblclick", `{"target":"@4","count":2}`},
		{"rightclick", []string{"rightclick", "@4"}, "rightclick", `{"target":"@4","button":"right"}`},
		{"open", []string{"open", "example.com", "--until", "networkidle"}, "open", `{"url":"example.com","until":"networkidle"}`},
		{"select by label", []string{"select", "@9", "Large", "Small", "--by", "label"}, "select", `{"target":"@9","labels":["Large","Small"]}`},
		{"wait for text", []string{"wait", "--text", "Saved", "--gone"}, "wait", `{"text":"Saved","gone":true}`},
		{"wait --function is --fn", []string{"wait", "--function", "1"}, "wait", `{"function":"1"}`},
		{"wait for a ref in the thousands", []string{"wait", "@2000", "--timeout", "1.5s"}, "wait", `{"target":"@2000","timeoutMs":1500}`},
		{"console", []string{"console", "--level", "warning"}, "console", `{"level":"warning"}`},
		{"network with static", []string{"network", "--static", "--clear"}, "network", `{"static":true,"clear":true}`},
		{"cookies is get", []string{"cookies"}, "cookies get", `{}`},
		{"cookies get a name", []string{"cookies", "get", "sid"}, "cookies get", `{"name":"sid"}`},
		{"a bare name is get", []string{"cookies", "sid"}, "cookies get", `{"name":"sid"}`},
		{"cookies set", []string{"cookies", "set", "theme", "dark", "--path", "/", "--secure", "--same-site", "Lax", "--expires", "1900000000"}, "cookies set",
			`{"name":"theme","value":"dark","path":"/","expires":1900000000,"secure":true,"sameSite":"Lax"}`},
		{"cookies clear one", []string{"cookies", "clear", "sid"}, "cookies clear", `{"name":"sid"}`},
		{"dialog accept with text", []string{"dialog", "accept", "hi"}, "dialog", `{"accept":true,"promptText":"hi"}`},
		{"cdp with params", []string{"cdp", "Runtime.evaluate", `{"expression":"1"}`}, "cdp", `{"method":"Runtime.evaluate","params":{"expression":"1"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parse(t, tt.args...)
			if p.code != 0 || p.verb != tt.wantVerb || p.params != tt.want {
				t.Errorf("got exit %d, verb %q, params %s (stderr %q); want verb %q, params %s", p.code, p.verb, p.params, p.stderr, tt.wantVerb, tt.want)
			}
		})
	}
}

// Command-line mistakes exit 2 with a message naming the mistake, before
// anything talks to the service.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"frob"}, `unknown command "frob"`},
		{[]string{"clik", "@3"}, "Did you mean this?\n\tclick"},
		{[]string{"cdp"}, "usage: egohost cdp METHOD [PARAMS_JSON]"},
		{[]string{"cdp", "Runtime.evaluate", "{not json"}, "not valid JSON"},
		{[]string{"tabs", "--tab", "x"}, `--tab "x" is not a tab ID`},
		{[]string{"tabs", "extra"}, "usage: egohost tabs"},
		{[]string{"click"}, "usage: egohost click TARGET"},
		{[]string{"click", "@1", "--frob"}, "unknown flag: --frob"},
		{[]string{"snapshot", "--max", "x"}, "--max"},
		{[]string{"resolve", "#a", "--timeout", "soon"}, `invalid argument "soon" for "--timeout"`},
		{[]string{"resolve", "#a", "--timeout", "0"}, "want a positive duration"},
		{[]string{"console", "x"}, "usage: egohost console"},
		{[]string{"cookies", "set", "theme"}, "usage: egohost cookies set NAME VALUE"},
		{[]string{"cookies", "clear", "a", "b"}, "usage: egohost cookies clear"},
		{[]string{"open", "x", "--no-wait", "--until", "load"}, "--no-wait excludes --until"},
		{[]string{"select", "@1", "x", "--by", "colour"}, `select --by "colour"`},
		{[]string{"dialog", "dismiss", "x"}, "usage: egohost dialog accept [TEXT]"},
		{[]string{"scroll"}, "usage: egohost scroll TARGET"},
		{[]string{"screenshot", "a.png", "--full", "--target", "#x"}, "exclusive"},
		{[]string{"wait"}, "wait for one thing"},
		{[]string{"wait", "2000", "--state", "visible"}, "write @2000"},
		{[]string{"wait", "--ms", "50", "#id"}, "usage: egohost wait --ms N"},
		{[]string{"wait", "--ms", "soon"}, `invalid argument "soon" for "--ms"`},
		{[]string{"wait", "--", "-5"}, "must not be negative"},
		{[]string{"tab"}, "usage: egohost tab ID | tab --index N"},
		{[]string{"tab", "x"}, `"x" is not a tab ID`},
		{[]string{"tab", "3", "--index", "1"}, "not both"},
		{[]string{"tab", "--index", "-1"}, "want a position"},
		{[]string{"launch", "a", "b"}, "usage: egohost launch [URL]"},
		{[]string{"launch", "--frob"}, "unknown flag: --frob"},
		{[]string{"serve", "x"}, "usage: egohost serve"},
		{[]string{"install", "x"}, "usage: egohost install"},
		{[]string{"mcp", "--max-chars", "-1"}, "--max-chars -1"},
		{[]string{"mcp", "--tools", "browser_clik"}, `--tools: "browser_clik" is neither a tool nor a group`},
		{[]string{"mcp", "--caps", "vision"}, `--caps: "vision" is not a group: want all or core, tabs, spaces, storage, testing`},
		{[]string{"mcp", "--name", "../../.ssh/x"}, `--name: agent name "../../.ssh/x"`},
		{[]string{"mcp", "--name", "owner"}, `is reserved`},
		{[]string{"run", "a.js", "b.js"}, "usage: egohost run [FILE|-]"},
		{[]string{"doctor", "x"}, "usage: egohost doctor"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			p := parse(t, tt.args...)
			if p.code != 2 || !strings.Contains(p.stderr, tt.want) || p.stdout != "" || p.verb != "" {
				t.Errorf("got exit %d, stderr %q, stdout %q, call %q; want exit 2 and %q", p.code, p.stderr, p.stdout, p.verb, tt.want)
			}
		})
	}
}

// With --json a mistake is a JSON error on stdout, and nothing on stderr.
func TestJSONUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"click", "--json"}, {"--json", "frob"}, {"tabs", "--tab", "x", "--json"}, {"wait", "--json", "--ms", "x"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			p := parse(t, args...)
			var got struct {
				Error jsonError `json:"error"`
			}
			if err := json.Unmarshal([]byte(p.stdout), &got); err != nil || p.code != 2 || p.stderr != "" {
				t.Fatalf("got exit %d, stdout %q (%v), stderr %q; want exit 2 and one JSON error", p.code, p.stdout, err, p.stderr)
			}
			if got.Error.Code != 1200 || got.Error.Name != "usage" || got.Error.Message == "" {
				t.Errorf("got %+v, want code 1200, name usage and a message", got.Error)
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

// The help, usage and error texts people and programs read, as goldens
// in testdata/cli (go test -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"help", []string{"--help"}},
		{"no-args", nil},
		{"help-click", []string{"help", "click"}},
		{"click-h", []string{"click", "-h"}},
		{"status-help", []string{"status", "--help"}},
		{"wait-help", []string{"wait", "--help"}},
		{"snapshot-help", []string{"snapshot", "--help"}},
		{"cookies-help", []string{"cookies", "--help"}},
		{"launch-help", []string{"launch", "--help"}},
		{"version", []string{"--version"}},
		{"help-unknown", []string{"help", "clik"}},
		{"help-cookies-set", []string{"help", "cookies", "set"}},
		{"unknown-verb", []string{"clik", "@3"}},
		{"unknown-flag", []string{"fill", "@3", "x", "--apend"}},
		{"missing-arg", []string{"fill", "@3"}},
		{"json-missing-arg", []string{"fill", "@3", "--json"}},
		{"json-unknown-verb", []string{"--json", "frob"}},
		{"json-no-service", []string{"tabs", "--json"}},
		{"no-service", []string{"tabs"}},
	}
	tmp := regexp.MustCompile(`/tmp/[^ :)]*`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parseReal(t, tt.args...)
			got := "exit " + itoa(p.code) + "\n-- stdout --\n" + p.stdout + "-- stderr --\n" + p.stderr
			got = tmp.ReplaceAllString(got, "$$TMP")
			file := filepath.Join("testdata", "cli", tt.name+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(file), 0o755)
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s: got\n%s\nwant\n%s", file, got, want)
			}
		})
	}
}

// parseReal is parse without the test's hook: calls go to the (absent) service.
func parseReal(t *testing.T, args ...string) parsed {
	t.Helper()
	t.Setenv("EGOHOST_CONFIG", "")
	t.Setenv("EGOHOST_STATE_DIR", t.TempDir())
	version = "v0.0.0-test"
	t.Cleanup(func() { version = "" })
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
	code := c.execute(context.Background(), args)
	return parsed{code: code, stdout: out.String(), stderr: errb.String()}
}

func itoa(n int) string { return string(rune('0' + n)) }

// Shell completion: the scripts, and what they ask the binary for.
func TestCompletion(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"completion", "bash"}, []string{"bash completion V2 for egohost"}},
		{[]string{"completion", "zsh"}, []string{"#compdef egohost"}},
		{[]string{"completion", "fish"}, []string{"complete -c egohost"}},
		{[]string{"__complete", "cl"}, []string{"click\tclick an element", "close\t"}},
		{[]string{"__complete", "snapshot", "--s"}, []string{"--scope\t", "--start\t"}},
		{[]string{"__complete", "help", "scr"}, []string{"screenshot\t", "scroll\t"}},
		{[]string{"__complete", "cookies", ""}, []string{"set\t", "clear\t"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			p := parseReal(t, tt.args...)
			for _, w := range tt.want {
				if p.code != 0 || !strings.Contains(p.stdout, w) {
					t.Errorf("got exit %d, stdout %.300q; want %q", p.code, p.stdout, w)
				}
			}
		})
	}
}
