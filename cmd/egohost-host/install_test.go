package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// runIn runs the CLI with HOME (and the state and data folders) in a
// temporary home, and returns its exit code, stdout and stderr.
func runIn(t *testing.T, home string, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("EGOHOST_CONFIG", "")
	t.Setenv("EGOHOST_STATE_DIR", filepath.Join(home, "state"))
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// The test binary lives in a go-build folder: install refuses to point a
// browser at it, and says what to do instead.
func TestInstallRefusesTemporaryBinary(t *testing.T) {
	home := t.TempDir()
	code, out, errs := runIn(t, home, "install")
	if code != 1 || !strings.Contains(errs, "go install ./cmd/...") || !strings.Contains(errs, "--allow-temporary") {
		t.Errorf("got exit %d, stderr %q; want exit 1 suggesting go install and --allow-temporary", code, errs)
	}
	if out != "" {
		t.Errorf("got stdout %q, want nothing written", out)
	}
	if entries, _ := os.ReadDir(home); len(entries) > 0 {
		t.Errorf("got %d entries in the home, want none written", len(entries))
	}
}

func TestInstallTwiceUninstallTwice(t *testing.T) {
	home := t.TempDir()
	// A user who has run Chromium (deb) and Chromium (snap).
	for _, d := range []string{".config/chromium", "snap/chromium/common/chromium"} {
		ranBrowser(t, filepath.Join(home, d))
	}
	// Chromium run with --user-data-dir elsewhere leaves this, and no
	// Local State: Chrome has not run here.
	if err := os.MkdirAll(filepath.Join(home, ".config/google-chrome/Crash Reports"), 0o700); err != nil {
		t.Fatal(err)
	}
	deb := filepath.Join(home, ".config/chromium/NativeMessagingHosts/com.egohost.host.json")
	snap := filepath.Join(home, "snap/chromium/common/chromium/NativeMessagingHosts/com.egohost.host.json")

	code, out, errs := runIn(t, home, "install", "--allow-temporary")
	for _, want := range []string{"✓ chromium: installed " + deb, "✓ chromium (snap): installed " + snap, "runs in a sandbox",
		"Load unpacked", filepath.Join(home, ".local/share/egohost/extension"), "chrome://extensions", "Developer mode", "egohost doctor"} {
		if !strings.Contains(out, want) {
			t.Errorf("first install: stdout lacks %q:\n%s", want, out)
		}
	}
	if code != 0 || !strings.Contains(errs, "warning:") {
		t.Errorf("first install: got exit %d, stderr %q; want 0 and a warning about the temporary binary", code, errs)
	}
	if strings.Contains(out, "google-chrome") {
		t.Errorf("first install wrote for a browser that never ran here:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(home, ".local/share/egohost/extension/manifest.json")); err != nil {
		t.Errorf("extension copy: %v", err)
	}

	code, out, _ = runIn(t, home, "install", "--allow-temporary")
	if code != 0 || !strings.Contains(out, "✓ chromium: already installed, up to date") || !strings.Contains(out, "✓ chromium (snap): already installed, up to date") {
		t.Errorf("second install: got exit %d, stdout:\n%s\nwant both already up to date", code, out)
	}

	// A manifest pointing elsewhere is updated, and says so.
	if err := os.WriteFile(deb, []byte(strings.Replace(mustRead(t, deb), `"path": "/`, `"path": "/old/`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, out, _ = runIn(t, home, "install", "--allow-temporary"); !strings.Contains(out, "✓ chromium: updated "+deb+" (it points at /old/") {
		t.Errorf("install over a stale manifest: stdout:\n%s", out)
	}

	code, out, _ = runIn(t, home, "uninstall")
	if code != 0 || !strings.Contains(out, "removed "+deb) || !strings.Contains(out, "removed "+snap) || !strings.Contains(out, "removed the extension copy") || strings.Contains(out, "google-chrome") {
		t.Errorf("first uninstall: got exit %d, stdout:\n%s\nwant the two manifests and the extension removed, nothing else", code, out)
	}
	code, out, _ = runIn(t, home, "uninstall")
	if code != 0 || strings.TrimSpace(out) != "no com.egohost.host host manifest was installed: nothing to remove" {
		t.Errorf("second uninstall: got exit %d, stdout %q; want nothing removed", code, out)
	}
}

// With no browser profile at all, install writes Chrome's and Chromium's
// and says it guessed.
func TestInstallGuessesWithoutProfiles(t *testing.T) {
	home := t.TempDir()
	code, out, _ := runIn(t, home, "install", "--allow-temporary")
	if code != 0 || !strings.Contains(out, "no browser profile found") || !strings.Contains(out, "✓ chrome: installed") || !strings.Contains(out, "✓ chromium: installed") {
		t.Errorf("got exit %d, stdout:\n%s", code, out)
	}
	code, out, _ = runIn(t, home, "install", "--allow-temporary", "--browser", "vivaldi")
	if code != 0 || !strings.Contains(out, "✓ vivaldi: installed "+filepath.Join(home, ".config/vivaldi/NativeMessagingHosts")) {
		t.Errorf("--browser vivaldi: got exit %d, stdout:\n%s", code, out)
	}
}

// Without a per-user service manager (this test clears XDG_RUNTIME_DIR),
// --service says what to do instead; uninstall --service with nothing
// installed is fine.
func TestServiceWithoutUserManager(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the per-user service manager is taken away through $XDG_RUNTIME_DIR, on Linux only")
	}
	home := t.TempDir()
	code, _, errs := runIn(t, home, "install", "--allow-temporary", "--service")
	if code != 1 || !strings.Contains(errs, "no per-user service manager") || !strings.Contains(errs, "egohost launch") || !strings.Contains(errs, "autostart") || strings.Contains(errs, "User services are not supported") {
		t.Errorf("install --service: got exit %d, stderr %q", code, errs)
	}
	for i := range 2 {
		code, out, errs := runIn(t, home, "uninstall", "--service")
		if code != 0 || !strings.Contains(out, "service: not installed, nothing to remove") {
			t.Errorf("uninstall --service #%d: got exit %d, stdout %q, stderr %q", i+1, code, out, errs)
		}
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ranBrowser makes dir look like a browser's user data folder.
func ranBrowser(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Local State"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
}
