package install

import (
	"path/filepath"
	"testing"
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
