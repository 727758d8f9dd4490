package cookiewire

import (
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/protocol"
)

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url  string
		want string // "" when it has cookies
	}{
		{"https://shop.example/cart", ""},
		{"http://localhost:8080/", ""},
		{"about:blank", `cookies.get: tab 7 shows "about:blank", which has no cookies: navigate to an http(s) page first`},
		{"file:///etc/passwd", `cookies.get: tab 7 shows "file:///etc/passwd", which has no cookies: navigate to an http(s) page first`},
		{"chrome://settings", `cookies.get: tab 7 shows "chrome://settings", which has no cookies: navigate to an http(s) page first`},
		{"%zz", `cookies.get: tab 7 shows "%zz", which has no cookies: navigate to an http(s) page first`},
	}
	for _, tt := range tests {
		err := CheckURL("cookies.get", 7, tt.url)
		var got string
		if err != nil {
			e, ok := err.(*protocol.Error)
			if !ok || e.Code != protocol.CodeUnsupported {
				t.Errorf("CheckURL(%q): got %v, want an unsupported *protocol.Error", tt.url, err)
				continue
			}
			got = e.Message
		}
		if got != tt.want {
			t.Errorf("CheckURL(%q): got %q, want %q", tt.url, got, tt.want)
		}
	}
}

func TestCookies(t *testing.T) {
	chrome := []*network.Cookie{
		{Name: "sid", Value: "1", Domain: "shop.example", Path: "/", Expires: 1700000000, HTTPOnly: true, Secure: true, SameSite: network.CookieSameSiteLax},
		{Name: "tmp", Value: "2", Domain: ".shop.example", Path: "/cart", Expires: -1, Session: true},
	}
	sid := protocol.Cookie{Name: "sid", Value: "1", Domain: "shop.example", Path: "/", Expires: 1700000000, HTTPOnly: true, Secure: true, SameSite: "Lax"}
	tmp := protocol.Cookie{Name: "tmp", Value: "2", Domain: ".shop.example", Path: "/cart"}
	tests := []struct {
		name    string
		cookies []*network.Cookie
		keep    string
		want    []protocol.Cookie
	}{
		{"all", chrome, "", []protocol.Cookie{sid, tmp}},
		{"by name", chrome, "tmp", []protocol.Cookie{tmp}},
		{"no such name", chrome, "none", []protocol.Cookie{}},
		{"none at all", nil, "", []protocol.Cookie{}},
	}
	for _, tt := range tests {
		got := Cookies(tt.cookies, tt.keep)
		if got == nil {
			t.Errorf("%s: got nil, want [] (the wire's empty list)", tt.name)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}

func TestSetParams(t *testing.T) {
	yes := true
	tests := []struct {
		name string
		p    protocol.CookiesSetParams
		want network.SetCookieParams
	}{
		{"defaults", protocol.CookiesSetParams{Name: "sid", Value: "1"},
			network.SetCookieParams{Name: "sid", Value: "1", URL: "https://shop.example/cart"}},
		{"every field", protocol.CookiesSetParams{Name: "sid", Value: "1", Domain: ".shop.example", Path: "/", Expires: 1700000000.5, HTTPOnly: true, Secure: true, SameSite: "None"},
			network.SetCookieParams{Name: "sid", Value: "1", URL: "https://shop.example/cart", Domain: ".shop.example", Path: "/", Expires: cdp.TimeSinceEpoch(1700000000.5), HTTPOnly: &yes, Secure: &yes, SameSite: network.CookieSameSiteNone}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, SetParams(tt.p, "https://shop.example/cart")); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}

func TestSetDomain(t *testing.T) {
	tests := []struct {
		domain, url, want string
	}{
		{"", "https://shop.example:8443/cart", "shop.example"},
		{".example", "https://shop.example/cart", ".example"},
		{"", "%zz", ""},
	}
	for _, tt := range tests {
		if got := SetDomain(protocol.CookiesSetParams{Name: "sid", Domain: tt.domain}, tt.url); got != tt.want {
			t.Errorf("SetDomain(%q, %q): got %q, want %q", tt.domain, tt.url, got, tt.want)
		}
	}
}

func TestCleared(t *testing.T) {
	tests := []struct {
		name    string
		cookies []protocol.Cookie
		names   []string
		domains string
	}{
		{"none", nil, nil, ""},
		{"one domain once", []protocol.Cookie{{Name: "a", Domain: "shop.example"}, {Name: "b", Domain: "shop.example"}}, []string{"a", "b"}, "shop.example"},
		{"domains in order", []protocol.Cookie{{Name: "a", Domain: ".example"}, {Name: "b", Domain: "shop.example"}, {Name: "c", Domain: ".example"}}, []string{"a", "b", "c"}, ".example, shop.example"},
	}
	for _, tt := range tests {
		names, domains := Cleared(tt.cookies)
		if diff := cmp.Diff(tt.names, names); diff != "" || domains != tt.domains {
			t.Errorf("%s: got %q %q, want %q %q", tt.name, names, domains, tt.names, tt.domains)
		}
	}
}

func TestDeleteParams(t *testing.T) {
	got := DeleteParams(protocol.Cookie{Name: "sid", Value: "1", Domain: "shop.example", Path: "/cart", Secure: true})
	want := network.DeleteCookiesParams{Name: "sid", Domain: "shop.example", Path: "/cart"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
