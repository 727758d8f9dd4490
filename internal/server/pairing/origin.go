package pairing

import (
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/idna"

	"github.com/egohost/egohost/internal/server/weburl"
)

// Rules are one agent's origin rules (config: agents.origins.NAME). A
// document whose origin matches Deny is refused; with Allow set, so is
// every web document whose origin matches none of Allow. Deny wins.
// Schemes are the schemes the person granted besides the web's (file,
// data, view-source, chrome, …: weburl.Classify says which a URL needs);
// a document of a scheme not granted is refused.
type Rules struct {
	Allow   []string `json:"allow,omitempty"`
	Deny    []string `json:"deny,omitempty"`
	Schemes []string `json:"schemes,omitempty"`
}

// Empty reports whether the rules restrict nothing but the schemes.
func (r Rules) Empty() bool { return len(r.Allow) == 0 && len(r.Deny) == 0 }

// CheckPatterns reports the first malformed pattern or scheme.
func (r Rules) CheckPatterns() error {
	for _, list := range [][]string{r.Allow, r.Deny} {
		for _, p := range list {
			if err := checkPattern(p); err != nil {
				return err
			}
		}
	}
	for _, s := range r.Schemes {
		if s != "*" && !schemeName(s) {
			return fmt.Errorf("scheme %q: a scheme's name only (file, data, view-source, chrome, …) or *", s)
		}
	}
	return nil
}

// schemeName reports whether s is a URL scheme's name (a letter, then
// letters, digits, +, - or .).
func schemeName(s string) bool {
	for i, c := range s {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// Decision is what the rules say of a document.
type Decision struct {
	OK bool
	// Reason says why not: "url_kind" (its scheme was not granted),
	// "deny" (a deny pattern matched) or "allow" (no allow pattern did).
	Reason string
	// Rule is what refused it, for people: "deny *.bank.example", "not in
	// allow", "scheme file: not granted".
	Rule string
}

// ReasonOf returns the Reason of a Decision from its Rule ("" for none):
// for callers that carried only the Rule along.
func ReasonOf(rule string) string {
	switch {
	case rule == "":
		return ""
	case strings.HasPrefix(rule, "deny "):
		return "deny"
	case rule == "not in allow":
		return "allow"
	}
	return "url_kind"
}

// Permits reports whether a tab at rawURL may be reached, and the rule
// that refused it when it may not.
func (r Rules) Permits(rawURL string) (ok bool, why string) {
	d := r.Decide(rawURL, "")
	return d.OK, d.Rule
}

// Decide judges a document at rawURL whose security origin (what the page
// says is location.origin; "" when unknown, "null" when opaque) is origin.
// The URL is canonicalised first (weburl.Classify: view-source:, blob: and
// filesystem: are judged by the URL they wrap; the host lower-case, in
// punycode, without trailing dots, an IPv4 address in dotted decimal;
// ports ignored); its scheme must be granted unless it is the web's; its
// origin and the document's own origin (an about:blank or about:srcdoc
// document has its creator's) must both pass the patterns.
func (r Rules) Decide(rawURL, origin string) Decision {
	grants, inner := weburl.Classify(rawURL)
	for _, g := range grants {
		if !r.granted(g) {
			return Decision{Reason: "url_kind", Rule: "scheme " + g + ": not granted"}
		}
	}
	scheme, host, err := canonOrigin(inner)
	if err != nil {
		return Decision{Reason: "url_kind", Rule: "cannot tell its origin: " + err.Error()}
	}
	// A granted scheme's documents have no web origin for allow to list;
	// about:blank, about:srcdoc and a tab that loaded nothing yet show
	// nothing of anyone's own (their document's origin is judged below).
	web := len(grants) == 0 && host != "" && scheme != "chrome-error"
	if d := r.judge(scheme, host, web); !d.OK {
		return d
	}
	if origin == "" || origin == "null" || origin == "://" {
		return Decision{OK: true}
	}
	oscheme, ohost, err := canonOrigin(origin)
	if err != nil {
		return Decision{Reason: "url_kind", Rule: "cannot tell the document's origin: " + err.Error()}
	}
	return r.judge(oscheme, ohost, ohost != "")
}

// judge checks a canonical scheme and host against the patterns; allow
// applies to web origins only.
func (r Rules) judge(scheme, host string, web bool) Decision {
	for _, p := range r.Deny {
		if matchPattern(p, scheme, host) {
			return Decision{Reason: "deny", Rule: "deny " + p}
		}
	}
	if len(r.Allow) == 0 || !web {
		return Decision{OK: true}
	}
	for _, p := range r.Allow {
		if matchPattern(p, scheme, host) {
			return Decision{OK: true}
		}
	}
	return Decision{Reason: "allow", Rule: "not in allow"}
}

// granted reports whether the rules grant a scheme.
func (r Rules) granted(scheme string) bool {
	if scheme == weburl.NotAURL {
		return false
	}
	return slices.Contains(r.Schemes, "*") || slices.ContainsFunc(r.Schemes, func(s string) bool { return strings.EqualFold(s, scheme) })
}

// Origin returns the origin of rawURL as the audit log and errors show it,
// and as the confirmations judge and remember it ("https://example.com",
// "about:blank", "file:", "data:"; "" when unknown): the scheme and host
// lower case, without the scheme's default port; never a path, a query or
// a data: URL's content.
func Origin(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return ""
	}
	return originOf(u)
}

// Host is a URL's host, for an act in words ("shop.example"; its Origin
// when it has none: "about:blank", "data:").
func Host(rawURL string) string {
	if u, err := url.Parse(rawURL); err == nil && u.Host != "" {
		return u.Host
	}
	return Origin(rawURL)
}

// defaultPorts are the ports an origin does not spell.
var defaultPorts = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443"}

func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	if u.Host == "" {
		if scheme == "about" {
			page, _, _ := strings.Cut(u.Opaque, "#")
			return scheme + ":" + page
		}
		return scheme + ":"
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" && port != defaultPorts[scheme] {
		host += ":" + port
	}
	return scheme + "://" + host
}

// NewOrigin reports whether navigating from the document at from to the
// URL to (resolved against from when relative) loads a document of
// another origin (Origin): to is an http, https or file URL whose scheme,
// host or port is not from's, or a data: URL (its document's origin is
// opaque, new to every page, and its script may go anywhere: an agent's
// goto of a data: page that sets location would otherwise pass unasked).
// A from without such an origin (about:blank, a new tab: "") makes every
// http(s) to a new origin. javascript:, about:, blob:, mailto: and the
// like load no document of an origin of their own (or Chrome refuses
// them at the top level): false.
func NewOrigin(from, to string) bool {
	base, err := url.Parse(from)
	if err != nil {
		base = &url.URL{}
	}
	dst, err := base.Parse(strings.TrimSpace(to))
	if err != nil {
		return false // the browser does not navigate to what it cannot read
	}
	switch strings.ToLower(dst.Scheme) {
	case "http", "https", "file":
		return originOf(dst) != originOf(base)
	case "data":
		return true
	}
	return false
}

// special are the schemes whose URLs the browser reads leniently (the URL
// Standard's special schemes): backslashes are slashes, any number of
// slashes may follow the colon, tabs and newlines are dropped.
var special = map[string]bool{"http": true, "https": true, "ws": true, "wss": true, "ftp": true, "file": true}

// canonOrigin returns the scheme and host of rawURL as the browser would
// read them: lower case, the host in punycode without trailing dots, an
// IPv4 address in dotted decimal, no port. An error says the host cannot
// be read the way the browser would.
func canonOrigin(rawURL string) (scheme, host string, err error) {
	s := strings.TrimSpace(rawURL)
	name, rest, ok := strings.Cut(s, ":")
	if !ok {
		return "", "", nil
	}
	scheme = strings.ToLower(name)
	if special[scheme] {
		if strings.ContainsAny(rest, "\t\n\r\\") {
			rest = strings.Map(func(r rune) rune {
				switch r {
				case '\t', '\n', '\r':
					return -1
				case '\\':
					return '/'
				}
				return r
			}, rest)
		}
		if !strings.HasPrefix(rest, "//") || strings.HasPrefix(rest, "///") && scheme != "file" {
			rest = "//" + strings.TrimLeft(rest, "/")
		}
	}
	u, perr := url.Parse(scheme + ":" + rest)
	if perr != nil {
		if special[scheme] {
			return scheme, "", perr
		}
		return scheme, "", nil // not a host-based URL (data:, about:…): no host
	}
	host, err = CanonHost(u.Hostname())
	return scheme, host, err
}

// CanonHost returns a host name as the browser keeps it: lower case,
// punycode (IDNA) for a name with non-ASCII letters, no trailing dots, an
// IPv4 address written any way the URL Standard reads (0x7f.1,
// 2130706433) in dotted decimal.
func CanonHost(h string) (string, error) {
	h = strings.TrimRight(h, ".")
	if h == "" {
		return "", nil
	}
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		h = strings.ToLower(h)
	} else {
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return "", fmt.Errorf("host %q: %w", h, err)
		}
		h = strings.TrimRight(strings.ToLower(a), ".")
	}
	if strings.Contains(h, ":") {
		if ip, err := netip.ParseAddr(h); err == nil {
			return ip.String(), nil
		}
		return h, nil
	}
	if ip, isIP, err := parseIPv4(h); isIP {
		if err != nil {
			return "", fmt.Errorf("host %q: %w", h, err)
		}
		return ip, nil
	}
	return h, nil
}

// parseIPv4 reads a host as the URL Standard's IPv4 parser does: it is an
// address when its last label is a number (decimal, 0x hex, 0 octal); up
// to four parts, the last filling the bytes left.
func parseIPv4(h string) (ip string, isIP bool, err error) {
	if _, ok := ipv4Number(h[strings.LastIndexByte(h, '.')+1:]); !ok {
		return "", false, nil
	}
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return "", true, fmt.Errorf("more than four parts")
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return "", true, fmt.Errorf("part %q is not a number", p)
		}
		nums[i] = n
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return "", true, fmt.Errorf("out of range")
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return "", true, fmt.Errorf("out of range")
		}
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}).String(), true, nil
}

// ipv4Number reads one part of an IPv4 host: decimal, 0x hex or 0 octal.
func ipv4Number(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(p) >= 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
		if p == "" {
			return 0, true
		}
	case len(p) >= 2 && p[0] == '0':
		p, base = p[1:], 8
	}
	for i := 0; i < len(p); i++ { // only digits of base: no error to make
		c := p[i] | 0x20
		if !(c >= '0' && c <= '9' && int(c-'0') < base || base == 16 && c >= 'a' && c <= 'f') {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(p, base, 64)
	if err != nil || n > 1<<32 {
		return 0, false
	}
	return n, true
}

// checkPattern accepts "*", "host", "*.host" and the same with a scheme
// ("https://*.bank.example").
func checkPattern(p string) error {
	_, host, wild := splitPattern(p)
	if wild {
		host = "*." + host
	}
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
	if _, err := CanonHost(strings.TrimPrefix(host, "*.")); err != nil {
		return fmt.Errorf("origin pattern %q: %w", p, err)
	}
	return nil
}

// splitPattern returns a pattern's scheme ("" for any), its host
// canonical as CanonHost makes a URL's ("*" for any), and whether it
// also matches the host's subdomains (a "*." first label).
func splitPattern(p string) (scheme, host string, wild bool) {
	p = strings.TrimSpace(p)
	if s, h, ok := strings.Cut(p, "://"); ok {
		scheme, p = strings.ToLower(s), h
	}
	if p == "*" || p == "" {
		return scheme, p, false
	}
	p, wild = strings.CutPrefix(p, "*.")
	h, err := CanonHost(p)
	if err != nil {
		h = strings.ToLower(p) // checkPattern refuses it at start
	}
	return scheme, h, wild
}

// matchPattern: "*" matches every URL (about:blank and data: included);
// "example.com" matches that host; "*.example.com" matches it and every
// subdomain. A scheme in the pattern must be the URL's. host is
// canonical (CanonHost).
func matchPattern(p, scheme, host string) bool {
	ps, ph, wild := splitPattern(p)
	if ps != "" && ps != scheme {
		return false
	}
	switch {
	case ph == "*":
		return true
	case wild:
		return host == ph || len(host) > len(ph) && strings.HasSuffix(host, ph) && host[len(host)-len(ph)-1] == '.'
	}
	return host != "" && host == ph
}
