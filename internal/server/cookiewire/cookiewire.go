// Package cookiewire maps the cookie methods between the agents' wire
// (protocol) and CDP's Network domain: Chrome's cookies to the wire's,
// cookies.set's params to Network.setCookie's, a cookie to clear to
// Network.deleteCookies's; and what a tab's URL must be for its cookies
// to be read or written (http or https). It runs nothing itself: the
// service finds the tab, checks the caller, asks the person and makes
// the CDP calls.
package cookiewire

import (
	"net/url"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"

	"github.com/egohost/egohost/protocol"
)

// CheckURL refuses (CodeUnsupported) a tab's URL that has no cookies:
// cookies belong to an http(s) origin.
func CheckURL(op string, tab int, u string) error {
	if pu, err := url.Parse(u); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") {
		return protocol.Errorf(protocol.CodeUnsupported, "%s: tab %d shows %q, which has no cookies: navigate to an http(s) page first", op, tab, u)
	}
	return nil
}

// Cookies are Chrome's cookies on the wire (name: only those so named; a
// session cookie has no expiry). It is never nil: no cookies are [].
func Cookies(cs []*network.Cookie, name string) []protocol.Cookie {
	out := []protocol.Cookie{}
	for _, c := range cs {
		if name != "" && c.Name != name {
			continue
		}
		pc := protocol.Cookie{
			Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path,
			HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: string(c.SameSite),
		}
		if !c.Session {
			pc.Expires = c.Expires
		}
		out = append(out, pc)
	}
	return out
}

// SetParams are cookies.set's params as Network.setCookie takes them,
// for the tab's URL u.
func SetParams(p protocol.CookiesSetParams, u string) network.SetCookieParams {
	cp := network.SetCookieParams{
		Name: p.Name, Value: p.Value, URL: u, Domain: p.Domain, Path: p.Path,
		SameSite: network.CookieSameSite(p.SameSite), Expires: cdp.TimeSinceEpoch(p.Expires),
	}
	if p.HTTPOnly {
		cp.HTTPOnly = &p.HTTPOnly
	}
	if p.Secure {
		cp.Secure = &p.Secure
	}
	return cp
}

// SetDomain is the domain cookies.set writes to, for the person to
// confirm: p's, else the host of the tab's URL u.
func SetDomain(p protocol.CookiesSetParams, u string) string {
	if pu, err := url.Parse(u); err == nil && p.Domain == "" {
		return pu.Hostname()
	}
	return p.Domain
}

// Cleared are the names of the cookies cookies.clear deletes and their
// domains (each once, comma-separated), for the person to confirm.
func Cleared(cookies []protocol.Cookie) (names []string, domains string) {
	var ds []string
	for _, c := range cookies {
		names = append(names, c.Name)
		if !slices.Contains(ds, c.Domain) {
			ds = append(ds, c.Domain)
		}
	}
	return names, strings.Join(ds, ", ")
}

// DeleteParams delete c as Network.deleteCookies takes it: by name,
// domain and path, so a cookie the page set since it was read stays.
func DeleteParams(c protocol.Cookie) network.DeleteCookiesParams {
	return network.DeleteCookiesParams{Name: c.Name, Domain: c.Domain, Path: c.Path}
}
