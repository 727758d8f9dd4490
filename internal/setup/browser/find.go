// Package browser finds a Chromium-family browser on this machine, launches
// it with a fresh or given profile, and ends every process it started.
package browser

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// ErrNotFound is returned by Find when no browser binary is found.
var ErrNotFound = errors.New("no Chromium, Chrome, Edge or Brave binary found")

// Candidates lists, in order of preference, where browsers live on goos.
// home is the user's home folder (used on darwin and windows).
// Debian's /usr/bin/chromium is a wrapper script that adds flags of its own
// (an empty --load-extension among them), so the real binary comes first.
func Candidates(goos, home string) []string {
	switch goos {
	case "darwin":
		apps := []string{
			"Google Chrome.app/Contents/MacOS/Google Chrome",
			"Chromium.app/Contents/MacOS/Chromium",
			"Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
			"Brave Browser.app/Contents/MacOS/Brave Browser",
		}
		var out []string
		for _, a := range apps {
			out = append(out, filepath.Join("/Applications", a))
		}
		for _, a := range apps {
			out = append(out, filepath.Join(home, "Applications", a))
		}
		return out
	case "windows":
		pf := []string{`C:\Program Files`, `C:\Program Files (x86)`, filepath.Join(home, `AppData\Local`)}
		rel := []string{
			`Google\Chrome\Application\chrome.exe`,
			`Chromium\Application\chrome.exe`,
			`Microsoft\Edge\Application\msedge.exe`,
			`BraveSoftware\Brave-Browser\Application\brave.exe`,
		}
		var out []string
		for _, r := range rel {
			for _, p := range pf {
				out = append(out, p+`\`+r)
			}
		}
		return out
	default:
		return []string{
			"/usr/lib/chromium/chromium",
			"/usr/lib/chromium-browser/chromium-browser",
			"/opt/google/chrome/chrome",
			"/usr/bin/google-chrome-stable",
			"/usr/bin/google-chrome",
			"/usr/bin/chromium",
			"/usr/bin/chromium-browser",
			"/opt/microsoft/msedge/msedge",
			"/opt/brave.com/brave/brave",
			"/snap/bin/chromium",
		}
	}
}

// Find returns explicit when it is set (it must exist), else the first
// candidate for goos that exists.
func Find(explicit, goos, home string, exists func(string) bool) (string, error) {
	if explicit != "" {
		if !exists(explicit) {
			return "", fmt.Errorf("find browser: %q does not exist", explicit)
		}
		return explicit, nil
	}
	for _, c := range Candidates(goos, home) {
		if exists(c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("find browser: %w (install Debian's chromium, or set browser: in config.yaml)", ErrNotFound)
}

// FindHere is Find on this machine: explicit when it is set, else the
// first candidate for this OS, whichever is a file that exists.
func FindHere(explicit string) (string, error) {
	home, _ := os.UserHomeDir()
	return Find(explicit, runtime.GOOS, home, func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && !fi.IsDir()
	})
}
