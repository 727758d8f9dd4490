package main

import (
	"bytes"
	"strings"
	"testing"
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
