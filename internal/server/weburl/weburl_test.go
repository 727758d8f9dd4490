package weburl

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"bare host gets https", "example.com", "https://example.com"},
		{"bare host with path and query", "example.com/a/b?c=1#d", "https://example.com/a/b?c=1#d"},
		{"bare host with port", "example.com:8443/x", "https://example.com:8443/x"},
		{"subdomain", "docs.example.co.uk", "https://docs.example.co.uk"},
		{"trailing dot", "example.com.", "https://example.com."},
		{"surrounding space is trimmed", "  example.com  ", "https://example.com"},
		{"localhost gets http", "localhost", "http://localhost"},
		{"localhost with port", "localhost:8080/app", "http://localhost:8080/app"},
		{"dev .localhost name", "api.localhost:3000", "http://api.localhost:3000"},
		{"loopback IPv4 with port", "127.0.0.1:5173/", "http://127.0.0.1:5173/"},
		{"other loopback IPv4", "127.1.2.3", "http://127.1.2.3"},
		{"loopback IPv6", "[::1]:8080", "http://[::1]:8080"},
		{"LAN IPv4 gets https", "192.168.1.10", "https://192.168.1.10"},
		{"https kept", "https://example.com/x", "https://example.com/x"},
		{"http kept", "http://example.com", "http://example.com"},
		{"scheme in capitals kept", "HTTPS://Example.com", "HTTPS://Example.com"},
		{"about:blank", "about:blank", "about:blank"},
		{"data URL", "data:text/html,<h1>hi</h1>", "data:text/html,<h1>hi</h1>"},
		{"file URL", "file:///tmp/page.html", "file:///tmp/page.html"},
		{"chrome page", "chrome://version", "chrome://version"},
		{"internationalised host", "bücher.example", "https://bücher.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			if err != nil || got != tt.want {
				t.Errorf("Normalize(%q): got %q, %v, want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestNormalizeRefuses(t *testing.T) {
	tests := []struct {
		name, in, wantReason string
	}{
		{"empty", "", "empty"},
		{"spaces only", "   ", "empty"},
		{"words", "hello world", "white space"},
		{"single word", "example", "not a host name"},
		{"relative path", "/login", "relative"},
		{"dot path", "./page.html", "relative"},
		{"javascript", "javascript:alert(1)", "does not navigate to javascript"},
		{"extension page", "chrome-extension://abc/x.html", "does not navigate to chrome-extension"},
		{"mailto", "mailto:ada@example.com", "does not navigate to mailto"},
		{"http without host", "http://", "no host"},
		{"https without host", "https:///path", "no host"},
		{"port out of range", "example.com:70000", "port 70000"},
		{"port zero", "localhost:0", "port 0"},
		{"bad label", "exa$mple.com", "not a host name"},
		{"empty label", "example..com", "not a host name"},
		{"numeric top-level domain", "1.2.3", "not a host name"},
		{"user info without scheme", "ada@example.com", "user name"},
		{"IPv6 zone", "[fe80::1%25eth0]", "not a host name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize(tt.in)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Normalize(%q): got %q, %v, want an *Error", tt.in, got, err)
			}
			if !strings.Contains(e.Error(), tt.wantReason) {
				t.Errorf("Normalize(%q): got error %q, want it to say %q", tt.in, e, tt.wantReason)
			}
		})
	}
}

// FuzzNormalize: no panic, and every accepted address is accepted again
// unchanged (normalizing twice changes nothing) and has a scheme.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"example.com", "localhost:8080/x", "[::1]:1", "https://a.b", "about:blank", "a b", "javascript:x", "1.2.3", "x:1", "::", "[", "%zz.com"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Normalize(s)
		if err != nil {
			return
		}
		again, err := Normalize(got)
		if err != nil || again != got {
			t.Errorf("Normalize(%q) = %q, then Normalize(%q) = %q, %v: want it unchanged", s, got, got, again, err)
		}
		if _, _, ok := cutScheme(got); !ok {
			t.Errorf("Normalize(%q) = %q has no scheme", s, got)
		}
	})
}

func TestClassify(t *testing.T) {
	tests := []struct {
		in         string
		wantGrants string
		wantInner  string
	}{
		{"https://example.com/x", "", "https://example.com/x"},
		{"HTTP://example.com", "", "HTTP://example.com"},
		{"about:blank", "", "about:blank"},
		{"about:srcdoc", "", "about:srcdoc"},
		{"about:blank#top", "", "about:blank#top"},
		{"", "", ""},
		{"chrome-error://chromewebdata/", "", "chrome-error://chromewebdata/"},
		{"about:settings", "chrome", "about:settings"},
		{"file:///etc/passwd", "file", "file:///etc/passwd"},
		{"data:text/html,hi", "data", "data:text/html,hi"},
		{"chrome://settings", "chrome", "chrome://settings"},
		{"chrome-extension://abc/popup.html", "chrome-extension", "chrome-extension://abc/popup.html"},
		{"devtools://devtools/x", "devtools", "devtools://devtools/x"},
		{"javascript:alert(1)", "javascript", "javascript:alert(1)"},
		{"view-source:https://bank.example/", "view-source", "https://bank.example/"},
		{"View-Source:file:///etc/passwd", "view-source,file", "file:///etc/passwd"},
		{"blob:https://bank.example/1-2", "", "https://bank.example/1-2"},
		{"blob:null/1-2", "blob", "null/1-2"},
		{"filesystem:https://a.example/temporary/x", "", "https://a.example/temporary/x"},
		{"view-source:blob:https://bank.example/1", "view-source", "https://bank.example/1"},
		{"no scheme", NotAURL, "no scheme"},
		{strings.Repeat("view-source:", 20) + "https://x/", "view-source,view-source,view-source,view-source,view-source,view-source,view-source,view-source," + NotAURL, strings.Repeat("view-source:", 12) + "https://x/"},
	}
	for _, tt := range tests {
		grants, inner := Classify(tt.in)
		if got := strings.Join(grants, ","); got != tt.wantGrants || inner != tt.wantInner {
			t.Errorf("Classify(%q): got %q, %q, want %q, %q", tt.in, got, inner, tt.wantGrants, tt.wantInner)
		}
	}
}

// A tab may be sent to every scheme Classify knows as navigable, and to
// none it does not: Normalize and Classify read one table.
func TestNormalizeFollowsTheTable(t *testing.T) {
	for name, sc := range schemes {
		_, err := Normalize(name + "://x.example/")
		if (err == nil) != sc.navigate {
			t.Errorf("Normalize(%s://…): got %v, want navigable %v", name, err, sc.navigate)
		}
	}
}

func TestBrowserPage(t *testing.T) {
	for u, want := range map[string]bool{
		"chrome-extension://abc/popup.html":           true,
		"CHROME-EXTENSION://abc/popup.html":           true,
		" chrome-extension://abc/popup.html":          true,
		"chrome-ext\tension://abc/popup.html":         true,
		"chrome://settings":                           true,
		"devtools://devtools/bundled/inspector.html":  true,
		"chrome-untrusted://terminal/":                true,
		"view-source:chrome-extension://abc/x.html":   true,
		"blob:chrome-extension://abc/1234":            true,
		"about:settings":                              true,
		"about:blank":                                 false,
		"about:blank#x":                               false,
		"about:srcdoc":                                false,
		"https://example.com/chrome-extension://x":    false,
		"view-source:https://example.com/":            false,
		"":                                            false,
		"data:text/html,chrome-extension://abc/x":     false,
		"blob:https://example.com/1234":               false,
		"file:///home/u/chrome-extension:/popup.html": false,
	} {
		if got := BrowserPage(u); got != want {
			t.Errorf("BrowserPage(%q) = %v, want %v", u, got, want)
		}
	}
}
