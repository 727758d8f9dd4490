package main

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/install"
	"github.com/egohost/egohost/internal/setup/config"
)

// newTestDoctor returns a doctor over a temporary home where Chromium has
// run, egohost is installed (binary in ~/bin, manifest written) and the
// service's files exist, owner-only; no service answers.
func newTestDoctor(t *testing.T) *doctor {
	t.Helper()
	home := t.TempDir()
	state := filepath.Join(home, "state")
	cfg, err := config.Load(config.Options{Home: home, GOOS: "linux", Getenv: func(k string) string {
		return map[string]string{"EGOHOST_STATE_DIR": state, "EGOHOST_LISTEN": "127.0.0.1:0"}[k]
	}})
	if err != nil {
		t.Fatal(err)
	}
	d := &doctor{
		goos: "linux", home: home, self: filepath.Join(home, "bin", "egohost"),
		tempDirs: []string{filepath.Join(home, "tmp")}, cfg: cfg, exists: exists,
		dial: func(context.Context) (*client.Client, error) { return nil, errors.New("connection refused") },
	}
	ranBrowser(t, filepath.Join(home, ".config/chromium"))
	m := install.NewHostManifest(cfg.HostName, d.self, cfg.AllowedExtensionIDs)
	if _, err := install.WriteManifest(filepath.Join(home, ".config/chromium/NativeMessagingHosts"), m); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg.TokenFile, []byte(strings.Repeat("a", 64)), 0o600); err != nil {
		t.Fatal(err)
	}
	return d
}

func find(t *testing.T, r doctorReport, name string) check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, r.Checks)
	return check{}
}

// Each test breaks one link on purpose and wants doctor to name it, with
// a fix, and to fail.
func TestDoctorFileChecks(t *testing.T) {
	manifest := func(d *doctor) string {
		return filepath.Join(d.home, ".config/chromium/NativeMessagingHosts", d.cfg.HostName+".json")
	}
	rewrite := func(t *testing.T, d *doctor, from, to string) {
		b, err := os.ReadFile(manifest(d))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(manifest(d), []byte(strings.Replace(string(b), from, to, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		breakIt    func(t *testing.T, d *doctor)
		check      string
		wantStatus string
		wantDetail string
		wantFix    string
	}{
		{name: "all files fine", breakIt: func(*testing.T, *doctor) {}, check: "host manifest, chromium", wantStatus: checkOK, wantDetail: "valid JSON, runs this binary"},
		{name: "temporary binary", breakIt: func(t *testing.T, d *doctor) { d.self = filepath.Join(d.home, "tmp", "go-build1", "exe", "egohost") },
			check: "binary", wantStatus: checkFail, wantDetail: "is temporary", wantFix: "go install"},
		{name: "manifest missing", breakIt: func(t *testing.T, d *doctor) { os.Remove(manifest(d)) },
			check: "host manifest, chromium", wantStatus: checkFail, wantDetail: "is missing", wantFix: "egohost install --browser chromium"},
		{name: "manifest points at another binary", breakIt: func(t *testing.T, d *doctor) { rewrite(t, d, `"path": "/`, `"path": "/old/`) },
			check: "host manifest, chromium", wantStatus: checkFail, wantDetail: "points at /old/", wantFix: "egohost install"},
		{name: "manifest is not JSON", breakIt: func(t *testing.T, d *doctor) { rewrite(t, d, "{", "") },
			check: "host manifest, chromium", wantStatus: checkFail, wantDetail: "not valid JSON", wantFix: "egohost install"},
		{name: "manifest allows another extension", breakIt: func(t *testing.T, d *doctor) { rewrite(t, d, "chrome-extension://aokap", "chrome-extension://bokap") },
			check: "host manifest, chromium", wantStatus: checkFail, wantDetail: "lack chrome-extension://aokapgkciafkaelljglcdibalbfomkdb/", wantFix: "egohost install"},
		{name: "profile without manifest", breakIt: func(t *testing.T, d *doctor) { d.userDataDirs = []string{filepath.Join(d.home, "profile")} },
			check: "host manifest, profile " + "PROFILE", wantStatus: checkFail, wantDetail: "is missing", wantFix: "egohost install --user-data-dir"},
		{name: "launch's profile without manifest", breakIt: func(t *testing.T, d *doctor) {
			os.MkdirAll(filepath.Join(d.home, ".local/share/egohost/profile"), 0o700)
		},
			check: "host manifest, profile " + "LAUNCH", wantStatus: checkFail, wantDetail: "is missing", wantFix: "egohost install --user-data-dir"},
		{name: "snap browser", breakIt: func(t *testing.T, d *doctor) {
			ranBrowser(t, filepath.Join(d.home, "snap/chromium/common/chromium"))
			m := install.NewHostManifest(d.cfg.HostName, d.self, d.cfg.AllowedExtensionIDs)
			if _, err := install.WriteManifest(filepath.Join(d.home, "snap/chromium/common/chromium/NativeMessagingHosts"), m); err != nil {
				t.Fatal(err)
			}
		}, check: "host manifest, chromium (snap)", wantStatus: checkWarn, wantDetail: "sandboxed"},
		{name: "token readable by others", breakIt: func(t *testing.T, d *doctor) { os.Chmod(d.cfg.TokenFile, 0o644) },
			check: "token permissions", wantStatus: checkFail, wantDetail: "open to other users", wantFix: "chmod 600"},
		{name: "state folder open", breakIt: func(t *testing.T, d *doctor) { os.Chmod(d.cfg.StateDir, 0o755) },
			check: "state folder permissions", wantStatus: checkFail, wantDetail: "open to other users", wantFix: "chmod 700"},
		{name: "bad config", breakIt: func(t *testing.T, d *doctor) {
			d.cfgErr = errors.New(`config: timeouts.action: "abc" is not a duration`)
		},
			check: "config", wantStatus: checkFail, wantDetail: "timeouts.action", wantFix: "correct that value"},
		{name: "no service", breakIt: func(*testing.T, *doctor) {},
			check: "service", wantStatus: checkFail, wantDetail: "connection refused", wantFix: "egohost serve"},
		{name: "no relay socket", breakIt: func(*testing.T, *doctor) {},
			check: "relay → service", wantStatus: checkFail, wantDetail: "does not answer", wantFix: "start the service"},
		{name: "port taken", breakIt: func(t *testing.T, d *doctor) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			d.cfg.Listen = ln.Addr().String()
		}, check: "port", wantStatus: checkFail, wantDetail: "is taken by another program", wantFix: "set another port"},
		{name: "port free", breakIt: func(*testing.T, *doctor) {}, check: "port", wantStatus: checkOK, wantDetail: "is free"},
		{name: "stale service unit", breakIt: func(t *testing.T, d *doctor) {
			unit := install.UnitPath("linux", d.home, install.ServiceName)
			os.MkdirAll(filepath.Dir(unit), 0o700)
			old, _ := install.SystemdUserUnit(install.ServiceConfig{Executable: "/old/egohost"})
			if err := os.WriteFile(unit, []byte(old), 0o600); err != nil {
				t.Fatal(err)
			}
		}, check: "service unit", wantStatus: checkFail, wantDetail: "runs another egohost binary", wantFix: "egohost install --service"},
	}
	t.Setenv("XDG_RUNTIME_DIR", "") // no user service manager: never ask systemd
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newTestDoctor(t)
			tt.breakIt(t, d)
			name := strings.Replace(tt.check, "PROFILE", filepath.Join(d.home, "profile"), 1)
			name = strings.Replace(name, "LAUNCH", filepath.Join(d.home, ".local/share/egohost/profile"), 1)
			r := d.run(context.Background())
			c := find(t, r, name)
			if c.Status != tt.wantStatus || !strings.Contains(c.Detail, tt.wantDetail) || !strings.Contains(c.Fix, tt.wantFix) {
				t.Errorf("got %+v, want status %s, detail with %q, fix with %q", c, tt.wantStatus, tt.wantDetail, tt.wantFix)
			}
			if tt.wantStatus == checkFail && r.OK {
				t.Error("got report OK, want it failed")
			}
		})
	}
}

// The printed report marks each check and gives the fix under a broken
// one; --json prints the same as a document.
func TestDoctorOutput(t *testing.T) {
	r := doctorReport{Checks: []check{
		{Name: "binary", Status: checkOK, Detail: "/home/u/bin/egohost"},
		{Name: "service unit", Status: checkWarn, Detail: "not installed", Fix: "egohost install --service"},
		{Name: "service", Status: checkFail, Detail: "not reachable", Fix: "egohost serve"},
	}}
	var b strings.Builder
	printReport(&b, r)
	want := `✓ binary: /home/u/bin/egohost
! service unit: not installed
    → egohost install --service
✗ service: not reachable
    → egohost serve
1 broken link(s): fix the first one first, then run egohost doctor again
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
