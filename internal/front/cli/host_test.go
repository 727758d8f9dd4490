package cli

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Without a Host (the egohost binary), the commands that link the
// service, the MCP SDK or the OS's service manager run egohost-host in
// place of egohost, with the whole command line; the client verbs never
// do.
func TestHostOnlyCommandsRunTheFullBinary(t *testing.T) {
	t.Setenv("EGOHOST_CONFIG", "")
	t.Setenv("EGOHOST_STATE_DIR", t.TempDir())
	full := filepath.Join(t.TempDir(), "egohost-host")
	if err := os.WriteFile(full, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	tests := [][]string{
		{"serve"},
		{"install", "--service"},
		{"uninstall"},
		{"launch", "--headless", "example.com"},
		{"doctor", "--json"},
		{"--json", "doctor"},
		{"demo"},
		{"mcp", "--caps", "testing"},
		{"pair", "--name", "bot"},
		{"chrome-extension://abc/", "--parent-window=0"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var gotPath string
			var gotArgv []string
			var out, errb bytes.Buffer
			c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
				hostBinary: func() (string, error) { return full, nil },
				exec: func(path string, argv, env []string) error {
					gotPath, gotArgv = path, argv
					return nil
				},
				call: func(string, any) error { t.Error("a verb's call was made"); return nil },
			}
			var code int
			if strings.HasPrefix(args[0], "chrome-extension://") {
				c.args = args
				code = c.exitCode(c.runHost("relay"))
			} else {
				code = c.execute(context.Background(), args)
			}
			want := append([]string{full}, args...)
			if code != 0 || gotPath != full || !slices.Equal(gotArgv, want) {
				t.Errorf("got exit %d, exec %q %q (stderr %q); want exit 0 and exec %q %q", code, gotPath, gotArgv, errb.String(), full, want)
			}
		})
	}
	// A client verb runs here.
	var execs int
	p := parseWith(t, func(c *cli) {
		c.hostBinary = func() (string, error) { return full, nil }
		c.exec = func(string, []string, []string) error { execs++; return nil }
	}, "tabs")
	if p.verb != "tabs" || execs != 0 {
		t.Errorf("tabs: got call %q and %d exec(s); want the tabs call here and no exec", p.verb, execs)
	}
}

// A missing egohost-host: the error says where it was looked for and how
// to install both binaries.
func TestHostOnlyCommandWithoutTheFullBinary(t *testing.T) {
	t.Setenv("EGOHOST_CONFIG", "")
	t.Setenv("EGOHOST_STATE_DIR", t.TempDir())
	missing := filepath.Join(t.TempDir(), "egohost-host")
	for _, asJSON := range []bool{false, true} {
		var out, errb bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
			hostBinary: func() (string, error) { return missing, nil },
			exec: func(string, []string, []string) error {
				t.Error("exec of a missing binary")
				return nil
			},
		}
		for _, cmd := range [][]string{{"serve"}, {"trace", "show", "x.jsonl"}} {
			out.Reset()
			errb.Reset()
			args := cmd
			if asJSON {
				args = append(slices.Clone(args), "--json")
			}
			code := c.execute(context.Background(), args)
			msg := errb.String() + out.String()
			if code != 1 || !strings.Contains(msg, missing) || !strings.Contains(msg, "go install ./cmd/...") {
				t.Errorf("%v: got exit %d, %q; want exit 1 naming %s and go install ./cmd/...", args, code, msg, missing)
			}
			// A nested command is named whole: "egohost trace show", not "egohost show".
			if want := "egohost " + strings.Join(cmd[:min(len(cmd), 2)], " ") + " runs the full binary"; cmd[0] == "trace" && !strings.Contains(msg, want) {
				t.Errorf("%v: got %q, want it to say %q", args, msg, want)
			}
			if asJSON && !strings.HasPrefix(out.String(), `{"error":`) {
				t.Errorf("--json: got stdout %q, want a JSON error", out.String())
			}
		}
	}
	var ne *errNoHost
	c := &cli{hostBinary: func() (string, error) { return missing, nil }}
	if err := c.runHost("serve"); !errors.As(err, &ne) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("got %v, want errNoHost wrapping fs.ErrNotExist", err)
	}
}

// A verb's command line builds that verb's command alone (onlyVerb) and
// runs it without cobra's Execute (runVerb): what it prints, calls and
// exits with is what the whole tree gives.
func TestOnlyVerbIsTheWholeTreesVerb(t *testing.T) {
	var names []string
	for name := range (&env{}).verbs() {
		if !strings.Contains(name, " ") {
			names = append(names, name)
		}
	}
	if len(names) < 30 {
		t.Fatalf("got %d verbs of their own; want them all", len(names))
	}
	slices.Sort(names)
	shapes := [][]string{{}, {"@1"}, {"@1", "x"}, {"@1", "x", "y", "z"}, {"--frob"}, {"--timout", "3s"}, {"--tab", "x"}, {"@1", "--json"}, {"1", "--timeout", "0"}, {"--", "-x"}, {"@1", "--agent", "no such name!"}, {"--config", "/nonexistent/egohost.yaml"}}
	for _, name := range names {
		for _, shape := range shapes {
			args := append([]string{name}, shape...)
			only := parseWith(t, func(c *cli) {
				if c.args = args; c.onlyVerb() == nil {
					t.Errorf("%q: onlyVerb built nothing; want the verb's command", args)
				}
			}, args...)
			all := parseWith(t, func(c *cli) { c.fullTree = true }, args...)
			if only != all {
				t.Errorf("%q: the verb alone gives %+v; the whole tree %+v", args, only, all)
			}
		}
	}
	for _, args := range [][]string{{"--version"}, {"--json", "--version"}, {"--version", "--json"}} {
		only := parseWith(t, func(c *cli) {
			if c.args = args; !c.versionOnly() {
				t.Errorf("%q: not versionOnly", args)
			}
		}, args...)
		all := parseWith(t, func(c *cli) { c.fullTree = true }, args...)
		if only != all || !strings.Contains(only.stdout, "egohost") && !strings.Contains(only.stdout, "version") {
			t.Errorf("%q: the root alone gives %+v; the whole tree %+v", args, only, all)
		}
	}
	for _, args := range [][]string{{"--version", "tabs"}, {"tabs", "--version"}, {"--help"}} {
		if (&cli{args: args}).versionOnly() {
			t.Errorf("%q: versionOnly; want the tree", args)
		}
	}
	for _, args := range [][]string{{"click", "--help"}, {"click", "-h"}, {"help", "click"}, {"get", "text", "@1"}, {"cookies"}, {"--json", "tabs"}, {"clik"}, {"serve"}} {
		c := &cli{args: args}
		if c.onlyVerb() != nil {
			t.Errorf("%q: onlyVerb built a verb; want the whole tree", args)
		}
	}
}
