package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/egohost/egohost/extension"
	"github.com/egohost/egohost/install"
	"github.com/egohost/egohost/internal/front/cli"
)

// tempDirs are the folders whose binaries do not last: the temporary
// folder and the Go build cache (where `go run` keeps its builds).
func tempDirs() []string {
	dirs := []string{os.TempDir()}
	if c := os.Getenv("GOCACHE"); c != "" {
		dirs = append(dirs, c)
	} else if c, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(c, "go-build"))
	}
	return dirs
}

// installOptions are install's and uninstall's choices.
type installOptions struct {
	userDataDir    string // one profile (--user-data-dir) instead of the per-user folders
	browser        string // one browser (--browser) instead of every one found
	service        bool   // the per-user service too
	allowTemporary bool   // point the manifest at a temporary build anyway
}

// target is one place a manifest goes: a browser location or a profile.
type target struct {
	name string // for people: "chrome", "chromium (snap)", "profile DIR"
	loc  install.Location
}

// installTargets picks where install writes: the profile --user-data-dir
// names; else the locations of --browser (those it has run from, else
// its main one); else every location whose browser has run for this
// user, or Chrome's and Chromium's main ones when none has (guessed).
func installTargets(o installOptions, goos, home string, exists func(string) bool) (targets []target, guessed bool, err error) {
	if o.userDataDir != "" {
		abs, err := filepath.Abs(o.userDataDir)
		if err != nil {
			return nil, false, err
		}
		return []target{{name: "profile " + abs, loc: install.Location{Dir: install.ProfileManifestDir(abs), ProfileDir: abs}}}, false, nil
	}
	var locs []install.Location
	if o.browser != "" {
		b, err := install.ParseBrowser(o.browser)
		if err != nil {
			return nil, false, cli.UsageError(err.Error())
		}
		if locs, err = install.BrowserLocations(b, goos, home); err != nil {
			return nil, false, err
		}
		if len(locs) == 0 {
			return nil, false, fmt.Errorf("%s has no build for %s", b, goos)
		}
		if present := install.Present(locs, exists); len(present) > 0 {
			locs = present
		} else {
			locs = locs[:1]
		}
	} else {
		all, err := install.Locations(goos, home)
		if err != nil {
			return nil, false, err
		}
		locs = install.Present(all, exists)
		if len(locs) == 0 {
			guessed = true
			for _, b := range []install.Browser{install.Chrome, install.Chromium} {
				bl, err := install.BrowserLocations(b, goos, home)
				if err != nil {
					return nil, false, err
				}
				locs = append(locs, bl[0])
			}
		}
	}
	for _, l := range locs {
		targets = append(targets, target{name: l.String(), loc: l})
	}
	return targets, guessed, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func (e *env) runInstall(o installOptions) error {
	self, err := cli.Self()
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	if why := install.TemporaryBinary(self, tempDirs()); why != "" {
		if !o.allowTemporary {
			return fmt.Errorf("install: this egohost is %s, %s: it will be gone, and the browser could no longer start the host.\n"+
				"Install a stable binary and run its install instead:\n"+
				"  go install ./cmd/... (in a clone; or github.com/egohost/egohost/cmd/...@latest: egohost and egohost-host)\n"+
				"  \"$(go env GOPATH)/bin/egohost\" install\n"+
				"or: go build -o ~/.local/bin/ ./cmd/egohost ./cmd/egohost-host && ~/.local/bin/egohost install\n"+
				"(--allow-temporary installs it anyway)", self, why)
		}
		fmt.Fprintf(e.stderr, "warning: %s is temporary (%s); the manifest will break when it goes\n", self, why)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	targets, guessed, err := installTargets(o, runtime.GOOS, home, exists)
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	m := install.NewHostManifest(e.cfg.HostName, self, e.cfg.AllowedExtensionIDs)
	fmt.Fprintf(e.stdout, "native messaging host %s → %s\n", m.Name, self)
	if guessed {
		fmt.Fprintln(e.stdout, "  (no browser profile found for this user: writing Chrome's and Chromium's; --browser NAME picks another)")
	}
	keysDone := map[string]bool{}
	for _, t := range targets {
		if err := e.installOne(t, m, keysDone); err != nil {
			return fmt.Errorf("install: %s: %w", t.name, err)
		}
	}
	if o.userDataDir == "" {
		dir := install.ExtensionDir(runtime.GOOS, home, os.Getenv("XDG_DATA_HOME"))
		if _, err := extension.WriteTo(dir); err != nil {
			return fmt.Errorf("install: %w", err)
		}
		printNextStep(e.stdout, dir)
	}
	if o.service {
		return e.installService(self, home)
	}
	return nil
}

// installOne writes the manifest of one target (and its registry key on
// Windows) unless it is already there, and says which.
func (e *env) installOne(t target, m install.HostManifest, keysDone map[string]bool) error {
	r := install.InspectManifest(t.loc.Dir, m)
	switch r.State {
	case install.ManifestUpToDate:
		fmt.Fprintf(e.stdout, "✓ %s: already installed, up to date (%s)\n", t.name, r.Path)
	default:
		if _, err := install.WriteManifest(t.loc.Dir, m); err != nil {
			return err
		}
		switch r.State {
		case install.ManifestMissing:
			fmt.Fprintf(e.stdout, "✓ %s: installed %s\n", t.name, r.Path)
		default:
			fmt.Fprintf(e.stdout, "✓ %s: updated %s (it %s)\n", t.name, r.Path, r.Detail)
		}
	}
	if t.loc.Sandboxed() {
		fmt.Fprintf(e.stdout, "  note: %s runs in a sandbox that may keep it from starting %s or reaching the service; `egohost doctor` tells\n", t.name, m.Path)
	}
	if key := t.loc.RegistryKey; key != "" && !keysDone[key] {
		keysDone[key] = true
		full := key + `\` + m.Name
		got, ok, err := install.RegistryValue(full)
		if err != nil {
			return err
		}
		if ok && got == r.Path {
			fmt.Fprintf(e.stdout, "✓ registry %s: already set, up to date\n", full)
			return nil
		}
		if err := install.SetRegistryValue(full, r.Path); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "✓ registry %s → %s\n", full, r.Path)
	}
	return nil
}

// printNextStep tells the user how to load the extension and check the
// chain.
func printNextStep(w io.Writer, extDir string) {
	fmt.Fprintf(w, `
Next: load the extension into your browser (once per profile):
  1. open chrome://extensions (edge://extensions, brave://extensions, vivaldi://extensions)
  2. turn on "Developer mode" (top right)
  3. click "Load unpacked" and choose %s
     (or the extension/ folder of an egohost clone); its ID must be %s
Then check every link of the chain: egohost doctor
`, extDir, extension.ID)
}

// installService installs, enables and starts the per-user service, or
// says it already is; without a per-user service manager it says what
// to do instead.
func (e *env) installService(self, home string) error {
	svc, err := install.NewService(install.ServiceConfig{Executable: self})
	if err != nil {
		return fmt.Errorf("install service: %w", err)
	}
	if err := svc.UserManager(); err != nil {
		return noServiceManager("install service", err)
	}
	st, err := svc.State(home)
	if err != nil {
		return fmt.Errorf("install service: %w", err)
	}
	what := "installed"
	switch {
	case st.Installed && st.UpToDate:
		what = "already installed, up to date"
	case st.Installed:
		if err := svc.Stop(); err != nil && !errors.Is(err, install.ErrNotInstalled) {
			fmt.Fprintf(e.stderr, "note: %v\n", err)
		}
		if err := svc.Uninstall(); err != nil {
			return fmt.Errorf("update service: %w", err)
		}
		what = "updated"
		fallthrough
	default:
		if err := svc.Install(); err != nil {
			return fmt.Errorf("install service: %w", err)
		}
	}
	if err := svc.Start(); err != nil {
		return fmt.Errorf("start service: %w", err)
	}
	fmt.Fprintf(e.stdout, "✓ service %s and running (%s, %s)\n", what, svc.Platform(), st.UnitPath)
	return nil
}

// noServiceManager turns "no per-user service manager" into advice.
func noServiceManager(op string, err error) error {
	return fmt.Errorf("%s: %w.\n"+
		"Run the service another way:\n"+
		"  egohost serve            in a terminal (or your session's autostart, e.g. ~/.config/autostart/egohost.desktop with Exec=egohost serve)\n"+
		"  egohost launch           starts a browser with the extension, and the service when none runs", op, err)
}

func (e *env) runUninstall(o installOptions) error {
	home, err := os.UserHomeDir()
	if err != nil {
		return fmt.Errorf("uninstall: %w", err)
	}
	var targets []target
	if o.userDataDir != "" || o.browser != "" {
		// The places install would pick, wherever the browser ran or not.
		if targets, _, err = installTargets(o, runtime.GOOS, home, func(string) bool { return true }); err != nil {
			return fmt.Errorf("uninstall: %w", err)
		}
	} else {
		all, err := install.Locations(runtime.GOOS, home)
		if err != nil {
			return fmt.Errorf("uninstall: %w", err)
		}
		for _, l := range all {
			targets = append(targets, target{name: l.String(), loc: l})
		}
	}
	removed := 0
	keysDone := map[string]bool{}
	for _, t := range targets {
		path := filepath.Join(t.loc.Dir, e.cfg.HostName+".json")
		if exists(path) {
			if err := install.RemoveManifest(t.loc.Dir, e.cfg.HostName); err != nil {
				return fmt.Errorf("uninstall: %w", err)
			}
			fmt.Fprintf(e.stdout, "✓ %s: removed %s\n", t.name, path)
			removed++
		}
		if key := t.loc.RegistryKey; key != "" && !keysDone[key] {
			keysDone[key] = true
			ok, err := install.DeleteRegistryKey(key + `\` + e.cfg.HostName)
			if err != nil {
				return fmt.Errorf("uninstall: %w", err)
			}
			if ok {
				fmt.Fprintf(e.stdout, "✓ removed registry key %s\n", key+`\`+e.cfg.HostName)
				removed++
			}
		}
	}
	if o.userDataDir == "" && o.browser == "" {
		dir := install.ExtensionDir(runtime.GOOS, home, os.Getenv("XDG_DATA_HOME"))
		if exists(dir) {
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("uninstall: %w", err)
			}
			fmt.Fprintf(e.stdout, "✓ removed the extension copy %s (remove the extension from chrome://extensions too)\n", dir)
			removed++
		}
	}
	if removed == 0 {
		fmt.Fprintf(e.stdout, "no %s host manifest was installed: nothing to remove\n", e.cfg.HostName)
	}
	if o.service {
		return e.uninstallService(home)
	}
	return nil
}

// uninstallService stops and removes the per-user service, or says it
// was not installed.
func (e *env) uninstallService(home string) error {
	self, err := cli.Self()
	if err != nil {
		return fmt.Errorf("uninstall service: %w", err)
	}
	svc, err := install.NewService(install.ServiceConfig{Executable: self})
	if err != nil {
		return fmt.Errorf("uninstall service: %w", err)
	}
	st, err := svc.State(home)
	if err != nil {
		return fmt.Errorf("uninstall service: %w", err)
	}
	if !st.Installed {
		fmt.Fprintln(e.stdout, "service: not installed, nothing to remove")
		return nil
	}
	if err := svc.UserManager(); err != nil {
		return noServiceManager("uninstall service", fmt.Errorf("%w (its unit %s is there: delete it by hand)", err, st.UnitPath))
	}
	if err := svc.Stop(); err != nil && !errors.Is(err, install.ErrNotInstalled) {
		fmt.Fprintf(e.stderr, "note: %v\n", err)
	}
	if err := svc.Uninstall(); err != nil {
		return fmt.Errorf("uninstall service: %w", err)
	}
	fmt.Fprintf(e.stdout, "✓ service stopped and removed (%s)\n", st.UnitPath)
	return nil
}
