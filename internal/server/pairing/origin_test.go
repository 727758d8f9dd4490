package pairing

import (
	"strings"
	"testing"
)

// The rules judge the URL the browser reads, not the string as given:
// wrappers, case, trailing dots, IDNA and IPv4 spellings all lead to the
// same origin, and a scheme outside the web's needs the person's grant.
func TestDecide(t *testing.T) {
	bank := Rules{Deny: []string{"*.bank.example"}}
	idn := Rules{Deny: []string{"*.bücher.example"}}
	ip := Rules{Deny: []string{"127.0.0.1"}}
	allow := Rules{Allow: []string{"*.example.com"}}
	granted := Rules{Deny: []string{"*.bank.example"}, Schemes: []string{"file", "data", "view-source"}}
	all := Rules{Schemes: []string{"*"}}
	tests := []struct {
		name        string
		rules       Rules
		url, origin string
		want        bool
		reason      string
	}{
		{"plain", bank, "https://www.bank.example/", "", false, "deny"},
		{"view-source wrapper", granted, "view-source:https://bank.example/", "", false, "deny"},
		{"view-source in capitals", granted, "VIEW-SOURCE:HTTPS://BANK.EXAMPLE/", "", false, "deny"},
		{"view-source not granted", bank, "view-source:https://fine.example/", "", false, "url_kind"},
		{"view-source granted, allowed origin", granted, "view-source:https://fine.example/", "", true, ""},
		{"blob of the origin", bank, "blob:https://bank.example/0bbf3243-588a", "", false, "deny"},
		{"blob of an allowed origin", bank, "blob:https://fine.example/0bbf3243", "", true, ""},
		{"blob of an opaque origin", bank, "blob:null/0bbf3243", "", false, "url_kind"},
		{"filesystem wrapper", bank, "filesystem:https://x.bank.example/temporary/a", "", false, "deny"},
		{"view-source of a blob", granted, "view-source:blob:https://bank.example/1", "", false, "deny"},
		{"trailing dot", bank, "https://bank.example./", "", false, "deny"},
		{"trailing dots", bank, "https://www.bank.example../x", "", false, "deny"},
		{"upper case host", bank, "https://WWW.BANK.EXAMPLE/", "", false, "deny"},
		{"port ignored", bank, "https://bank.example:8443/", "", false, "deny"},
		{"user info", bank, "https://fine.example@bank.example/", "", false, "deny"},
		{"backslashes", bank, `https:\\bank.example\x`, "", false, "deny"},
		{"no slashes", bank, "https:bank.example/x", "", false, "deny"},
		{"tab in the host", bank, "https://ba\tnk.example/", "", false, "deny"},
		{"percent-encoded dot: refused, not misread", bank, "https://bank%2Eexample/", "", false, "url_kind"},
		{"unicode host, unicode pattern", idn, "https://www.bücher.example/", "", false, "deny"},
		{"punycode host, unicode pattern", idn, "https://www.xn--bcher-kva.example/", "", false, "deny"},
		{"unicode host, punycode pattern", Rules{Deny: []string{"xn--bcher-kva.example"}}, "https://BÜCHER.example/", "", false, "deny"},
		{"fullwidth dot", bank, "https://bank\uff0eexample/", "", false, "deny"},
		{"ipv4 decimal", ip, "http://2130706433/", "", false, "deny"},
		{"ipv4 hex", ip, "http://0x7f.1/", "", false, "deny"},
		{"ipv4 octal", ip, "http://0177.0.0.1/", "", false, "deny"},
		{"another ip", ip, "http://127.0.0.2/", "", true, ""},
		{"not a suffix", bank, "https://notbank.example/", "", true, ""},
		{"file not granted", bank, "file:///etc/passwd", "", false, "url_kind"},
		{"FILE in capitals", bank, "FILE:///etc/passwd", "", false, "url_kind"},
		{"file granted", granted, "file:///etc/passwd", "file://", true, ""},
		{"data not granted", bank, "data:text/html,<p>x", "", false, "url_kind"},
		{"data granted", granted, "data:text/html,<p>x", "null", true, ""},
		{"chrome page", granted, "chrome://settings", "", false, "url_kind"},
		{"about:settings is the browser's", bank, "about:settings", "", false, "url_kind"},
		{"extension page", all, "chrome-extension://abcdef/popup.html", "", true, ""},
		{"extension page not granted", granted, "chrome-extension://abcdef/popup.html", "", false, "url_kind"},
		{"devtools", granted, "devtools://devtools/bundled/inspector.html", "", false, "url_kind"},
		{"javascript", granted, "javascript:alert(1)", "", false, "url_kind"},
		{"not a url", granted, "nothing here", "", false, "url_kind"},
		{"nothing loaded yet", allow, "", "", true, ""},
		{"about:blank", allow, "about:blank", "", true, ""},
		{"about:blank of a denied origin", bank, "about:blank", "https://bank.example", false, "deny"},
		{"about:srcdoc of a denied origin", bank, "about:srcdoc", "https://x.bank.example", false, "deny"},
		{"about:blank opaque", bank, "about:blank", "null", true, ""},
		{"sandboxed document of a denied URL", bank, "https://bank.example/x", "null", false, "deny"},
		{"error page", allow, "chrome-error://chromewebdata/", "null", true, ""},
		{"allow: listed", allow, "https://docs.example.com/", "https://docs.example.com", true, ""},
		{"allow: not listed", allow, "https://other.test/", "", false, "allow"},
		{"allow: blob of a listed origin", allow, "blob:https://docs.example.com/1", "https://docs.example.com", true, ""},
		{"allow does not list a granted scheme", Rules{Allow: []string{"*.example.com"}, Schemes: []string{"file"}}, "file:///tmp/x", "file://", true, ""},
		{"allow: about:blank of another origin", allow, "about:blank", "https://other.test", false, "allow"},
		{"deny * refuses a granted scheme too", Rules{Deny: []string{"*"}, Schemes: []string{"*"}}, "file:///x", "", false, "deny"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.rules.Decide(tt.url, tt.origin)
			if d.OK != tt.want || d.Reason != tt.reason {
				t.Errorf("Decide(%q, %q): got %+v, want ok %v reason %q", tt.url, tt.origin, d, tt.want, tt.reason)
			}
		})
	}
}

func TestCanonHost(t *testing.T) {
	for in, want := range map[string]string{
		"Bank.Example.":         "bank.example",
		"bücher.example":        "xn--bcher-kva.example",
		"BÜCHER.EXAMPLE":        "xn--bcher-kva.example",
		"xn--bcher-kva.example": "xn--bcher-kva.example",
		"2130706433":            "127.0.0.1",
		"0x7f.1":                "127.0.0.1",
		"127.1":                 "127.0.0.1",
		"0177.0.0.1.":           "127.0.0.1",
		"0:0::1":                "::1",
		"":                      "",
	} {
		got, err := CanonHost(in)
		if err != nil || got != want {
			t.Errorf("CanonHost(%q): got %q, %v, want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"1.2.3.256", "4294967296", "1.2.3.4.5"} {
		if got, err := CanonHost(bad); err == nil {
			t.Errorf("CanonHost(%q): got %q, want an error (the browser refuses it)", bad, got)
		}
	}
}

func TestCheckPatternsSchemes(t *testing.T) {
	if err := (Rules{Schemes: []string{"file", "view-source", "*", "chrome-extension"}}).CheckPatterns(); err != nil {
		t.Errorf("good schemes: %v", err)
	}
	for _, bad := range []string{"", "file:", "file://", "a b", "1x"} {
		if err := (Rules{Schemes: []string{bad}}).CheckPatterns(); err == nil {
			t.Errorf("scheme %q: got no error, want one", bad)
		}
	}
}

// FuzzDecide: no panic; wrapping a denied URL in view-source: or blob:,
// or adding a trailing dot to its host, never makes it permitted; and a
// URL the rules permit is one whose grants they hold.
func FuzzDecide(f *testing.F) {
	for _, s := range []string{"https://bank.example/", "https://x.bank.example./", "http://2130706433/", "https://BÜCHER.example/", "file:///etc/passwd", "about:blank", "blob:null/1", "https:\\\\bank.example", "", "%", "view-source:"} {
		f.Add(s, "*.bank.example")
	}
	f.Fuzz(func(t *testing.T, rawURL, pattern string) {
		r := Rules{Deny: []string{pattern}, Schemes: []string{"view-source"}}
		if r.CheckPatterns() != nil {
			return
		}
		d := r.Decide(rawURL, "")
		if d.OK {
			return
		}
		for _, wrapped := range []string{"view-source:" + rawURL, "VIEW-SOURCE:" + rawURL, "view-source:view-source:" + rawURL} {
			if w := r.Decide(wrapped, ""); w.OK {
				t.Errorf("Decide(%q) refused (%s) but Decide(%q) permits it", rawURL, d.Rule, wrapped)
			}
		}
		if strings.HasPrefix(strings.ToLower(rawURL), "https://") {
			if w := r.Decide("blob:"+rawURL, ""); w.OK {
				t.Errorf("Decide(%q) refused (%s) but its blob: is permitted", rawURL, d.Rule)
			}
		}
	})
}

// BenchmarkDecide: what judging one document costs a call (a paired
// agent's rules of a few patterns; an ASCII host; an IDN one).
func BenchmarkDecide(b *testing.B) {
	r := Rules{Deny: []string{"*.bank.example", "mail.example", "*.internal.example", "https://*.corp.example"}, Schemes: []string{"data"}}
	for _, u := range []string{"https://www.example.com/app/items?page=2#top", "https://www.bücher.example/x", "view-source:https://www.bank.example/"} {
		b.Run(u[:12], func(b *testing.B) {
			for b.Loop() {
				r.Decide(u, "https://www.example.com")
			}
		})
	}
}

func TestNewOrigin(t *testing.T) {
	tests := []struct {
		name, from, to string
		want           bool
	}{
		{"another host", "https://shop.example/cart", "https://bank.example/login", true},
		{"a subdomain is another origin", "https://shop.example/", "https://pay.shop.example/", true},
		{"another scheme", "https://shop.example/", "http://shop.example/", true},
		{"another port", "http://127.0.0.1:8080/", "http://127.0.0.1:8081/", true},
		{"same origin", "https://shop.example/cart", "https://shop.example/pay?x=1#y", false},
		{"same origin, default port spelled", "https://shop.example/", "https://SHOP.example:443/a", false},
		{"file to file", "file:///home/a.html", "file:///home/b.html", false},
		{"an IPv6 host, default port", "http://[::1]/", "http://[::1]:80/x", false},
		{"relative", "https://shop.example/a/b", "../c", false},
		{"scheme-relative to another host", "https://shop.example/", "//bank.example/", true},
		{"fragment only", "https://shop.example/", "#pay", false},
		{"javascript:", "https://shop.example/", "javascript:location='https://bank.example/'", false},
		{"about:blank", "https://shop.example/", "about:blank", false},
		{"data: is an opaque origin, new to every page", "https://shop.example/", "data:text/html,hi", true},
		{"data: to data:", "data:text/html,a", "DATA:text/html,b", true},
		{"mailto:", "https://shop.example/", "mailto:a@bank.example", false},
		{"from about:blank", "about:blank", "https://bank.example/", true},
		{"from a new tab", "", "https://bank.example/", true},
		{"a new tab on about:blank", "", "about:blank", false},
		{"unreadable", "https://shop.example/", "http://[::1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NewOrigin(tt.from, tt.to); got != tt.want {
				t.Errorf("NewOrigin(%q, %q): got %v, want %v", tt.from, tt.to, got, tt.want)
			}
		})
	}
}

// The origin the confirmations remember an "always" answer for is the one
// they compare: lower case, without the default port.
func TestOriginCanonical(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"https://SHOP.example:443/a", "https://shop.example"},
		{"HTTP://Shop.Example:80/", "http://shop.example"},
		{"http://shop.example:8080/", "http://shop.example:8080"},
		{"http://[::1]:80/", "http://[::1]"},
		{"about:blank#x", "about:blank"},
		{"data:text/html,secret", "data:"},
		{"", ""},
	} {
		if got := Origin(tt.in); got != tt.want {
			t.Errorf("Origin(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// An act's words name a URL's host, or its origin when it has none.
func TestHost(t *testing.T) {
	for in, want := range map[string]string{
		"https://Shop.example:8443/cart?x=1": "Shop.example:8443",
		"about:blank":                        "about:blank",
		"data:text/html,hi":                  "data:",
		"":                                   "",
	} {
		if got := Host(in); got != want {
			t.Errorf("Host(%q): got %q, want %q", in, got, want)
		}
	}
}
