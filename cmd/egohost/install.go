package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/egohost/egohost/install"
)

// selfPath returns this binary's absolute, symlink-free path.
func selfPath() (string, error) {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return "", fmt.Errorf("find own binary: %w", err)
	}
	return self, nil
}

// install registers the native messaging host: into one profile
// (--user-data-dir), or into every known browser's per-user location
// (or the one --browser names); --service also installs the user service.
func (e *env) install(args []string) error {
	udd, args := takeFlag(args, "--user-data-dir")
	only, args := takeFlag(args, "--browser")
	withService, args := takeBool(args, "--service")
	if len(args) > 0 {
		return usageError(fmt.Sprintf("unexpected %q (usage: egohost install [--user-data-dir DIR] [--browser NAME] [--service])", args))
	}
	self, err := selfPath()
	if err != nil {
		return fmt.Errorf("install: %w", err)
	}
	m := install.NewHostManifest(e.cfg.HostName, self, e.cfg.AllowedExtensionIDs)
	var dirs []string
	switch {
	case udd != "":
		abs, err := filepath.Abs(udd)
		if err != nil {
			return fmt.Errorf("install: %w", err)
		}
		dirs = append(dirs, install.ProfileManifestDir(abs))
	default:
		browsers := install.Browsers()
		if only != "" {
			b, err := install.ParseBrowser(only)
			if err != nil {
				return usageError(err.Error())
			}
			browsers = []install.Browser{b}
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("install: %w", err)
		}
		for _, b := range browsers {
			if runtime.GOOS == "windows" {
				key, _ := install.RegistryKey(b, e.cfg.HostName)
				fmt.Fprintf(e.stderr, "note: on Windows, also set the registry key %s to the manifest path (see manual-tests/README.md, section Windows)\n", key)
			}
			dir, err := install.UserManifestDir(b, runtime.GOOS, home)
			if err != nil {
				return fmt.Errorf("install: %w", err)
			}
			dirs = append(dirs, dir)
		}
	}
	for _, dir := range dirs {
		path, err := install.WriteManifest(dir, m)
		if err != nil {
			return fmt.Errorf("install: %w", err)
		}
		fmt.Fprintf(e.stdout, "native host %s → %s\n  manifest: %s\n  allowed: %s\n", m.Name, self, path, strings.Join(m.AllowedOrigins, " "))
	}
	if withService {
		svc, err := install.NewService(install.ServiceConfig{Executable: self})
		if err != nil {
			return fmt.Errorf("install service: %w", err)
		}
		if err := svc.Install(); err != nil {
			return fmt.Errorf("install service: %w", err)
		}
		if err := svc.Start(); err != nil {
			return fmt.Errorf("start service: %w", err)
		}
		fmt.Fprintf(e.stdout, "service installed and started (%s)\n", svc.Platform())
	}
	return nil
}

func (e *env) uninstall(args []string) error {
	udd, args := takeFlag(args, "--user-data-dir")
	withService, args := takeBool(args, "--service")
	if len(args) > 0 {
		return usageError(fmt.Sprintf("unexpected %q (usage: egohost uninstall [--user-data-dir DIR] [--service])", args))
	}
	var dirs []string
	if udd != "" {
		dirs = append(dirs, install.ProfileManifestDir(udd))
	} else {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("uninstall: %w", err)
		}
		for _, b := range install.Browsers() {
			if dir, err := install.UserManifestDir(b, runtime.GOOS, home); err == nil {
				dirs = append(dirs, dir)
			}
		}
	}
	for _, dir := range dirs {
		if err := install.RemoveManifest(dir, e.cfg.HostName); err != nil {
			return fmt.Errorf("uninstall: %w", err)
		}
	}
	fmt.Fprintf(e.stdout, "removed the %s host manifest from %d location(s)\n", e.cfg.HostName, len(dirs))
	if withService {
		self, err := selfPath()
		if err != nil {
			return err
		}
		svc, err := install.NewService(install.ServiceConfig{Executable: self})
		if err != nil {
			return fmt.Errorf("uninstall service: %w", err)
		}
		_ = svc.Stop()
		if err := svc.Uninstall(); err != nil {
			return fmt.Errorf("uninstall service: %w", err)
		}
		fmt.Fprintln(e.stdout, "service removed")
	}
	return nil
}
