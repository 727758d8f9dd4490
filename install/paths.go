package install

import (
	"github.com/egohost/egohost/internal/link/chromeext"

	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Browser names a Chromium-based browser (one release channel) whose
// manifest locations egohost knows.
type Browser string

// The browsers egohost installs a host manifest for.
const (
	Chrome       Browser = "chrome"
	ChromeBeta   Browser = "chrome-beta"
	ChromeDev    Browser = "chrome-dev"
	ChromeCanary Browser = "chrome-canary"
	Chromium     Browser = "chromium"
	Edge         Browser = "edge"
	EdgeBeta     Browser = "edge-beta"
	EdgeDev      Browser = "edge-dev"
	EdgeCanary   Browser = "edge-canary"
	Brave        Browser = "brave"
	Vivaldi      Browser = "vivaldi"
)

// Browsers returns every known browser, in a stable order.
func Browsers() []Browser {
	return []Browser{Chrome, ChromeBeta, ChromeDev, ChromeCanary, Chromium, Edge, EdgeBeta, EdgeDev, EdgeCanary, Brave, Vivaldi}
}

// ParseBrowser returns the Browser named s (case-insensitive).
func ParseBrowser(s string) (Browser, error) {
	b := Browser(strings.ToLower(strings.TrimSpace(s)))
	names := make([]string, 0, len(Browsers()))
	for _, known := range Browsers() {
		if b == known {
			return b, nil
		}
		names = append(names, string(known))
	}
	return "", fmt.Errorf("parse browser: unknown browser %q (want one of %s)", s, strings.Join(names, ", "))
}

// Location is one place where a browser looks for per-user native
// messaging host manifests.
type Location struct {
	Browser Browser
	// Variant is how the browser was packaged when that changes the
	// place: "" (the vendor's package), "snap" or "flatpak".
	Variant string
	// Dir is the folder that holds <name>.json. On Windows it is egohost's
	// own folder (the registry key points the browser at the file).
	Dir string
	// ProfileDir is the browser's user data folder: when it exists, the
	// browser has run for this user.
	ProfileDir string
	// RegistryKey is the HKCU key (Windows only) whose default value is
	// the manifest's path, without the host name: RegistryKey + `\` + name.
	RegistryKey string
}

// Sandboxed reports whether the browser runs in a sandbox (snap,
// Flatpak) that may keep it from starting the host or the host from
// reaching the service.
func (l Location) Sandboxed() bool { return l.Variant != "" }

// String names the location for people: "chromium (snap)".
func (l Location) String() string {
	if l.Variant == "" {
		return string(l.Browser)
	}
	return string(l.Browser) + " (" + l.Variant + ")"
}

// profileDirs are a browser's user data folders relative to the per-user
// root of each OS: linux (~, several packagings), darwin (~/Library/
// Application Support) and windows (%LOCALAPPDATA%), as each vendor
// ships them. A browser missing on an OS has no entry there.
type profileDirs struct {
	linux   []variantDir
	darwin  string
	windows string
	// registry is the HKCU key the browser reads hosts from on Windows.
	registry string
}

type variantDir struct{ variant, dir string }

const (
	regChrome   = `HKCU\Software\Google\Chrome\NativeMessagingHosts`
	regChromium = `HKCU\Software\Chromium\NativeMessagingHosts`
	regEdge     = `HKCU\Software\Microsoft\Edge\NativeMessagingHosts`
)

func dirsOf(b Browser) (profileDirs, bool) {
	switch b {
	case Chrome:
		return profileDirs{[]variantDir{{"", ".config/google-chrome"}}, "Google/Chrome", `Google\Chrome\User Data`, regChrome}, true
	case ChromeBeta:
		return profileDirs{[]variantDir{{"", ".config/google-chrome-beta"}}, "Google/Chrome Beta", `Google\Chrome Beta\User Data`, regChrome}, true
	case ChromeDev:
		return profileDirs{[]variantDir{{"", ".config/google-chrome-unstable"}}, "Google/Chrome Dev", `Google\Chrome Dev\User Data`, regChrome}, true
	case ChromeCanary:
		return profileDirs{[]variantDir{{"", ".config/google-chrome-canary"}}, "Google/Chrome Canary", `Google\Chrome SxS\User Data`, regChrome}, true
	case Chromium:
		return profileDirs{[]variantDir{
			{"", ".config/chromium"},
			{"snap", "snap/chromium/common/chromium"},
			{"flatpak", ".var/app/org.chromium.Chromium/config/chromium"},
		}, "Chromium", `Chromium\User Data`, regChromium}, true
	case Edge:
		return profileDirs{[]variantDir{{"", ".config/microsoft-edge"}}, "Microsoft Edge", `Microsoft\Edge\User Data`, regEdge}, true
	case EdgeBeta:
		return profileDirs{[]variantDir{{"", ".config/microsoft-edge-beta"}}, "Microsoft Edge Beta", `Microsoft\Edge Beta\User Data`, regEdge}, true
	case EdgeDev:
		return profileDirs{[]variantDir{{"", ".config/microsoft-edge-dev"}}, "Microsoft Edge Dev", `Microsoft\Edge Dev\User Data`, regEdge}, true
	case EdgeCanary: // no Linux build
		return profileDirs{nil, "Microsoft Edge Canary", `Microsoft\Edge SxS\User Data`, regEdge}, true
	case Brave: // Brave and Vivaldi read Google Chrome's key on Windows
		return profileDirs{[]variantDir{
			{"", ".config/BraveSoftware/Brave-Browser"},
			{"flatpak", ".var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser"},
		}, "BraveSoftware/Brave-Browser", `BraveSoftware\Brave-Browser\User Data`, regChrome}, true
	case Vivaldi:
		return profileDirs{[]variantDir{{"", ".config/vivaldi"}}, "Vivaldi", `Vivaldi\User Data`, regChrome}, true
	}
	return profileDirs{}, false
}

// BrowserLocations returns where browser b looks for per-user host
// manifests on goos, for the user whose home is home (several places on
// Linux: the vendor's package, snap, Flatpak):
//
//   - linux (and other unixes): <profile>/NativeMessagingHosts, e.g.
//     ~/.config/google-chrome/NativeMessagingHosts or
//     ~/snap/chromium/common/chromium/NativeMessagingHosts. (The browser
//     follows $XDG_CONFIG_HOME when it is set; this assumes the default.)
//   - darwin: ~/Library/Application Support/<browser>/NativeMessagingHosts.
//   - windows: the registry key names the file; Dir is egohost's own
//     <home>\AppData\Local\egohost\NativeMessagingHosts, the same for every
//     browser.
//
// A browser started with --user-data-dir reads ProfileManifestDir instead.
func BrowserLocations(b Browser, goos, home string) ([]Location, error) {
	d, ok := dirsOf(b)
	if !ok {
		return nil, fmt.Errorf("manifest dir: unknown browser %q", b)
	}
	if home == "" {
		return nil, fmt.Errorf("manifest dir: %s on %s: home directory unknown", b, goos)
	}
	switch goos {
	case "windows":
		return []Location{{
			Browser:     b,
			Dir:         winJoin(home, `AppData\Local\egohost\NativeMessagingHosts`),
			ProfileDir:  winJoin(home, `AppData\Local`, d.windows),
			RegistryKey: d.registry,
		}}, nil
	case "darwin":
		profile := path.Join(home, "Library/Application Support", d.darwin)
		return []Location{{Browser: b, Dir: path.Join(profile, "NativeMessagingHosts"), ProfileDir: profile}}, nil
	}
	var locs []Location
	for _, v := range d.linux {
		profile := path.Join(home, v.dir)
		locs = append(locs, Location{Browser: b, Variant: v.variant, Dir: path.Join(profile, "NativeMessagingHosts"), ProfileDir: profile})
	}
	return locs, nil
}

// Locations returns every known browser's locations on goos (see
// BrowserLocations), in the order of Browsers.
func Locations(goos, home string) ([]Location, error) {
	var all []Location
	for _, b := range Browsers() {
		locs, err := BrowserLocations(b, goos, home)
		if err != nil {
			return nil, err
		}
		all = append(all, locs...)
	}
	return all, nil
}

// LocalState is the file a Chromium-based browser writes in its user
// data folder when it first runs there.
const LocalState = "Local State"

// Present returns the locations whose browser has run for this user: its
// ProfileDir holds LocalState, as exists says. (A browser run with
// --user-data-dir elsewhere may still create its default folder, for
// crash reports, without that file.)
func Present(locs []Location, exists func(path string) bool) []Location {
	var out []Location
	for _, l := range locs {
		if exists(l.profileFile(LocalState)) {
			out = append(out, l)
		}
	}
	return out
}

// profileFile returns ProfileDir/name, with the separator ProfileDir
// uses (paths here are built for goos, not for the running OS).
func (l Location) profileFile(name string) string {
	if strings.Contains(l.ProfileDir, `\`) && !strings.Contains(l.ProfileDir, "/") {
		return winJoin(l.ProfileDir, name)
	}
	return path.Join(l.ProfileDir, name)
}

// UserManifestDir returns the main folder where browser b looks for
// per-user host manifests on goos (the vendor's package on Linux; see
// BrowserLocations for every place). It fails for a browser that has no
// build for goos.
func UserManifestDir(b Browser, goos, home string) (string, error) {
	locs, err := BrowserLocations(b, goos, home)
	if err != nil {
		return "", err
	}
	if len(locs) == 0 {
		return "", fmt.Errorf("manifest dir: %s has no build for %s", b, goos)
	}
	return locs[0].Dir, nil
}

// RegistryKey returns the per-user Windows registry key whose default
// value must be the path of host name's manifest for browser b, e.g.
// HKCU\Software\Google\Chrome\NativeMessagingHosts\com.egohost.host.
func RegistryKey(b Browser, name string) (string, error) {
	d, ok := dirsOf(b)
	if !ok {
		return "", fmt.Errorf("registry key: unknown browser %q", b)
	}
	if !chromeext.ValidHostName(name) {
		return "", fmt.Errorf("registry key: bad host name %q", name)
	}
	return d.registry + `\` + name, nil
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

// ExtensionDir returns the stable folder `egohost install` copies the
// extension to, for loading it unpacked into an everyday browser:
// ~/.local/share/egohost/extension on Linux (or $XDG_DATA_HOME/egohost/…
// when dataHome is set), ~/Library/Application Support/egohost/extension
// on macOS, %LOCALAPPDATA%\egohost\extension on Windows.
func ExtensionDir(goos, home, dataHome string) string {
	switch goos {
	case "windows":
		return winJoin(home, `AppData\Local\egohost\extension`)
	case "darwin":
		return path.Join(home, "Library/Application Support/egohost/extension")
	}
	if dataHome != "" {
		return path.Join(dataHome, "egohost/extension")
	}
	return path.Join(home, ".local/share/egohost/extension")
}
