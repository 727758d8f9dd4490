// Package weburl turns what a person or an agent types as an address into
// the URL a tab navigates to: a bare host gets a scheme, as browsers' and
// other automation tools' address bars do, and what cannot be a URL is
// refused with a message saying why. It uses the standard library only.
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

// schemes are the schemes a tab may be sent to. Others (javascript:,
// chrome-extension:, mailto:, a typo) are refused.
var schemes = map[string]bool{
	"http": true, "https": true, "file": true, "about": true, "data": true,
	"chrome": true, "view-source": true, "blob": true,
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
		if !schemes[scheme] {
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
