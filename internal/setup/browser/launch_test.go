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

// A headless browser gets the features it has no use for disabled, merged
// into the caller's own --disable-features (Chromium reads only the last
// one); a browser with a window keeps them.
func TestFlagsDisableWhatHeadlessHasNoUseFor(t *testing.T) {
	want := "--disable-features=" + strings.Join(headlessUnseen, ",")
	tests := []struct {
		name string
		opts Options
		want []string // the --disable-features flags, in order
	}{
		{"with a window", Options{}, nil},
		{"with a window and the caller's", Options{Args: []string{"--disable-features=Translate"}}, []string{"--disable-features=Translate"}},
		{"headless", Options{Headless: true}, []string{want}},
		{"headless and the caller's", Options{Headless: true, Args: []string{"--disable-features=Translate,MediaRouter", "--mute-audio"}},
			[]string{"--disable-features=Translate,MediaRouter," + strings.Join(headlessUnseen, ",")}},
		{"headless and an empty one", Options{Headless: true, Args: []string{"--disable-features="}}, []string{want}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			flags := Flags(tt.opts, "/profile")
			for _, f := range flags {
				if strings.HasPrefix(f, "--disable-features") {
					got = append(got, f)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("--disable-features: got %q, want %q", got, tt.want)
			}
			for _, a := range tt.opts.Args {
				if !strings.HasPrefix(a, "--disable-features") && !slices.Contains(flags, a) {
					t.Errorf("the caller's %s is lost: %q", a, flags)
				}
			}
		})
	}
}
