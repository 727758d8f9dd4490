package pairing

import (
	"fmt"
	"net/url"
	"strings"
)

// Rules are one agent's origin rules (config: agents.origins.NAME). A
// tab whose origin matches Deny is refused; with Allow set, so is every
// tab whose origin matches none of Allow. Deny wins.
type Rules struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Empty reports whether the rules restrict nothing.
func (r Rules) Empty() bool { return len(r.Allow) == 0 && len(r.Deny) == 0 }

// CheckPatterns reports the first malformed pattern.
func (r Rules) CheckPatterns() error {
	for _, list := range [][]string{r.Allow, r.Deny} {
		for _, p := range list {
			if err := checkPattern(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// Permits reports whether a tab at rawURL may be reached, and the
// pattern that decided when it may not.
func (r Rules) Permits(rawURL string) (ok bool, why string) {
	scheme, host := originOf(rawURL)
	for _, p := range r.Deny {
		if matchPattern(p, scheme, host) {
			return false, "deny " + p
		}
	}
	if len(r.Allow) == 0 || scheme == "about" {
		return true, "" // about:blank shows nothing of anyone's: a tab may start there
	}
	for _, p := range r.Allow {
		if matchPattern(p, scheme, host) {
			return true, ""
		}
	}
	return false, "not in allow"
}

// Origin returns the origin of rawURL as the audit log shows it
// ("https://example.com", "about:blank", "" when unknown).
func Origin(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return ""
	}
	if u.Host == "" {
		return u.Scheme + ":" + u.Opaque
	}
	return u.Scheme + "://" + u.Host
}

// originOf returns a URL's scheme and lower-case host (no port).
func originOf(rawURL string) (scheme, host string) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", ""
	}
	return strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
}

// checkPattern accepts "*", "host", "*.host" and the same with a scheme
// ("https://*.bank.example").
func checkPattern(p string) error {
	_, host := splitPattern(p)
	switch {
	case host == "":
		return fmt.Errorf("origin pattern %q: no host", p)
	case host == "*":
		return nil
	case strings.Contains(strings.TrimPrefix(host, "*."), "*"):
		return fmt.Errorf("origin pattern %q: a * only as the whole host or its first label (*.example.com)", p)
	case strings.ContainsAny(host, "/:?#@ "):
		return fmt.Errorf("origin pattern %q: a host (and optional scheme) only, no port or path", p)
	}
	return nil
}

func splitPattern(p string) (scheme, host string) {
	p = strings.ToLower(strings.TrimSpace(p))
	if s, h, ok := strings.Cut(p, "://"); ok {
		return s, h
	}
	return "", p
}

// matchPattern: "*" matches every URL (about:blank and data: included);
// "example.com" matches that host; "*.example.com" matches it and every
// subdomain. A scheme in the pattern must be the URL's.
func matchPattern(p, scheme, host string) bool {
	ps, ph := splitPattern(p)
	if ps != "" && ps != scheme {
		return false
	}
	switch {
	case ph == "*":
		return true
	case strings.HasPrefix(ph, "*."):
		base := ph[2:]
		return host == base || strings.HasSuffix(host, "."+base)
	}
	return host != "" && host == ph
}
