package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/egohost/egohost/internal/front/cli"
)

func TestRelayModeRefusesForeignOrigin(t *testing.T) {
	t.Setenv("EGOHOST_CONFIG", "")
	t.Setenv("EGOHOST_STATE_DIR", t.TempDir())
	var out, errb bytes.Buffer
	code := run([]string{"chrome-extension://bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/"}, strings.NewReader(""), &out, &errb)
	if code == 0 || out.Len() != 0 {
		t.Errorf("got exit %d and %d bytes on stdout; want a failure and nothing on stdout (it is Chrome's channel)", code, out.Len())
	}
}

// egohost mcp checks its flags' values itself (the command line's shape
// is checked by the tree both binaries share: internal/front/cli's tests).
func TestMCPUsageErrors(t *testing.T) {
	t.Setenv("EGOHOST_CONFIG", "")
	t.Setenv("EGOHOST_STATE_DIR", t.TempDir())
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--max-chars", "-1"}, "--max-chars -1"},
		{[]string{"mcp", "--tools", "browser_clik"}, `--tools: "browser_clik" is neither a tool nor a group`},
		{[]string{"mcp", "--caps", "vision"}, `--caps: "vision" is not a group: want all or core, tabs, spaces, storage, testing`},
		{[]string{"mcp", "--name", "../../.ssh/x"}, `--name: agent name "../../.ssh/x"`},
		{[]string{"mcp", "--name", "owner"}, `is reserved`},
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

// Both binaries build their help from one command tree: every command's
// help reads the same in egohost (cli.Run without a Host: its main is that
// one call) and here. In this process, not the two binaries': about 55
// commands × 2 race-built processes cost 13 s of CPU (cmd/egohost's
// TestHelpIsTheSameInBothBinaries checks a few through the binaries).
func TestHelpIsTheSameWithoutTheHost(t *testing.T) {
	t.Setenv("EGOHOST_CONFIG", "")
	t.Setenv("EGOHOST_STATE_DIR", t.TempDir())
	t.Setenv("EGOHOST_DATA_DIR", t.TempDir())
	t.Setenv("EGOHOST_LISTEN", "127.0.0.1:0")
	t.Setenv("HOME", t.TempDir())
	front := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := cli.Run(args, strings.NewReader(""), &out, &errb, cli.Options{Version: version})
		return out.String(), errb.String(), code
	}
	full := func(args ...string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(args, strings.NewReader(""), &out, &errb)
		return out.String(), errb.String(), code
	}
	list, _, _ := front("__complete", "")
	var cmds [][]string
	for _, line := range strings.Split(list, "\n") {
		name, _, _ := strings.Cut(line, "\t")
		if name == "" || strings.HasPrefix(name, ":") {
			continue
		}
		cmds = append(cmds, []string{name, "--help"})
	}
	if len(cmds) < 40 {
		t.Fatalf("egohost __complete listed %d commands; want them all:\n%s", len(cmds), list)
	}
	cmds = append(cmds, []string{"--help"}, []string{"--version"}, []string{"help", "cookies", "set"}, []string{"clik"}, []string{"serve", "x"})
	for _, args := range cmds {
		o1, e1, c1 := front(args...)
		o2, e2, c2 := full(args...)
		if o1 != o2 || e1 != e2 || c1 != c2 {
			t.Errorf("%q: egohost says (exit %d)\n%s%s\negohost-host says (exit %d)\n%s%s", args, c1, o1, e1, c2, o2, e2)
		}
		if o1 == "" && e1 == "" {
			t.Errorf("%q: neither says anything", args)
		}
	}
}
