package cli

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

	"github.com/egohost/egohost/protocol"
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
	return parseWith(t, func(*cli) {}, args...)
}

// parseWith is parse with the cli adjusted by set first.
func parseWith(t *testing.T, set func(*cli), args ...string) parsed {
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
	set(c)
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
		{"cdp --timeout reaches the service", []string{"cdp", "Page.reload", "--timeout", "9s"}, "cdp", `{"method":"Page.reload","timeoutMs":9000}`},
		// Issue 25 item 5: the reading verbs, each one call of a method the service has.
		{"get text", []string{"get", "text", "@12"}, "get text", `{"expression":"(el) =\u003e el.innerText ?? el.textContent","target":"@12"}`},
		{"get html", []string{"get", "html", "#main", "--tab", "7"}, "get html", `{"tab":7,"expression":"(el) =\u003e el.innerHTML","target":"#main"}`},
		{"get value", []string{"get", "value", "label=Email"}, "get value", `{"target":"label=Email"}`},
		{"get attr quotes the name", []string{"get", "attr", "@3", `x"); alert(1); ("`}, "get attr", `{"expression":"(el) =\u003e el.getAttribute(\"x\\\"); alert(1); (\\\"\")","target":"@3"}`},
		{"get url", []string{"get", "url"}, "get url", `{"expression":"location.href"}`},
		{"get title", []string{"get", "title"}, "get title", `{"expression":"document.title"}`},
		{"get count does not wait", []string{"get", "count", "role=listitem"}, "get count", `{"target":"role=listitem","mode":"matches"}`},
		{"get box waits", []string{"get", "box", "@4", "--timeout", "2s"}, "get box", `{"target":"@4","mode":"matches","wait":true,"timeoutMs":2000}`},
		{"is visible", []string{"is", "visible", "text=Saved"}, "is visible", `{"target":"text=Saved"}`},
		{"is enabled", []string{"is", "enabled", "@2"}, "is enabled", `{"target":"@2"}`},
		{"is checked", []string{"is", "checked", "label=Subscribe"}, "is checked", `{"target":"label=Subscribe"}`},
		// Issue 25 item 7: agent-browser's scroll words.
		{"scroll down", []string{"scroll", "down"}, "scroll", `{"dy":300}`},
		{"scroll up N", []string{"scroll", "up", "120"}, "scroll", `{"dy":-120}`},
		{"scroll left N", []string{"scroll", "Left", "50"}, "scroll", `{"dx":-50}`},
		{"rightclick is the right button", []string{"rightclick", "@4"}, "rightclick", `{"target":"@4","button":"right"}`},
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
		{[]string{"run", "a.js", "b.js"}, "usage: egohost run [FILE|-]"},
		{[]string{"doctor", "x"}, "usage: egohost doctor"},
		// Issue 25 item 7: the rough edges a newcomer hit.
		{[]string{"tab", "--index", "x"}, `--index "x": want a whole number`},
		{[]string{"click", "@1", "--timout", "3s"}, "did you mean --timeout?"},
		{[]string{"snapshot", "--scop", "@3"}, "did you mean --scope?"},
		{[]string{"scroll", "up", "x"}, `scroll up "x": want a number of pixels`},
		{[]string{"scroll", "down", "10", "--dy", "5"}, "a direction excludes --dx and --dy"},
		{[]string{"scroll", "@3", "@4"}, "usage: egohost scroll up|down|left|right [N]"},
		{[]string{"click", "e12"}, `"e12" is another tool's ref: refs here are @N`},
		{[]string{"fill", "[ref=e5]", "x"}, `"[ref=e5]" is another tool's ref`},
		{[]string{"drag", "@1", "e7"}, `"e7" is another tool's ref`},
		{[]string{"snapshot", "--scope", "E4"}, `"E4" is another tool's ref`},
		{[]string{"click", `role=button[name="Save"`}, `invalid locator "role=button[name=\"Save\"": unclosed`},
		{[]string{"get", "text", "text="}, "invalid locator"},
		{[]string{"download", "--click", "e3"}, `"e3" is another tool's ref`},
		{[]string{"press", "Enter", "--target", "e3"}, `"e3" is another tool's ref`},
		{[]string{"run", "no-such-file.js"}, "run: read the script: open no-such-file.js"},
		{[]string{"rightclick", "@4", "--button", "left"}, "unknown flag: --button"},
		{[]string{"dblclick", "@4", "--count", "3"}, "unknown flag: --count"},
		{[]string{"tabs", "--tab", "3"}, "egohost tabs takes no --tab here"},
		{[]string{"tabs", "--timeout", "3s"}, "egohost tabs takes no --timeout here"},
		{[]string{"open", "example.com", "--tab", "3"}, "egohost open takes no --tab here"},
		{[]string{"space", "list", "--browser", "b1"}, "egohost space list takes no --browser here"},
		{[]string{"tab", "3", "--tab", "4"}, "--tab is not needed"},
		{[]string{"get"}, "usage: egohost get text|html|value|attr|url|title|count|box"},
		{[]string{"get", "txt", "@1"}, `egohost get: unknown "txt"; did you mean text?`},
		{[]string{"is", "visble", "@1"}, `did you mean visible?`},
		{[]string{"get", "text"}, "usage: egohost get text TARGET"},
		{[]string{"get", "attr", "@1"}, "usage: egohost get attr TARGET NAME"},
		{[]string{"get", "url", "@1"}, "usage: egohost get url"},
		{[]string{"is", "visible"}, "usage: egohost is visible TARGET"},
		{[]string{"guide", "x"}, "usage: egohost guide"},
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
	// The temporary dir's paths (TMPDIR may be set: /work/tmp holds /tmp/ too).
	tmp := regexp.MustCompile(regexp.QuoteMeta(filepath.Clean(os.TempDir())) + `/[^ :)]*`)
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
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, version: "v0.0.0-test"}
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
		// Flag values (issue 25 item 7); --browser and --tab ask the live
		// service (e2e TestCLICompletesFromTheService).
		{[]string{"__complete", "open", "x", "--until", ""}, []string{"networkidle\n", "commit\n", ":4"}},
		{[]string{"__complete", "goto", "x", "--until", "dom"}, []string{"domcontentloaded\n"}},
		{[]string{"__complete", "console", "--level", ""}, []string{"warning\n", "error\n"}},
		{[]string{"__complete", "wait", "@1", "--state", ""}, []string{"hidden\n", "detached\n"}},
		{[]string{"__complete", "click", "@1", "--tab", ""}, []string{":4"}}, // no service: nothing, no files
		{[]string{"__complete", "get", ""}, []string{"text\t", "attr\t", "box\t"}},
		{[]string{"__complete", "is", ""}, []string{"visible\t", "checked\t"}},
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

// `--json --version`, in either order, and $EGOHOST_JSON print the
// version as JSON (issue 25 item 7).
func TestJSONVersion(t *testing.T) {
	for _, tt := range []struct {
		env  string
		args []string
	}{{"", []string{"--json", "--version"}}, {"", []string{"--version", "--json"}}, {"1", []string{"--version"}}, {"true", []string{"-v"}}} {
		t.Run(tt.env+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			t.Setenv("EGOHOST_JSON", tt.env)
			p := parseReal(t, tt.args...)
			if p.code != 0 || p.stdout != `{"version":"v0.0.0-test"}`+"\n" {
				t.Errorf("got exit %d, stdout %q; want exit 0 and {\"version\":\"v0.0.0-test\"}", p.code, p.stdout)
			}
		})
	}
}

// EGOHOST_JSON=1 works as --json: errors and mistakes come as JSON on
// stdout; 0 or unset leaves text.
func TestEnvJSON(t *testing.T) {
	for _, tt := range []struct {
		env      string
		wantJSON bool
	}{{"1", true}, {"true", true}, {"yes", true}, {"0", false}, {"", false}} {
		t.Run(tt.env, func(t *testing.T) {
			t.Setenv("EGOHOST_JSON", tt.env)
			for _, args := range [][]string{{"click"}, {"tabs"}} {
				p := parseReal(t, args...)
				isJSON := strings.HasPrefix(p.stdout, `{"error":{"code":`)
				if p.code == 0 || isJSON != tt.wantJSON || (isJSON && p.stderr != "") {
					t.Errorf("%v: got exit %d, stdout %q, stderr %q; want JSON %v", args, p.code, p.stdout, p.stderr, tt.wantJSON)
				}
			}
		})
	}
}

// `egohost guide` prints the text the MCP server sends as its
// instructions (mcpserver's TestInstructionsAreTheGuide checks that side).
func TestGuide(t *testing.T) {
	p := parseReal(t, "guide")
	if p.code != 0 || p.stdout != protocol.Guide+"\n" {
		t.Errorf("got exit %d, stdout %q; want protocol.Guide", p.code, p.stdout)
	}
	for _, w := range []string{"@12", "role=button", "wait", "space", "stale_ref", "user_in_control"} {
		if !strings.Contains(protocol.Guide, w) {
			t.Errorf("the guide does not mention %q", w)
		}
	}
}

// The help of a few verbs: the words and the flags they have.
func TestHelpTexts(t *testing.T) {
	tests := []struct {
		args    []string
		want    []string
		notWant []string
	}{
		{[]string{"agents", "deny", "--help"}, []string{"deny the pairing request of NAME"}, []string{"denie"}},
		{[]string{"rightclick", "--help"}, []string{"--modifiers"}, []string{"--button", "--count"}},
		{[]string{"dblclick", "--help"}, []string{"--modifiers"}, []string{"--button", "--count"}},
		{[]string{"click", "--help"}, []string{"--button", "--count"}, nil},
		{[]string{"--help"}, []string{"get ", "is ", "guide "}, nil},
		{[]string{"scroll", "--help"}, []string{"scroll down 300"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			p := parseReal(t, tt.args...)
			for _, w := range tt.want {
				if !strings.Contains(p.stdout, w) {
					t.Errorf("got %q; want %q in it", p.stdout, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(p.stdout, w) {
					t.Errorf("got %q; want no %q in it", p.stdout, w)
				}
			}
		})
	}
}

// The take over tells the person which of the space's tabs ran the
// agent's own script, and how to load them afresh; a space without such
// a tab prints its one line.
func TestTakeOverSaysWhichTabsRanTheAgentsScript(t *testing.T) {
	for _, tt := range []struct {
		name  string
		space protocol.Space
		want  string
	}{
		{"no script", protocol.Space{ID: "s1", Agent: "alice", State: "person", Color: "blue", Title: "✋ alice", Tabs: []int{50, 51}},
			"you have space s1  person   blue  ✋ alice  tabs [50 51]\n"},
		{"two tabs scripted", protocol.Space{ID: "s1", Agent: "alice", State: "person", Color: "blue", Title: "✋ alice", Tabs: []int{50, 51}, Scripted: []int{50, 51}},
			"you have space s1  person   blue  ✋ alice  tabs [50 51]\n" +
				"  ! tab 50: alice ran its own script in this page, which can read what you type there: reload it first (egohost reload --tab 50)\n" +
				"  ! tab 51: alice ran its own script in this page, which can read what you type there: reload it first (egohost reload --tab 51)\n"},
		{"a tab linked to a scripted one, and one outside the space", protocol.Space{ID: "s1", Agent: "alice", State: "person", Color: "blue", Title: "✋ alice", Tabs: []int{50, 51}, Scripted: []int{50}, CloseFirst: []int{51, 60}},
			"you have space s1  person   blue  ✋ alice  tabs [50 51]\n" +
				"  ! tab 51: a page alice's script ran in opened this one, or was opened by it, so the script may run here too and put itself back into that page after a reload: close this tab first (egohost close --tab 51)\n" +
				"  ! tab 60: a page alice's script ran in opened this one, or was opened by it, so the script may run here too and put itself back into that page after a reload: close this tab first (egohost close --tab 60)\n" +
				"  ! tab 50: alice ran its own script in this page, which can read what you type there: reload it first (egohost reload --tab 50)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(protocol.SpaceResult{Space: tt.space})
			var out bytes.Buffer
			if err := printSpace("you have space")(&out, raw); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// A revocation names the person's pages an agent's own script still
// runs in, the tabs to close first above those to reload.
func TestRevokedNamesThePagesAScriptRunsIn(t *testing.T) {
	var out bytes.Buffer
	r := protocol.AgentsRevokeResult{Name: "roamer", Cut: 1, Scripted: []protocol.Target{{Browser: "b1", Tab: 7}}, CloseFirst: []protocol.Target{{Browser: "b1", Tab: 9}}}
	if err := printRevoked(&out, r); err != nil {
		t.Fatal(err)
	}
	want := "revoked roamer (1 live connections cut)\n" +
		"  ! tab 9 of b1: a page an agent's script ran in opened this one, or was opened by it, so the script may run here too and put itself back into that page after a reload: close this tab first (egohost close --browser b1 --tab 9)\n" +
		"  ! tab 7 of b1: an agent ran its own script in this page, which can read what you type there, revoked or not: reload it first (egohost reload --browser b1 --tab 7)\n"
	if got := out.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A space completed with keep names its tabs whose page ran an agent's
// script; one without such a tab prints its one line.
func TestKeptTabsThatRanAnAgentsScriptAreNamed(t *testing.T) {
	for _, tt := range []struct {
		res  protocol.SpacesCompleteResult
		want string
	}{
		{protocol.SpacesCompleteResult{Space: "s1", Closed: []int{}, Kept: []int{50}}, "space s1 ended: 0 tab(s) closed, 1 kept\n"},
		{protocol.SpacesCompleteResult{Space: "s1", Closed: []int{}, Kept: []int{50, 51}, Scripted: []int{51}},
			"space s1 ended: 0 tab(s) closed, 2 kept\n  ! tab 51 ran an agent's own script, which can read what is typed there: reload it before typing (egohost reload --tab 51)\n"},
		{protocol.SpacesCompleteResult{Space: "s1", Closed: []int{}, Kept: []int{50, 51}, Scripted: []int{51}, CloseFirst: []int{50}},
			"space s1 ended: 0 tab(s) closed, 2 kept\n" +
				"  ! tab 50: a page an agent's script ran in opened this one, or was opened by it, so the script may run here too and put itself back into that page after a reload: close this tab first (egohost close --tab 50)\n" +
				"  ! tab 51 ran an agent's own script, which can read what is typed there: reload it before typing (egohost reload --tab 51)\n"},
	} {
		var out bytes.Buffer
		if err := printEnded(&out, tt.res); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != tt.want {
			t.Errorf("got\n%s\nwant\n%s", got, tt.want)
		}
	}
}
