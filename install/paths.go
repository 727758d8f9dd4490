package install

import (
	"github.com/egohost/egohost/chromeext"

	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Browser names a Chromium-based browser whose manifest locations egohost
// knows.
type Browser string

// The browsers egohost installs a host manifest for.
const (
	Chrome   Browser = "chrome"
	Chromium Browser = "chromium"
	Edge     Browser = "edge"
	Brave    Browser = "brave"
)

// Browsers returns every known browser, in a stable order.
func Browsers() []Browser {
	return []Browser{Chrome, Chromium, Edge, Brave}
}

// ParseBrowser returns the Browser named s (case-insensitive).
func ParseBrowser(s string) (Browser, error) {
	b := Browser(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range Browsers() {
		if b == known {
			return b, nil
		}
	}
	return "", fmt.Errorf("parse browser: unknown browser %q (want chrome, chromium, edge or brave)", s)
}

// userDataDir returns the folder, relative to the per-user configuration
// root, that holds browser b's NativeMessagingHosts on linux and on darwin,
// as each browser documents it.
func userDataDir(b Browser) (linux, darwin string, ok bool) {
	switch b {
	case Chrome:
		return "google-chrome", "Google/Chrome", true
	case Chromium:
		return "chromium", "Chromium", true
	case Edge:
		return "microsoft-edge", "Microsoft Edge", true
	case Brave:
		return "BraveSoftware/Brave-Browser", "BraveSoftware/Brave-Browser", true
	}
	return "", "", false
}

// UserManifestDir returns the folder where browser b looks for per-user
// host manifests (<name>.json) on goos, for the user whose home is home:
//
//   - linux (and other unixes): <home>/.config/<browser>/NativeMessagingHosts,
//     e.g. ~/.config/google-chrome/NativeMessagingHosts. (The browser
//     follows $XDG_CONFIG_HOME when it is set; this function assumes the
//     default.)
//   - darwin: <home>/Library/Application Support/<browser>/NativeMessagingHosts.
//   - windows: browsers find manifests through the registry (see
//     RegistryKey), not a fixed folder; this returns egohost's own
//     <home>\AppData\Local\egohost\NativeMessagingHosts, the same for
//     every browser, where the file should be written before the key
//     points at it.
//
// A browser started with --user-data-dir reads ProfileManifestDir instead.
func UserManifestDir(b Browser, goos, home string) (string, error) {
	linux, darwin, ok := userDataDir(b)
	if !ok {
		return "", fmt.Errorf("manifest dir: unknown browser %q", b)
	}
	if home == "" {
		return "", fmt.Errorf("manifest dir: %s on %s: home directory unknown", b, goos)
	}
	switch goos {
	case "windows":
		return winJoin(home, `AppData\Local\egohost\NativeMessagingHosts`), nil
	case "darwin":
		return path.Join(home, "Library/Application Support", darwin, "NativeMessagingHosts"), nil
	default:
		return path.Join(home, ".config", linux, "NativeMessagingHosts"), nil
	}
}

// registryRoot returns the HKCU key under which browser b looks up native
// messaging hosts on Windows. Brave reads Google Chrome's key.
func registryRoot(b Browser) (string, bool) {
	switch b {
	case Chrome, Brave:
		return `HKCU\Software\Google\Chrome\NativeMessagingHosts`, true
	case Chromium:
		return `HKCU\Software\Chromium\NativeMessagingHosts`, true
	case Edge:
		return `HKCU\Software\Microsoft\Edge\NativeMessagingHosts`, true
	}
	return "", false
}

// RegistryKey returns the per-user Windows registry key whose default
// value must be the path of host name's manifest for browser b, e.g.
// HKCU\Software\Google\Chrome\NativeMessagingHosts\com.egohost.host. It is
// data only: this package writes no registry.
func RegistryKey(b Browser, name string) (string, error) {
	root, ok := registryRoot(b)
	if !ok {
		return "", fmt.Errorf("registry key: unknown browser %q", b)
	}
	if !chromeext.ValidHostName(name) {
		return "", fmt.Errorf("registry key: bad host name %q", name)
	}
	return root + `\` + name, nil
}

// ProfileManifestDir returns the folder a Chromium-based browser started
// with --user-data-dir=userDataDir reads host manifests from. (With that
// flag, Chromium on Linux does not read the per-user folder.)
func ProfileManifestDir(userDataDir string) string {
	return filepath.Join(userDataDir, "NativeMessagingHosts")
}

// winJoin joins Windows path elements with backslashes.
func winJoin(elem ...string) string {
	var b strings.Builder
	for _, e := range elem {
		e = strings.ReplaceAll(e, "/", `\`)
		if b.Len() > 0 {
			e = strings.TrimLeft(e, `\`)
			if !strings.HasSuffix(b.String(), `\`) {
				b.WriteByte('\\')
			}
		}
		b.WriteString(e)
	}
	return b.String()
}
