package e2e

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// doctorRun is one `egohost doctor --json` run.
type doctorRun struct {
	code   int
	OK     bool `json:"ok"`
	Checks []struct {
		Name, Status, Detail, Fix string
	} `json:"checks"`
	stderr string
}

func (r doctorRun) check(t *testing.T, name string) (status, detail, fix string) {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c.Status, c.Detail, c.Fix
		}
	}
	t.Fatalf("no check %q in %+v", name, r.Checks)
	return "", "", ""
}

// doctor runs the real binary's doctor against stateDir, as a user whose
// home is home and whose temporary folder does not hold the binary.
func doctor(t *testing.T, stateDir, home string, args []string, env ...string) doctorRun {
	t.Helper()
	cmd := exec.Command(theSuite.bin, append([]string{"doctor", "--json"}, args...)...)
	cmd.Env = append(chainEnv(stateDir), "HOME="+home, "TMPDIR="+filepath.Join(home, "tmp"), "GOCACHE=", "XDG_CACHE_HOME=",
		"XDG_RUNTIME_DIR=", "XDG_CONFIG_HOME=", "XDG_DATA_HOME=")
	cmd.Env = append(cmd.Env, env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	var r doctorRun
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("doctor: %v", err)
		}
		r.code = ee.ExitCode()
	}
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		t.Fatalf("doctor --json printed %q (stderr %q): %v", out.String(), errb.String(), err)
	}
	r.stderr = errb.String()
	return r
}

// doctor over the real chain: healthy first, then each link broken on
// purpose, each named with its fix and a non-zero exit.
func TestDoctor(t *testing.T) {
	endSharedChain(t) // doctor would report its browser as not connected to this test's service
	c := startChain(t)
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	udd := c.proc.UserDataDir()
	profile := []string{"--user-data-dir", udd}
	manifestCheck := "host manifest, profile " + udd

	r := doctor(t, c.svc.stateDir, home, profile)
	if r.code != 0 || !r.OK {
		t.Fatalf("healthy chain: got exit %d, report %+v, stderr %q; want 0 and ok", r.code, r.Checks, r.stderr)
	}
	for _, name := range []string{"config", "binary", manifestCheck, "token permissions", "service", "port", "extension"} {
		if status, detail, _ := r.check(t, name); status != "ok" {
			t.Errorf("healthy chain: %s is %s (%s), want ok", name, status, detail)
		}
	}
	// The test points egohost at its state dir with $EGOHOST_STATE_DIR:
	// the relay works (the launched browser has it too), but a browser
	// started elsewhere would not see it.
	if status, detail, _ := r.check(t, "relay → service"); status != "warn" || !strings.Contains(detail, "answers; $EGOHOST_STATE_DIR set here") {
		t.Errorf("relay → service: got %s (%s), want a warning naming $EGOHOST_STATE_DIR", status, detail)
	}
	if _, detail, _ := r.check(t, "extension"); !strings.Contains(detail, "connected: b") {
		t.Errorf("extension: got %q, want the connected browser", detail)
	}

	manifest := filepath.Join(udd, "NativeMessagingHosts", "com.egohost.host.json")
	orig, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	breakManifest := func(from, to string) {
		if err := os.WriteFile(manifest, []byte(strings.Replace(string(orig), from, to, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.WriteFile(manifest, orig, 0o600) })
	}
	tests := []struct {
		name                string
		breakIt             func() (env []string)
		stateDir            func() string
		check               string
		wantDetail, wantFix string
		// noProfile: doctor is not pointed at the chain's profile, which
		// has the extension (once Chrome has written its Preferences, at a
		// moment of its choosing, doctor rightly says "installed but not
		// connected" there instead).
		noProfile bool
	}{
		{name: "manifest points at another binary", check: manifestCheck, wantDetail: "points at /gone/", wantFix: "egohost install --user-data-dir",
			breakIt: func() []string { breakManifest(`"path": "/`, `"path": "/gone/`); return nil }},
		{name: "manifest allows another extension", check: manifestCheck, wantDetail: "lack chrome-extension://", wantFix: "egohost install",
			breakIt: func() []string { breakManifest("chrome-extension://a", "chrome-extension://b"); return nil }},
		{name: "manifest is not JSON", check: manifestCheck, wantDetail: "not valid JSON", wantFix: "egohost install",
			breakIt: func() []string { breakManifest("{", "{{"); return nil }},
		{name: "token readable by others", check: "token permissions", wantDetail: "open to other users", wantFix: "chmod 600",
			breakIt: func() []string {
				tok := filepath.Join(c.svc.stateDir, "token")
				os.Chmod(tok, 0o644)
				t.Cleanup(func() { os.Chmod(tok, 0o600) })
				return nil
			}},
		{name: "temporary binary", check: "binary", wantDetail: "is temporary", wantFix: "go install",
			breakIt: func() []string { return []string{"TMPDIR=" + filepath.Dir(theSuite.bin)} }},
		{name: "bad config value", check: "config", wantDetail: `timeouts.action: "abc"`, wantFix: "correct that value",
			breakIt: func() []string { return []string{"EGOHOST_TIMEOUTS_ACTION=abc"} }},
		{name: "a service with no browser", check: "extension", wantDetail: "no browser is connected", wantFix: "Load unpacked", noProfile: true,
			stateDir: func() string { return startService(t, t.TempDir()).stateDir }},
		{name: "port taken by another program", check: "port", wantDetail: "is taken by another program", wantFix: "set another port",
			stateDir: func() string { return t.TempDir() },
			breakIt: func() []string {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ln.Close() })
				return []string{"EGOHOST_LISTEN=" + ln.Addr().String()}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var env []string
			if tt.breakIt != nil {
				env = tt.breakIt()
			}
			state := c.svc.stateDir
			if tt.stateDir != nil {
				state = tt.stateDir()
			}
			args := profile
			if tt.noProfile {
				args = nil
			}
			r := doctor(t, state, home, args, env...)
			status, detail, fix := r.check(t, tt.check)
			if r.code != 1 || r.OK || status != "fail" || !strings.Contains(detail, tt.wantDetail) || !strings.Contains(fix, tt.wantFix) {
				t.Errorf("got exit %d, %s: %s %q (fix %q); want exit 1, fail with %q and fix %q", r.code, tt.check, status, detail, fix, tt.wantDetail, tt.wantFix)
			}
		})
	}

	// Last: the service goes; the service, the relay and the extension
	// checks say so.
	c.svc.stop()
	r = doctor(t, c.svc.stateDir, home, profile)
	if r.code != 1 {
		t.Errorf("service stopped: got exit %d, want 1", r.code)
	}
	for _, name := range []string{"service", "relay → service", "extension"} {
		if status, detail, fix := r.check(t, name); status != "fail" || fix == "" {
			t.Errorf("service stopped: %s is %s (%s, fix %q), want fail with a fix", name, status, detail, fix)
		}
	}
}
