package install

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUserManifestDir(t *testing.T) {
	tests := []struct {
		browser Browser
		goos    string
		want    string
	}{
		{Chrome, "linux", "/home/u/.config/google-chrome/NativeMessagingHosts"},
		{Chromium, "linux", "/home/u/.config/chromium/NativeMessagingHosts"},
		{Edge, "linux", "/home/u/.config/microsoft-edge/NativeMessagingHosts"},
		{Brave, "linux", "/home/u/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts"},
		{Chromium, "freebsd", "/home/u/.config/chromium/NativeMessagingHosts"},
		{Chrome, "darwin", "/Users/u/Library/Application Support/Google/Chrome/NativeMessagingHosts"},
		{Chromium, "darwin", "/Users/u/Library/Application Support/Chromium/NativeMessagingHosts"},
		{Edge, "darwin", "/Users/u/Library/Application Support/Microsoft Edge/NativeMessagingHosts"},
		{Brave, "darwin", "/Users/u/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts"},
		{Chrome, "windows", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`},
		{Chromium, "windows", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`},
		{Edge, "windows", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`},
		{Brave, "windows", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`},
	}
	homes := map[string]string{"linux": "/home/u", "freebsd": "/home/u", "darwin": "/Users/u", "windows": `C:\Users\u\`}
	for _, tt := range tests {
		t.Run(string(tt.browser)+"/"+tt.goos, func(t *testing.T) {
			got, err := UserManifestDir(tt.browser, tt.goos, homes[tt.goos])
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestUserManifestDirErrors(t *testing.T) {
	tests := []struct {
		name    string
		browser Browser
		home    string
	}{
		{name: "unknown browser", browser: "firefox", home: "/home/u"},
		{name: "no home", browser: Chrome, home: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := UserManifestDir(tt.browser, "linux", tt.home); err == nil {
				t.Errorf("got %q, nil error, want an error", got)
			}
		})
	}
}

func TestRegistryKey(t *testing.T) {
	tests := []struct {
		browser Browser
		want    string
	}{
		{Chrome, `HKCU\Software\Google\Chrome\NativeMessagingHosts\com.egohost.host`},
		{Chromium, `HKCU\Software\Chromium\NativeMessagingHosts\com.egohost.host`},
		{Edge, `HKCU\Software\Microsoft\Edge\NativeMessagingHosts\com.egohost.host`},
		{Brave, `HKCU\Software\Google\Chrome\NativeMessagingHosts\com.egohost.host`},
	}
	for _, tt := range tests {
		t.Run(string(tt.browser), func(t *testing.T) {
			got, err := RegistryKey(tt.browser, "com.egohost.host")
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	for _, bad := range []struct {
		browser Browser
		name    string
	}{{"opera", "com.egohost.host"}, {Chrome, `com\x`}} {
		if got, err := RegistryKey(bad.browser, bad.name); err == nil {
			t.Errorf("RegistryKey(%q, %q): got %q, nil error, want an error", bad.browser, bad.name, got)
		}
	}
}

func TestProfileManifestDir(t *testing.T) {
	got := ProfileManifestDir(filepath.Join("tmp", "udd"))
	if want := filepath.Join("tmp", "udd", "NativeMessagingHosts"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseBrowser(t *testing.T) {
	tests := []struct {
		in      string
		want    Browser
		wantErr bool
	}{
		{in: "chrome", want: Chrome},
		{in: " Chromium ", want: Chromium},
		{in: "EDGE", want: Edge},
		{in: "brave", want: Brave},
		{in: "Chrome-Canary", want: ChromeCanary},
		{in: "vivaldi", want: Vivaldi},
		{in: "edge-dev", want: EdgeDev},
		{in: "firefox", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseBrowser(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseBrowser(%q): got %q, %v, want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

// Every browser, channel and packaging egohost knows, on every OS: one
// Linux run checks them all.
func TestLocations(t *testing.T) {
	type row struct{ Name, Dir, Profile, Key string }
	tests := []struct {
		goos, home string
		want       []row
	}{
		{"linux", "/home/u", []row{
			{"chrome", "/home/u/.config/google-chrome/NativeMessagingHosts", "/home/u/.config/google-chrome", ""},
			{"chrome-beta", "/home/u/.config/google-chrome-beta/NativeMessagingHosts", "/home/u/.config/google-chrome-beta", ""},
			{"chrome-dev", "/home/u/.config/google-chrome-unstable/NativeMessagingHosts", "/home/u/.config/google-chrome-unstable", ""},
			{"chrome-canary", "/home/u/.config/google-chrome-canary/NativeMessagingHosts", "/home/u/.config/google-chrome-canary", ""},
			{"chromium", "/home/u/.config/chromium/NativeMessagingHosts", "/home/u/.config/chromium", ""},
			{"chromium (snap)", "/home/u/snap/chromium/common/chromium/NativeMessagingHosts", "/home/u/snap/chromium/common/chromium", ""},
			{"chromium (flatpak)", "/home/u/.var/app/org.chromium.Chromium/config/chromium/NativeMessagingHosts", "/home/u/.var/app/org.chromium.Chromium/config/chromium", ""},
			{"edge", "/home/u/.config/microsoft-edge/NativeMessagingHosts", "/home/u/.config/microsoft-edge", ""},
			{"edge-beta", "/home/u/.config/microsoft-edge-beta/NativeMessagingHosts", "/home/u/.config/microsoft-edge-beta", ""},
			{"edge-dev", "/home/u/.config/microsoft-edge-dev/NativeMessagingHosts", "/home/u/.config/microsoft-edge-dev", ""},
			{"brave", "/home/u/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts", "/home/u/.config/BraveSoftware/Brave-Browser", ""},
			{"brave (flatpak)", "/home/u/.var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser/NativeMessagingHosts", "/home/u/.var/app/com.brave.Browser/config/BraveSoftware/Brave-Browser", ""},
			{"vivaldi", "/home/u/.config/vivaldi/NativeMessagingHosts", "/home/u/.config/vivaldi", ""},
		}},
		{"darwin", "/Users/u", []row{
			{"chrome", "/Users/u/Library/Application Support/Google/Chrome/NativeMessagingHosts", "/Users/u/Library/Application Support/Google/Chrome", ""},
			{"chrome-beta", "/Users/u/Library/Application Support/Google/Chrome Beta/NativeMessagingHosts", "/Users/u/Library/Application Support/Google/Chrome Beta", ""},
			{"chrome-dev", "/Users/u/Library/Application Support/Google/Chrome Dev/NativeMessagingHosts", "/Users/u/Library/Application Support/Google/Chrome Dev", ""},
			{"chrome-canary", "/Users/u/Library/Application Support/Google/Chrome Canary/NativeMessagingHosts", "/Users/u/Library/Application Support/Google/Chrome Canary", ""},
			{"chromium", "/Users/u/Library/Application Support/Chromium/NativeMessagingHosts", "/Users/u/Library/Application Support/Chromium", ""},
			{"edge", "/Users/u/Library/Application Support/Microsoft Edge/NativeMessagingHosts", "/Users/u/Library/Application Support/Microsoft Edge", ""},
			{"edge-beta", "/Users/u/Library/Application Support/Microsoft Edge Beta/NativeMessagingHosts", "/Users/u/Library/Application Support/Microsoft Edge Beta", ""},
			{"edge-dev", "/Users/u/Library/Application Support/Microsoft Edge Dev/NativeMessagingHosts", "/Users/u/Library/Application Support/Microsoft Edge Dev", ""},
			{"edge-canary", "/Users/u/Library/Application Support/Microsoft Edge Canary/NativeMessagingHosts", "/Users/u/Library/Application Support/Microsoft Edge Canary", ""},
			{"brave", "/Users/u/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts", "/Users/u/Library/Application Support/BraveSoftware/Brave-Browser", ""},
			{"vivaldi", "/Users/u/Library/Application Support/Vivaldi/NativeMessagingHosts", "/Users/u/Library/Application Support/Vivaldi", ""},
		}},
		{"windows", `C:\Users\u`, []row{
			{"chrome", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`, `C:\Users\u\AppData\Local\Google\Chrome\User Data`, `HKCU\Software\Google\Chrome\NativeMessagingHosts`},
			{"chrome-beta", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`, `C:\Users\u\AppData\Local\Google\Chrome Beta\User Data`, `HKCU\Software\Google\Chrome\NativeMessagingHosts`},
			{"chrome-dev", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`, `C:\Users\u\AppData\Local\Google\Chrome Dev\User Data`, `HKCU\Software\Google\Chrome\NativeMessagingHosts`},
			{"chrome-canary", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`, `C:\Users\u\AppData\Local\Google\Chrome SxS\User Data`, `HKCU\Software\Google\Chrome\NativeMessagingHosts`},
			{"chromium", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`, `C:\Users\u\AppData\Local\Chromium\User Data`, `HKCU\Software\Chromium\NativeMessagingHosts`},
			{"edge", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`, `C:\Users\u\AppData\Local\Microsoft\Edge\User Data`, `HKCU\Software\Microsoft\Edge\NativeMessagingHosts`},
			{"edge-beta", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`, `C:\Users\u\AppData\Local\Microsoft\Edge Beta\User Data`, `HKCU\Software\Microsoft\Edge\NativeMessagingHosts`},
			{"edge-dev", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`, `C:\Users\u\AppData\Local\Microsoft\Edge Dev\User Data`, `HKCU\Software\Microsoft\Edge\NativeMessagingHosts`},
			{"edge-canary", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`, `C:\Users\u\AppData\Local\Microsoft\Edge SxS\User Data`, `HKCU\Software\Microsoft\Edge\NativeMessagingHosts`},
			{"brave", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`, `C:\Users\u\AppData\Local\BraveSoftware\Brave-Browser\User Data`, `HKCU\Software\Google\Chrome\NativeMessagingHosts`},
			{"vivaldi", `C:\Users\u\AppData\Local\egohost\NativeMessagingHosts`, `C:\Users\u\AppData\Local\Vivaldi\User Data`, `HKCU\Software\Google\Chrome\NativeMessagingHosts`},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.goos, func(t *testing.T) {
			locs, err := Locations(tt.goos, tt.home)
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			var got []row
			for _, l := range locs {
				got = append(got, row{l.String(), l.Dir, l.ProfileDir, l.RegistryKey})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("locations mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := UserManifestDir(EdgeCanary, "linux", "/home/u"); err == nil || !strings.Contains(err.Error(), "no build for linux") {
		t.Errorf("edge-canary on linux: got error %v, want one saying it has no build there", err)
	}
}

func TestPresent(t *testing.T) {
	locs, err := BrowserLocations(Chromium, "linux", "/home/u")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{
		"/home/u/snap/chromium/common/chromium/Local State": true,
		"/home/u/.config/chromium":                          true, // crash reports of a --user-data-dir run only
	}
	got := Present(locs, func(p string) bool { return have[p] })
	if len(got) != 1 || got[0].Variant != "snap" || !got[0].Sandboxed() {
		t.Errorf("got %v, want the snap location only, sandboxed", got)
	}
}

func TestExtensionDir(t *testing.T) {
	tests := []struct{ goos, home, dataHome, want string }{
		{"linux", "/home/u", "", "/home/u/.local/share/egohost/extension"},
		{"linux", "/home/u", "/data", "/data/egohost/extension"},
		{"darwin", "/Users/u", "", "/Users/u/Library/Application Support/egohost/extension"},
		{"windows", `C:\Users\u`, "", `C:\Users\u\AppData\Local\egohost\extension`},
	}
	for _, tt := range tests {
		if got := ExtensionDir(tt.goos, tt.home, tt.dataHome); got != tt.want {
			t.Errorf("ExtensionDir(%q, %q, %q): got %q, want %q", tt.goos, tt.home, tt.dataHome, got, tt.want)
		}
	}
}

func TestTemporaryBinary(t *testing.T) {
	tmp := filepath.Join(string(filepath.Separator) + "tmp")
	cache := filepath.Join(string(filepath.Separator)+"home", "u", "gocache") // GOCACHE set by the user
	tests := []struct {
		name, path string
		want       string // substring of the reason; "" = stable
	}{
		{"go run build", filepath.Join(tmp, "go-build123", "b001", "exe", "egohost"), "go run"},
		{"go run elsewhere", filepath.Join(string(filepath.Separator)+"var", "go-build9", "exe", "egohost"), "go run"},
		{"temp dir", filepath.Join(tmp, "x", "egohost"), "temporary folder"},
		{"build cache", filepath.Join(cache, "ab", "egohost"), "temporary folder"},
		{"go install", filepath.Join(string(filepath.Separator)+"home", "u", "go", "bin", "egohost"), ""},
		{"sibling of temp", filepath.Join(string(filepath.Separator)+"tmpfoo", "egohost"), ""},
		{"the temp dir itself", tmp, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TemporaryBinary(tt.path, []string{tmp, cache, ""})
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPresentWindows(t *testing.T) {
	locs, err := BrowserLocations(Edge, "windows", `C:\Users\u`)
	if err != nil {
		t.Fatal(err)
	}
	want := `C:\Users\u\AppData\Local\Microsoft\Edge\User Data\Local State`
	got := Present(locs, func(p string) bool { return p == want })
	if len(got) != 1 {
		t.Errorf("got %v, want the Edge location (looked for %s)", got, want)
	}
}
