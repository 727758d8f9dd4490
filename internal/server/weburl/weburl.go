// Package weburl turns what a person or an agent types as an address into
// the URL a tab navigates to: a bare host gets a scheme, as browsers' and
// other automation tools' address bars do, and what cannot be a URL is
// refused with a message saying why; and it tells a browser's, DevTools'
// or an extension's own page from the web's (BrowserPage). It uses the
// standard library only.
package weburl

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Error says why an address cannot be a URL.
type Error struct {
	Input  string
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%q cannot be a URL: %s", e.Input, e.Reason)
}

// scheme is what egohost knows of a URL scheme: the one table that says
// where a tab may be sent at all (Normalize) and what a paired agent
// needs to reach a document of it (Classify).
type scheme struct {
	// navigate: a tab may be sent there. Others (javascript:,
	// chrome-extension:, mailto:, a typo) are refused to everyone.
	navigate bool
	// web: its documents are a web origin's (http, https): the origin
	// rules judge them, no grant is needed.
	web bool
	// wraps: the URL wraps another (view-source:, blob:, filesystem:),
	// whose origin the rules judge.
	wraps bool
}

var schemes = map[string]scheme{
	"http":        {navigate: true, web: true},
	"https":       {navigate: true, web: true},
	"about":       {navigate: true}, // about:blank and about:srcdoc are web (Classify)
	"file":        {navigate: true},
	"data":        {navigate: true},
	"chrome":      {navigate: true},
	"view-source": {navigate: true, wraps: true},
	"blob":        {navigate: true, wraps: true},
	"filesystem":  {wraps: true},
	// A page that failed to load: it shows the failed address only.
	"chrome-error": {web: true},
}

// Normalize returns the URL to navigate to for s:
//
//   - a URL with a scheme egohost navigates to (http, https, file, about,
//     data, chrome, view-source, blob) is kept as it is; http and https
//     need a host;
//   - a bare host, with an optional port, path, query or fragment
//     ("example.com", "example.com:8443/a?b") gets https://, except a
//     loopback host ("localhost", "*.localhost", 127.0.0.0/8, [::1]),
//     which gets http://: local development servers rarely speak TLS;
//   - anything else (spaces, a single word that is not localhost, a path,
//     another scheme) is an *Error.
func Normalize(s string) (string, error) {
	in := s
	s = strings.TrimSpace(s)
	if s == "" {
		return "", &Error{Input: in, Reason: "it is empty"}
	}
	if strings.ContainsAny(s, " \t\r\n") {
		return "", &Error{Input: in, Reason: "it contains white space (egohost is not a search box: give an address)"}
	}
	if scheme, rest, ok := cutScheme(s); ok && !looksLikeHostPort(scheme, rest) {
		scheme = strings.ToLower(scheme)
		if !schemes[scheme].navigate {
			return "", &Error{Input: in, Reason: fmt.Sprintf("egohost does not navigate to %s: URLs (want http, https, file, about, data, chrome, view-source or blob)", scheme)}
		}
		u, err := url.Parse(s)
		if err != nil {
			return "", &Error{Input: in, Reason: err.Error()}
		}
		if (scheme == "http" || scheme == "https") && u.Hostname() == "" {
			return "", &Error{Input: in, Reason: "it has no host"}
		}
		return s, nil
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "?") || strings.HasPrefix(s, "#") {
		return "", &Error{Input: in, Reason: "a relative address has nothing to be relative to: give a full URL (https://…)"}
	}
	u, err := url.Parse("http://" + s)
	if err != nil {
		return "", &Error{Input: in, Reason: err.Error()}
	}
	host := u.Hostname()
	if u.User != nil {
		return "", &Error{Input: in, Reason: "give the scheme with a user name (https://user@host)"}
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", &Error{Input: in, Reason: fmt.Sprintf("port %s is not 1-65535", port)}
		}
	}
	loopback, ok := checkHost(host)
	if !ok {
		return "", &Error{Input: in, Reason: "it has no scheme and is not a host name (give a full URL such as https://" + s + ".com, or http://" + s + "/ for a local name)"}
	}
	if loopback {
		return "http://" + s, nil
	}
	return "https://" + s, nil
}

// cutScheme splits "scheme:rest" when s starts with a syntactically valid
// scheme.
func cutScheme(s string) (scheme, rest string, ok bool) {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return "", "", false
	}
	for j, c := range s[:i] {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", "", false
		}
	}
	return s[:i], s[i+1:], true
}

// looksLikeHostPort reports whether "scheme:rest" is really host:port
// ("localhost:8080", "example.com:443/x"): rest starts with a port number.
func looksLikeHostPort(scheme, rest string) bool {
	if strings.HasPrefix(rest, "//") {
		return false
	}
	digits := 0
	for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
		digits++
	}
	if digits == 0 {
		return false
	}
	if digits < len(rest) && !strings.ContainsRune("/?#", rune(rest[digits])) {
		return false
	}
	return strings.Contains(scheme, ".") || strings.EqualFold(scheme, "localhost")
}

// checkHost reports whether host can be a bare host, and whether it is a
// loopback one.
func checkHost(host string) (loopback, ok bool) {
	if host == "" {
		return false, false
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		return ip.Unmap().IsLoopback(), ip.Zone() == ""
	}
	lower := strings.ToLower(strings.TrimSuffix(host, "."))
	if lower == "localhost" || strings.HasSuffix(lower, ".localhost") {
		return true, true
	}
	if !strings.Contains(lower, ".") || net.ParseIP(lower) != nil {
		return false, false
	}
	for _, label := range strings.Split(lower, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return false, false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c > 127) {
				return false, false
			}
		}
	}
	// The last label is a top-level domain: never all digits ("1.2.3"
	// that failed to parse as an address is not a host).
	tld := lower[strings.LastIndexByte(lower, '.')+1:]
	if strings.Trim(tld, "0123456789") == "" {
		return false, false
	}
	return false, true
}

// Classify says what a paired agent needs to reach a document at rawURL:
// grants are the schemes the person must have granted it (none when the
// document is a web origin's, judged by the origin rules alone), and inner
// is the URL whose origin the rules judge: the one view-source:, blob: and
// filesystem: wrap, rawURL itself otherwise.
//
// No grant is needed for http and https, about:blank and about:srcdoc
// (what they show, their creator's origin put there: the document's own
// origin decides), a blob: or filesystem: URL of a web origin, a browser
// error page, and "" (a tab that has loaded nothing yet). view-source:
// needs "view-source" and what its inner URL needs; every other scheme
// (file, data, chrome, chrome-extension, devtools, an unknown one) needs
// its own name granted, and so does a blob: of anything but a web origin.
// What does not parse as a URL needs NotAURL, which no one is granted.
func Classify(rawURL string) (grants []string, inner string) {
	inner = strings.TrimSpace(rawURL)
	if inner == "" {
		return nil, inner
	}
	var wrappers []string
	for range 8 {
		name, rest, ok := cutScheme(inner)
		if !ok {
			return append(wrappers, NotAURL), inner
		}
		name = strings.ToLower(name)
		sc := schemes[name]
		switch {
		case name == "view-source":
			wrappers = append(wrappers, name)
			inner = rest
			continue
		case sc.wraps:
			if g, in := Classify(rest); len(g) == 0 {
				return wrappers, in // a blob: of a web origin is that origin's
			}
			return append(wrappers, name), rest
		case sc.web:
			return wrappers, inner
		case name == "about":
			page, _, _ := strings.Cut(strings.ToLower(rest), "#")
			page, _, _ = strings.Cut(page, "?")
			if page == "blank" || page == "srcdoc" {
				return wrappers, inner
			}
			return append(wrappers, "chrome"), inner // about:settings and the like are the browser's own pages
		}
		return append(wrappers, name), inner
	}
	return append(wrappers, NotAURL), inner
}

// NotAURL is the grant Classify asks for what does not parse as a URL:
// nothing grants it.
const NotAURL = "(not a URL)"

// browserSchemes are the schemes of pages that belong to the browser or an
// extension, not to the web.
var browserSchemes = map[string]bool{
	"chrome-extension": true, "chrome": true, "chrome-untrusted": true, "chrome-search": true,
	"devtools": true, "edge": true, "brave": true, "opera": true, "vivaldi": true,
}

// BrowserPage reports whether rawURL is (or wraps, in view-source: or
// blob:) a browser, DevTools or extension page, or an about: page other
// than about:blank and about:srcdoc. It reads the URL as Chrome does
// (tabs and newlines dropped, the scheme in any case).
func BrowserPage(rawURL string) bool {
	u := strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, rawURL)
	u = strings.TrimFunc(u, func(r rune) bool { return r <= ' ' })
	scheme, rest, ok := strings.Cut(u, ":")
	if !ok {
		return false
	}
	switch scheme = strings.ToLower(scheme); {
	case browserSchemes[scheme]:
		return true
	case scheme == "view-source" || scheme == "blob":
		return BrowserPage(rest)
	case scheme == "about":
		page, _, _ := strings.Cut(rest, "?")
		page, _, _ = strings.Cut(page, "#")
		page = strings.ToLower(page)
		return page != "blank" && page != "srcdoc"
	}
	return false
}
