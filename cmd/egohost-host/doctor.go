package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/extension"
	"github.com/egohost/egohost/install"
	"github.com/egohost/egohost/internal/front/cli"
	"github.com/egohost/egohost/internal/setup/config"
	"github.com/egohost/egohost/internal/setup/config/viperconfig"
	"github.com/egohost/egohost/protocol"
)

// `egohost doctor` walks the chain a browser command travels — config,
// this binary, the host manifest of each browser, the service and its
// port, the state files, the relay socket, the extension's link, the
// service unit — and prints each link as ✓ (fine), ! (worth knowing) or
// ✗ (broken, with the fix). It exits 1 when a link is broken.

// Check statuses.
const (
	checkOK   = "ok"
	checkWarn = "warn"
	checkFail = "fail"
)

// check is one link of the chain, as doctor reports it.
type check struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warn or fail
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// doctorReport is what `doctor --json` prints.
type doctorReport struct {
	OK     bool    `json:"ok"` // no check failed
	Checks []check `json:"checks"`
}

// doctor is what the checks look at. Every outside input is a field, so
// the file checks run in tests against a temporary home.
type doctor struct {
	goos, home, self string
	tempDirs         []string
	cfg              *config.Config
	cfgErr           error    // the configuration did not load (cfg holds the defaults)
	userDataDirs     []string // profiles named with --user-data-dir
	exists           func(string) bool
	// dial connects to the running service (nil error = it answered).
	dial func(ctx context.Context) (*client.Client, error)
	// getenv reads doctor's own environment (nil: empty).
	getenv func(string) string
}

// doctorCmd runs `egohost doctor [--json] [--user-data-dir DIR]…`. It
// runs even when the configuration does not load: that is one of its
// checks.
func doctorCmd(ctx context.Context, cfgFile string, asJSON bool, udds []string, stdout, stderr io.Writer) error {
	home, _ := os.UserHomeDir()
	self, err := cli.Self()
	if err != nil {
		return err
	}
	cfg, cfgErr := cli.LoadConfig(cfgFile, viperconfig.Load)
	if cfgErr != nil {
		// Check the rest against the defaults.
		if cfg, err = viperconfig.Load(config.Options{Home: home, Getenv: func(string) string { return "" }, File: os.DevNull}); err != nil {
			return fmt.Errorf("doctor: load the default configuration: %w", err)
		}
	}
	e := newEnv(cli.NewEnv(stdout, stderr, cfg))
	d := &doctor{
		goos: runtime.GOOS, home: home, self: self, tempDirs: tempDirs(),
		cfg: cfg, cfgErr: cfgErr, userDataDirs: udds, exists: exists,
		dial: e.Dial, getenv: os.Getenv,
	}
	r := d.run(ctx)
	if asJSON {
		if err := cli.PrintJSON(stdout, r); err != nil {
			return err
		}
	} else {
		printReport(stdout, r)
	}
	if !r.OK {
		return cli.ErrReported
	}
	return nil
}

func printReport(w io.Writer, r doctorReport) {
	mark := map[string]string{checkOK: "✓", checkWarn: "!", checkFail: "✗"}
	for _, c := range r.Checks {
		fmt.Fprintf(w, "%s %s: %s\n", mark[c.Status], c.Name, c.Detail)
		if c.Fix != "" && c.Status != checkOK {
			for _, line := range strings.Split(c.Fix, "\n") {
				fmt.Fprintf(w, "    → %s\n", line)
			}
		}
	}
	failed := 0
	for _, c := range r.Checks {
		if c.Status == checkFail {
			failed++
		}
	}
	if failed == 0 {
		fmt.Fprintln(w, "every link of the chain is fine")
		return
	}
	fmt.Fprintf(w, "%d broken link(s): fix the first one first, then run egohost doctor again\n", failed)
}

// run runs every check, in the order a command travels.
func (d *doctor) run(ctx context.Context) doctorReport {
	var checks []check
	checks = append(checks, d.checkConfig(), d.checkBinary())
	checks = append(checks, d.checkManifests()...)
	checks = append(checks, d.checkStateFiles()...)

	cctx, cancel := context.WithTimeout(ctx, d.cfg.Timeouts.Connect+d.cfg.Timeouts.Request)
	defer cancel()
	c, dialErr := d.dial(cctx)
	if c != nil {
		defer c.Close()
	}
	var ping protocol.PingResult
	if dialErr == nil {
		dialErr = c.Call(cctx, protocol.MethodPing, nil, &ping)
	}
	checks = append(checks, d.checkService(ping, dialErr), d.checkPort(dialErr == nil, ping))
	checks = append(checks, d.checkRelay(ctx))
	checks = append(checks, d.checkExtension(cctx, c, dialErr))
	checks = append(checks, d.checkUnit())

	r := doctorReport{OK: true, Checks: checks}
	for _, c := range checks {
		if c.Status == checkFail {
			r.OK = false
		}
	}
	return r
}

func (d *doctor) checkConfig() check {
	c := check{Name: "config"}
	switch {
	case d.cfgErr != nil:
		c.Status, c.Detail = checkFail, d.cfgErr.Error()+" (the other checks use the defaults)"
		c.Fix = "correct that value (the error names the key and where it came from), or unset the variable"
	case d.cfg.File != "":
		c.Status, c.Detail = checkOK, "defaults + "+d.cfg.File+" + EGOHOST_* variables, all valid"
	default:
		c.Status, c.Detail = checkOK, "the defaults + EGOHOST_* variables, all valid (no user config file)"
	}
	return c
}

func (d *doctor) checkBinary() check {
	c := check{Name: "binary", Status: checkOK, Detail: d.self}
	if why := install.TemporaryBinary(d.self, d.tempDirs); why != "" {
		c.Status, c.Detail = checkFail, fmt.Sprintf("%s is temporary: %s; host manifests pointing at it break when it goes", d.self, why)
		c.Fix = "go install github.com/egohost/egohost/cmd/...@latest (egohost and egohost-host), then run that egohost's `egohost install`"
	}
	return c
}

// checkManifests checks the host manifest of every browser that has run
// for this user, and of every --user-data-dir profile.
func (d *doctor) checkManifests() []check {
	want := install.NewHostManifest(d.cfg.HostName, d.self, d.cfg.AllowedExtensionIDs)
	var targets []target
	udds := d.userDataDirs
	// The profile `egohost launch` uses by default (see launch.go), when
	// it has been used.
	if lp := filepath.Join(d.home, ".local", "share", "egohost", "profile"); d.exists(lp) && !slices.Contains(udds, lp) {
		udds = append(udds, lp)
	}
	for _, udd := range udds {
		targets = append(targets, target{name: "profile " + udd, loc: install.Location{Dir: install.ProfileManifestDir(udd), ProfileDir: udd}})
	}
	locs, err := install.Locations(d.goos, d.home)
	if err != nil {
		return []check{{Name: "host manifests", Status: checkFail, Detail: err.Error(), Fix: "set $HOME"}}
	}
	for _, l := range install.Present(locs, d.exists) {
		targets = append(targets, target{name: l.String(), loc: l})
	}
	if len(targets) == 0 {
		return []check{{Name: "host manifests", Status: checkFail,
			Detail: "no browser has run for this user (no Chrome, Chromium, Edge, Brave or Vivaldi profile found)",
			Fix:    "start your browser once, then egohost install (or egohost install --browser NAME; egohost launch needs none)"}}
	}
	var checks []check
	for _, t := range targets {
		checks = append(checks, d.checkManifest(t, want))
	}
	return checks
}

func (d *doctor) checkManifest(t target, want install.HostManifest) check {
	c := check{Name: "host manifest, " + t.name}
	fix := "egohost install"
	if strings.HasPrefix(t.name, "profile ") {
		fix = "egohost install --user-data-dir " + t.loc.ProfileDir
	} else if t.loc.Browser != "" {
		fix = "egohost install --browser " + string(t.loc.Browser)
	}
	r := install.InspectManifest(t.loc.Dir, want)
	switch r.State {
	case install.ManifestMissing:
		c.Status, c.Detail, c.Fix = checkFail, r.Path+" is missing: the browser cannot start egohost", fix
		return c
	case install.ManifestInvalid:
		c.Status, c.Detail, c.Fix = checkFail, r.Path+": "+r.Detail, fix+" (it rewrites the file)"
		return c
	case install.ManifestDifferent:
		c.Status, c.Detail, c.Fix = checkFail, r.Path+": "+r.Detail, fix+" (it rewrites the file)"
		return c
	}
	c.Status, c.Detail = checkOK, r.Path+": valid JSON, runs this binary, allows "+strings.Join(want.AllowedOrigins, " ")
	if key := t.loc.RegistryKey; key != "" {
		full := key + `\` + want.Name
		got, ok, err := install.RegistryValue(full)
		switch {
		case err != nil:
			c.Status, c.Detail, c.Fix = checkFail, err.Error(), fix
		case !ok || got != r.Path:
			c.Status, c.Detail, c.Fix = checkFail, fmt.Sprintf("registry %s is %q, not %s", full, got, r.Path), fix
		}
	}
	if c.Status == checkOK && t.loc.Sandboxed() {
		c.Status = checkWarn
		c.Detail += fmt.Sprintf("; %s runs sandboxed and may be unable to start it or reach the service", t.name)
		c.Fix = "if the extension's popup says the native host is not found, use the browser's non-sandboxed package, or egohost launch"
	}
	return c
}

// checkStateFiles checks that the state folder (live files), the data
// folder (paired agents, the audit log), the token and the relay socket
// are this user's alone.
func (d *doctor) checkStateFiles() []check {
	if d.goos == "windows" {
		return nil // ACLs, not modes
	}
	var checks []check
	for _, f := range []struct {
		name, path string
		dir        bool
	}{
		{"state folder", d.cfg.StateDir, true},
		{"data folder", d.cfg.DataDir, true},
		{"token", d.cfg.TokenFile, false},
		{"relay socket", d.cfg.Socket, false},
	} {
		if f.name == "data folder" && (f.path == "" || f.path == d.cfg.StateDir) {
			continue // the state folder holds it: checked above
		}
		c := check{Name: f.name + " permissions"}
		fi, err := os.Stat(f.path)
		switch {
		case os.IsNotExist(err):
			c.Status, c.Detail = checkOK, f.path+" does not exist yet (the service creates it, owner-only)"
		case err != nil:
			c.Status, c.Detail, c.Fix = checkFail, err.Error(), "check the path in the configuration"
		case fi.Mode().Perm()&0o077 != 0:
			c.Status = checkFail
			c.Detail = fmt.Sprintf("%s is open to other users (%v): anyone who reads it can drive your browser", f.path, fi.Mode().Perm())
			c.Fix = fmt.Sprintf("chmod %s %s", map[bool]string{true: "700", false: "600"}[f.dir], f.path)
		default:
			c.Status, c.Detail = checkOK, fmt.Sprintf("%s is yours alone (%v)", f.path, fi.Mode().Perm())
		}
		checks = append(checks, c)
	}
	return checks
}

func (d *doctor) checkService(ping protocol.PingResult, err error) check {
	c := check{Name: "service"}
	if err != nil {
		c.Status, c.Detail = checkFail, "not reachable: "+err.Error()
		c.Fix = "egohost serve (foreground), egohost launch (starts one with a browser), or egohost install --service"
		return c
	}
	c.Status, c.Detail = checkOK, fmt.Sprintf("up: version %s, pid %d", ping.Version, ping.PID)
	return c
}

// checkPort checks the agents' port: ours when the service answered on
// it, else free for the service to take.
func (d *doctor) checkPort(up bool, ping protocol.PingResult) check {
	c := check{Name: "port"}
	if up {
		c.Status, c.Detail = checkOK, fmt.Sprintf("the service (pid %d) listens on the configured %s", ping.PID, d.cfg.Listen)
		return c
	}
	ln, err := net.Listen("tcp", d.cfg.Listen)
	if err != nil {
		c.Status = checkFail
		c.Detail = fmt.Sprintf("%s is taken by another program (%v), so the service cannot start", d.cfg.Listen, err)
		c.Fix = "stop that program, or set another port: listen: 127.0.0.1:PORT in the config (or EGOHOST_LISTEN)"
		return c
	}
	ln.Close()
	c.Status, c.Detail = checkOK, d.cfg.Listen+" is free for the service"
	return c
}

// checkRelay dials the relay socket as the relay does.
func (d *doctor) checkRelay(ctx context.Context) check {
	c := check{Name: "relay → service"}
	var dl net.Dialer
	dctx, cancel := context.WithTimeout(ctx, d.cfg.Timeouts.Connect)
	defer cancel()
	conn, err := dl.DialContext(dctx, "unix", d.cfg.Socket)
	if err != nil {
		c.Status, c.Detail = checkFail, fmt.Sprintf("the relay socket %s does not answer (%v)", d.cfg.Socket, err)
		c.Fix = "start the service (see above); the relay Chrome starts must see the same state_dir/socket: set them in the config file, not only in your shell's EGOHOST_* variables"
		return c
	}
	conn.Close()
	c.Status, c.Detail = checkOK, d.cfg.Socket+" answers"
	// The relay is started by the browser, with the browser's
	// environment: variables set only in this shell do not reach it.
	var set []string
	for _, k := range []string{config.EnvConfigFile, config.EnvVar("state_dir"), config.EnvVar("socket")} {
		if d.getenv != nil && d.getenv(k) != "" {
			set = append(set, "$"+k)
		}
	}
	if len(set) > 0 {
		c.Status = checkWarn
		c.Detail += "; " + strings.Join(set, ", ") + " set here: the relay sees it only if the browser was started with it"
		c.Fix = "put the setting in ~/.config/egohost/config.yaml instead, so the relay Chrome starts reads it too"
	}
	return c
}

// checkExtension asks the service which browsers are linked through the
// extension.
func (d *doctor) checkExtension(ctx context.Context, c *client.Client, dialErr error) check {
	ch := check{Name: "extension"}
	loadSteps := "load it: chrome://extensions → Developer mode → Load unpacked → " +
		install.ExtensionDir(d.goos, d.home, os.Getenv("XDG_DATA_HOME")) + " (egohost install puts it there); or egohost launch"
	if dialErr != nil {
		ch.Status, ch.Detail, ch.Fix = checkFail, "cannot ask: the service is not reachable", "start the service first"
		return ch
	}
	var bl protocol.BrowsersListResult
	if err := c.Call(ctx, protocol.MethodBrowsersList, nil, &bl); err != nil {
		ch.Status, ch.Detail, ch.Fix = checkFail, "browsers.list: "+err.Error(), "restart the service"
		return ch
	}
	var linked []string
	for _, b := range bl.Browsers {
		if slices.Contains(d.cfg.AllowedExtensionIDs, b.ExtensionID) {
			linked = append(linked, fmt.Sprintf("%s (extension %s, %s)", b.ID, b.Version, cli.Clip(b.UserAgent, 60)))
		}
	}
	if len(linked) > 0 {
		ch.Status, ch.Detail = checkOK, "connected: "+strings.Join(linked, "; ")
		return ch
	}
	ch.Status = checkFail
	if where := d.profilesWithExtension(); len(where) > 0 {
		ch.Detail = "installed in " + strings.Join(where, ", ") + " but not connected to the service"
		ch.Fix = "open the extension's popup: it says which link is down (the host manifest, the relay, the service); reloading the extension retries"
		return ch
	}
	ch.Detail = "no browser is connected, and no profile of this user has the extension " + extension.ID
	ch.Fix = loadSteps
	return ch
}

// profilesWithExtension names the browser profiles whose preferences
// mention the extension.
func (d *doctor) profilesWithExtension() []string {
	var roots []string
	roots = append(roots, d.userDataDirs...)
	if locs, err := install.Locations(d.goos, d.home); err == nil {
		for _, l := range install.Present(locs, d.exists) {
			roots = append(roots, l.ProfileDir)
		}
	}
	var found []string
	for _, root := range roots {
		for _, pattern := range []string{"*/Preferences", "*/Secure Preferences"} {
			files, _ := filepath.Glob(filepath.Join(root, pattern))
			for _, f := range files {
				if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), extension.ID) {
					found = append(found, filepath.Dir(f))
				}
			}
		}
	}
	slices.Sort(found)
	return slices.Compact(found)
}

// checkUnit checks the per-user service unit. It is optional (egohost
// serve and egohost launch run the service too), so only a unit that
// runs another binary is broken.
func (d *doctor) checkUnit() check {
	c := check{Name: "service unit"}
	svc, err := install.NewService(install.ServiceConfig{Executable: d.self})
	if err != nil {
		c.Status, c.Detail = checkFail, err.Error()
		return c
	}
	st, err := svc.State(d.home)
	switch {
	case err != nil:
		c.Status, c.Detail, c.Fix = checkFail, err.Error(), "egohost install --service"
	case !st.Installed:
		c.Status, c.Detail = checkWarn, "not installed (optional: the service then runs only when you start it)"
		c.Fix = "egohost install --service, to run it at login"
		if mgr := svc.UserManager(); mgr != nil {
			c.Detail = "not installed; " + mgr.Error()
			c.Fix = "start the service with egohost serve or egohost launch, or from your session's autostart"
		}
	case !st.UpToDate:
		c.Status, c.Detail, c.Fix = checkFail, st.UnitPath+" runs another egohost binary", "egohost install --service (it rewrites the unit)"
	case !st.Enabled:
		c.Status, c.Detail, c.Fix = checkWarn, st.UnitPath+" is installed but does not start at login", "egohost install --service"
	case !st.Running:
		c.Status, c.Detail, c.Fix = checkWarn, st.UnitPath+" is installed and enabled but not running", "systemctl --user start egohost (or egohost install --service)"
	default:
		c.Status, c.Detail = checkOK, st.UnitPath+": installed, starts at login, running"
	}
	return c
}
