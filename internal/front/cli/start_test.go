package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// What a call does in process before it dials, counted in allocations
// (they do not depend on the machine's load): `--version` prints its line
// without building or executing the command tree (cobra's Execute and its
// version template: 116 allocations), and a verb's line runs its command
// without Execute and reads the shipped defaults compiled in (parsing
// config.yaml was 830 of a call's 1,671). A new cost at every call shows
// here; docs/benchmarks.md, "What a CLI call costs", has the times.
func TestAVerbLineDoesLittle(t *testing.T) {
	// Nothing of the machine's: no user config file, no EGOHOST_* but these.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home)
	for _, k := range []string{"EGOHOST_CONFIG", "EGOHOST_JSON", "EGOHOST_AGENT"} {
		t.Setenv(k, "")
	}
	t.Setenv("EGOHOST_STATE_DIR", t.TempDir())
	tests := []struct {
		args []string
		max  float64 // 13 and ~750 when this was written
	}{
		{[]string{"--version"}, 40},
		{[]string{"--json", "--version"}, 40},
		{[]string{"tabs"}, 1000},
		{[]string{"click", "@3", "--tab", "5", "--json"}, 1000},
		{[]string{"fill", "label=Email", "ada@example.com"}, 1000},
	}
	for _, tt := range tests {
		var called string
		got := testing.AllocsPerRun(10, func() {
			var out bytes.Buffer
			c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &out, call: func(verb string, _ any) error {
				called = verb
				return nil
			}}
			if code := c.execute(context.Background(), tt.args); code != 0 {
				t.Fatalf("%q: exit %d: %s", tt.args, code, out.String())
			}
		})
		if tt.args[len(tt.args)-1] != "--version" && called != tt.args[0] {
			t.Errorf("%q: called %q; want %q", tt.args, called, tt.args[0])
		}
		if got > tt.max {
			t.Errorf("%q: %.0f allocations in process; want at most %.0f (is cobra's Execute or a YAML parse back on a call's path?)", tt.args, got, tt.max)
		}
	}
}

// runVerb runs a plain verb only: a command with a hook of its own, or
// that parses its own flags, is left to cobra's Execute, which runs them.
func TestRunVerbLeavesHooksToExecute(t *testing.T) {
	plain := func(*cobra.Command, []string) error { return nil }
	hook := func(*cobra.Command, []string) {}
	tests := []struct {
		name string
		cmd  *cobra.Command
		want bool
	}{
		{"plain", &cobra.Command{Use: "v", RunE: plain}, true},
		{"a PreRun", &cobra.Command{Use: "v", RunE: plain, PreRun: hook}, false},
		{"a PostRun", &cobra.Command{Use: "v", RunE: plain, PostRun: hook}, false},
		{"a PersistentPreRun", &cobra.Command{Use: "v", RunE: plain, PersistentPreRun: hook}, false},
		{"its own flag parsing", &cobra.Command{Use: "v", RunE: plain, DisableFlagParsing: true}, false},
		{"no RunE", &cobra.Command{Use: "v", Run: hook}, false},
	}
	for _, tt := range tests {
		c := &cli{stdout: io.Discard, stderr: io.Discard}
		if _, ran := c.runVerb(context.Background(), tt.cmd, nil); ran != tt.want {
			t.Errorf("%s: got ran %v, want %v", tt.name, ran, tt.want)
		}
	}
}
