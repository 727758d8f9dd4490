package browser

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A browser egohost launches for a user never opens Chrome's DevTools
// port; only the test-only option does.
func TestFlagsOpenNoDevToolsPortByDefault(t *testing.T) {
	for _, opts := range []Options{{}, {Headless: true}, {Extension: "/ext", URL: "https://example.com"}} {
		for _, f := range Flags(opts, "/profile") {
			if strings.HasPrefix(f, "--remote-debugging") {
				t.Errorf("Flags(%+v) has %s, want no DevTools port", opts, f)
			}
		}
	}
	if got := Flags(Options{DevToolsPortForTests: true}, "/tmp/p"); !slices.Contains(got, "--remote-debugging-port=0") {
		t.Errorf("Flags with DevToolsPortForTests: got %v, want --remote-debugging-port=0", got)
	}
}

func TestLaunchRefusesADevToolsPortOnAProfile(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"test option on a user's profile", Options{Binary: "/bin/true", UserDataDir: "/home/ada/.local/share/egohost/profile", DevToolsPortForTests: true}, "only for a test profile in the temporary directory"},
		{"port flag in Args", Options{Binary: "/bin/true", Args: []string{"--remote-debugging-port=9222"}}, "refusing --remote-debugging-port=9222"},
		{"pipe flag in Args", Options{Binary: "/bin/true", Args: []string{"--remote-debugging-pipe"}}, "refusing --remote-debugging-pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Launch(context.Background(), tt.opts)
			if err == nil {
				p.Close()
				t.Fatalf("got a launched browser, want an error saying %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestInTempDir(t *testing.T) {
	tmp := os.TempDir()
	tests := []struct {
		dir  string
		want bool
	}{
		{filepath.Join(tmp, "TestX", "001", "profile"), true},
		{tmp, false},
		{filepath.Join(tmp, ".."), false},
		{filepath.Join(tmp, "..", "home", "profile"), false},
		{tmp + "-not-inside", false},
		{"/home/ada/.local/share/egohost/profile", false},
	}
	for _, tt := range tests {
		if got := inTempDir(tt.dir); got != tt.want {
			t.Errorf("inTempDir(%q): got %v, want %v", tt.dir, got, tt.want)
		}
	}
}
