// Package launcher starts a browser wired to egohost: the extension loaded,
// the native messaging host registered in the profile, and the relay's
// environment in place. `egohost launch`, the demo and the end-to-end tests
// share it.
package launcher

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/egohost/egohost/extension"
	"github.com/egohost/egohost/install"
	"github.com/egohost/egohost/internal/setup/browser"
)

// Options say what to launch.
type Options struct {
	Browser      string   // browser binary (required)
	Host         string   // absolute path of the egohost binary Chrome will start as the native host
	HostName     string   // native messaging host name (config host_name)
	ExtensionIDs []string // allowed_origins of the host manifest
	ExtensionDir string   // where to write the embedded extension; "" = use Extension as is
	Extension    string   // an unpacked extension folder to load (when ExtensionDir is "")
	UserDataDir  string   // "" = a fresh temporary profile
	Headless     bool
	URL          string
	Env          []string // browser (and so relay) environment; nil = this process's
	Args         []string // extra browser flags
	Stderr       io.Writer
	// DevToolsPortForTests is browser.Options.DevToolsPortForTests: a
	// direct DevTools port for tests, never for users.
	DevToolsPortForTests bool
}

// Launch writes the extension and the host manifest and starts the browser.
func Launch(ctx context.Context, o Options) (*browser.Process, error) {
	if !filepath.IsAbs(o.Host) {
		return nil, fmt.Errorf("launch: host binary %q is not an absolute path", o.Host)
	}
	if _, err := os.Stat(o.Host); err != nil {
		return nil, fmt.Errorf("launch: host binary: %w", err)
	}
	ext := o.Extension
	if o.ExtensionDir != "" {
		var err error
		if ext, err = extension.WriteTo(o.ExtensionDir); err != nil {
			return nil, fmt.Errorf("launch: %w", err)
		}
	}
	manifest := install.NewHostManifest(o.HostName, o.Host, o.ExtensionIDs)
	return browser.Launch(ctx, browser.Options{
		Binary:               o.Browser,
		UserDataDir:          o.UserDataDir,
		Headless:             o.Headless,
		Extension:            ext,
		URL:                  o.URL,
		Args:                 o.Args,
		Env:                  o.Env,
		Stderr:               o.Stderr,
		DevToolsPortForTests: o.DevToolsPortForTests,
		Prepare: func(udd string) error {
			_, err := install.WriteManifest(install.ProfileManifestDir(udd), manifest)
			return err
		},
	})
}
