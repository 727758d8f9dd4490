package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSystemdUserUnit(t *testing.T) {
	got, err := SystemdUserUnit(ServiceConfig{Executable: "/home/u/bin/egohost"})
	if err != nil {
		t.Fatalf("got error %v, want nil", err)
	}
	want := `[Unit]
Description=egohost: lets local agents drive your own browser
StartLimitIntervalSec=60
StartLimitBurst=10

[Service]
Type=simple
ExecStart=/home/u/bin/egohost serve
Restart=always
RestartSec=2

[Install]
WantedBy=default.target
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unit mismatch (-want +got):\n%s", diff)
	}
}

func TestSystemdUserUnitQuoting(t *testing.T) {
	tests := []struct {
		name     string
		cfg      ServiceConfig
		wantLine string
		wantErr  string
	}{
		{
			name:     "space in path",
			cfg:      ServiceConfig{Executable: "/home/u/My Apps/egohost"},
			wantLine: `ExecStart="/home/u/My Apps/egohost" serve`,
		},
		{
			name:     "specifier and variable",
			cfg:      ServiceConfig{Executable: "/opt/egohost", Args: []string{"serve", "--config=/x/%h/$HOME"}},
			wantLine: `ExecStart=/opt/egohost serve --config=/x/%%h/$$HOME`,
		},
		{
			name:     "quotes and backslashes",
			cfg:      ServiceConfig{Executable: "/opt/egohost", Args: []string{`a"b`, `c\d`, "", "it's"}},
			wantLine: `ExecStart=/opt/egohost "a\"b" "c\\d" "" "it's"`,
		},
		{
			name:     "description with percent",
			cfg:      ServiceConfig{Executable: "/opt/egohost", Description: "100% egohost"},
			wantLine: "Description=100%% egohost",
		},
		{name: "relative executable", cfg: ServiceConfig{Executable: "egohost"}, wantErr: "is not an absolute path"},
		{name: "newline in argument", cfg: ServiceConfig{Executable: "/opt/egohost", Args: []string{"a\nb"}}, wantErr: "line break"},
		{name: "template action", cfg: ServiceConfig{Executable: "/opt/{{Path}}"}, wantErr: `"{{"`},
		{name: "newline in description", cfg: ServiceConfig{Executable: "/opt/egohost", Description: "a\n[Service]"}, wantErr: "line break"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SystemdUserUnit(tt.cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("got error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if !strings.Contains(got, "\n"+tt.wantLine+"\n") {
				t.Errorf("got unit\n%s\nwant the line %q", got, tt.wantLine)
			}
		})
	}
}

func TestKardianosConfig(t *testing.T) {
	tests := []struct {
		goos        string
		wantSystemd bool
	}{
		{goos: "linux", wantSystemd: true},
		{goos: "darwin", wantSystemd: false},
		{goos: "windows", wantSystemd: false},
	}
	for _, tt := range tests {
		t.Run(tt.goos, func(t *testing.T) {
			c := ServiceConfig{Executable: "/opt/egohost"}.withDefaults()
			kc, err := kardianosConfig(c, tt.goos)
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if kc.Name != "egohost" || kc.Executable != "/opt/egohost" {
				t.Errorf("got name %q, executable %q, want egohost, /opt/egohost", kc.Name, kc.Executable)
			}
			if diff := cmp.Diff([]string{"serve"}, kc.Arguments); diff != "" {
				t.Errorf("arguments mismatch (-want +got):\n%s", diff)
			}
			if got := kc.Option["UserService"]; got != true {
				t.Errorf("got UserService %v, want true", got)
			}
			unit, ok := kc.Option["SystemdScript"].(string)
			if ok != tt.wantSystemd {
				t.Fatalf("got SystemdScript set %v, want %v", ok, tt.wantSystemd)
			}
			if ok && (!strings.Contains(unit, "WantedBy=default.target\n") || strings.Contains(unit, "multi-user.target")) {
				t.Errorf("got unit\n%s\nwant WantedBy=default.target only", unit)
			}
		})
	}
	if _, err := kardianosConfig(ServiceConfig{Executable: "bin/egohost"}.withDefaults(), "linux"); err == nil {
		t.Error("got nil error for a relative executable, want one")
	}
}

func TestNewService(t *testing.T) {
	tests := []struct {
		name    string
		cfg     ServiceConfig
		wantErr bool
	}{
		{name: "defaults", cfg: ServiceConfig{Executable: "/opt/egohost"}},
		{name: "custom args", cfg: ServiceConfig{Name: "egohost-dev", Executable: "/opt/egohost", Args: []string{"serve", "--config=/x.yaml"}}},
		{name: "relative executable", cfg: ServiceConfig{Executable: "egohost"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewService(tt.cfg)
			if (err != nil) != tt.wantErr {
				t.Fatalf("got error %v, want error %v", err, tt.wantErr)
			}
			if err == nil && s.Platform() == "" {
				t.Error("got empty platform, want the service manager's name")
			}
		})
	}
}

func TestInstallRefusedOnWindows(t *testing.T) {
	s, err := newService(ServiceConfig{Executable: "/opt/egohost"}, "windows")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Install(); !errors.Is(err, ErrUserServiceUnsupported) {
		t.Errorf("got error %v, want ErrUserServiceUnsupported", err)
	}
}

func TestRun(t *testing.T) {
	errBody := errors.New("body failed")
	tests := []struct {
		name      string
		body      func(ctx context.Context) error
		cancelCtx bool
		wantErr   error
	}{
		{name: "body returns nil", body: func(context.Context) error { return nil }},
		{name: "body fails", body: func(context.Context) error { return errBody }, wantErr: errBody},
		{
			name:      "ctx cancelled stops the body",
			body:      func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() },
			cancelCtx: true,
			wantErr:   context.Canceled,
		},
	}
	for _, mode := range []struct {
		name        string
		interactive bool
	}{{"interactive", true}, {"under the service manager", false}} {
		for _, tt := range tests {
			t.Run(mode.name+"/"+tt.name, func(t *testing.T) {
				s, err := NewService(ServiceConfig{Executable: "/opt/egohost"})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				started := make(chan struct{})
				body := func(ctx context.Context) error { close(started); return tt.body(ctx) }
				done := make(chan error, 1)
				go func() { done <- s.run(ctx, body, mode.interactive) }()

				select {
				case <-started:
				case <-time.After(10 * time.Second):
					t.Fatal("body not started after 10s")
				}
				if tt.cancelCtx {
					cancel()
				}
				select {
				case err := <-done:
					if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
						t.Errorf("got error %v, want %v", err, tt.wantErr)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("Run did not return after 10s")
				}
			})
		}
	}
}

func TestUserManagerProblem(t *testing.T) {
	tests := []struct {
		name, goos, platform, runtimeDir string
		have                             []string
		want                             string // substring; "" = fine
	}{
		{name: "systemd with a user manager", goos: "linux", platform: "linux-systemd", runtimeDir: "/run/user/1000", have: []string{"/run/user/1000/systemd/private"}},
		{name: "systemd without a user manager", goos: "linux", platform: "linux-systemd", runtimeDir: "/run/user/1000", want: "systemd's user manager is not running"},
		{name: "no runtime dir", goos: "linux", platform: "linux-systemd", want: "systemd's user manager is not running"},
		{name: "SystemV", goos: "linux", platform: "unix-systemv", want: "init is unix-systemv, not systemd"},
		{name: "launchd", goos: "darwin", platform: "darwin-launchd"},
		{name: "windows", goos: "windows", platform: "windows-service", want: "system account"},
		{name: "freebsd", goos: "freebsd", platform: "freebsd", want: "not supported on freebsd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := userManagerProblem(tt.goos, tt.platform, tt.runtimeDir, func(p string) bool { return slices.Contains(tt.have, p) })
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUnitPath(t *testing.T) {
	tests := []struct{ goos, home, want string }{
		{"linux", "/home/u", "/home/u/.config/systemd/user/egohost.service"},
		{"darwin", "/Users/u", "/Users/u/Library/LaunchAgents/egohost.plist"},
		{"windows", `C:\Users\u`, ""},
	}
	for _, tt := range tests {
		if got := UnitPath(tt.goos, tt.home, "egohost"); got != tt.want {
			t.Errorf("UnitPath(%q): got %q, want %q", tt.goos, got, tt.want)
		}
	}
}

// State reads the unit file: missing, stale (another binary), up to date
// and enabled.
func TestServiceStateFromFiles(t *testing.T) {
	home := t.TempDir()
	s, err := newService(ServiceConfig{Executable: "/opt/egohost"}, "linux")
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.State(home)
	if err != nil || st.Installed {
		t.Fatalf("no unit: got %+v, %v; want not installed", st, err)
	}
	unit := UnitPath("linux", home, "egohost")
	if err := os.MkdirAll(filepath.Dir(unit), 0o700); err != nil {
		t.Fatal(err)
	}
	old, _ := SystemdUserUnit(ServiceConfig{Executable: "/old/egohost"})
	if err := os.WriteFile(unit, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err = s.State(home); err != nil || !st.Installed || st.UpToDate || st.Enabled {
		t.Errorf("stale unit: got %+v, %v; want installed, not up to date, not enabled", st, err)
	}
	cur, _ := SystemdUserUnit(ServiceConfig{Executable: "/opt/egohost"})
	if err := os.WriteFile(unit, []byte(cur), 0o600); err != nil {
		t.Fatal(err)
	}
	link := enabledPath("linux", home, "egohost")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(unit, link); err != nil {
		t.Fatal(err)
	}
	if st, err = s.State(home); err != nil || !st.Installed || !st.UpToDate || !st.Enabled {
		t.Errorf("current unit: got %+v, %v; want installed, up to date, enabled", st, err)
	}
}
