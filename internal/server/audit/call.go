package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/egohost/egohost/protocol"
)

// CallEntry picks from a call's params (their members, as the call parsed
// them once) what the audit log may show: the target (a locator or @ref),
// a named key, the destination without its query; of text, prompts and
// scripts only a length (and a script's hash). Never a value. It reads
// the members whether or not they decode into the method's params; the
// caller fills who, where, how it ended and how long it took.
func CallEntry(method string, params map[string]json.RawMessage) Entry {
	var e Entry
	e.Method = method
	in := members(params)
	e.Target, _ = in.str("target")
	if to, _ := in.str("to"); to != "" {
		e.Target += " -> " + to
	}
	length := func(s string) *int { n := utf8.RuneCountInString(s); return &n }
	if v, ok := in.str("text"); ok {
		e.Length = length(v)
	} else if v, ok := in.str("promptText"); ok {
		e.Length = length(v)
	} else if v, ok := in.str("expression"); ok {
		e.Length, e.SHA256 = length(v), protocol.TokenHash(v)
	} else if v, ok := in.str("function"); ok {
		e.Length, e.SHA256 = length(v), protocol.TokenHash(v)
	} else if v, ok := in.str("data"); ok { // debug.echo: up to 16 MiB, no []rune copy
		e.Length = length(v)
	}
	if key, _ := in.str("key"); key != "" {
		if utf8.RuneCountInString(key) > 1 && !strings.Contains(key, " ") {
			e.Key = key // a named key or combo: Enter, Control+a
		} else {
			e.Length = length(key)
		}
	}
	switch method {
	case protocol.MethodCDPSend:
		e.Target, _ = in.str("method") // the CDP method, never its params
	case protocol.MethodCookiesGet, protocol.MethodCookiesSet, protocol.MethodCookiesClear:
		e.Target, _ = in.str("name") // the cookie's name, never its value
	case protocol.MethodFormFill:
		e.Target, e.Length = formFields(params["fields"]) // the fields' targets; of their text, a length
	}
	if u, _ := in.str("url"); u != "" {
		e.URL = StripQuery(u)
	}
	return e
}

// members are a call's params by name.
type members map[string]json.RawMessage

// str is the string member name, "" when it is absent or no string; ok
// reports whether it is a string.
func (in members) str(name string) (v string, ok bool) {
	m, present := in[name]
	if !present || len(m) == 0 || m[0] != '"' {
		return "", false
	}
	if v, ok := plainString(m); ok {
		return v, true
	}
	if json.Unmarshal(m, &v) != nil {
		return "", false
	}
	return v, true
}

// plainString is the JSON string m when it needs no decoding: quoted, and
// inside no escape, quote or control character and nothing but valid
// UTF-8 (which json.Unmarshal would replace). It is then what
// json.Unmarshal returns, without its two passes over a text that can be
// 16 MiB (debug.echo's data, an upload's base64, a script). ok is false
// for any other m. Not cdproto's faster JSON, as the service's other hot
// decodes use: the CLI links this package, and keeps cdproto out of its
// start (cmd/egohost's TestFrontLinksNoHeavyPackage).
func plainString(m []byte) (string, bool) {
	if len(m) < 2 || m[0] != '"' || m[len(m)-1] != '"' {
		return "", false
	}
	inner := m[1 : len(m)-1]
	if bytes.IndexByte(inner, '\\') >= 0 || bytes.IndexByte(inner, '"') >= 0 || !utf8.Valid(inner) {
		return "", false
	}
	for _, c := range inner {
		if c < 0x20 {
			return "", false
		}
	}
	return string(inner), true
}

// formFields is what the audit log shows of form.fill's fields: how many,
// then each one's action and target, each target cut to its share of the
// line (an agent cannot push a later field out of it with a long first
// one), and the characters of their text and values together (never the
// text itself).
func formFields(raw json.RawMessage) (string, *int) {
	var fields []struct {
		Target string   `json:"target"`
		Action string   `json:"action"`
		Text   string   `json:"text"`
		Values []string `json:"values"`
	}
	if json.Unmarshal(raw, &fields) != nil || len(fields) == 0 {
		return "", nil
	}
	share := MaxField/len(fields) - 12 // "N fields: " and "; " between them
	parts := make([]string, len(fields))
	n := 0
	for i, f := range fields {
		parts[i] = CutTo(f.Action, 32) + " " + CutTo(f.Target, share)
		n += utf8.RuneCountInString(f.Text)
		for _, v := range f.Values {
			n += utf8.RuneCountInString(v)
		}
	}
	return fmt.Sprintf("%d fields: %s", len(fields), strings.Join(parts, "; ")), &n
}

// StripQuery drops a URL's query, fragment and user info (they may carry
// tokens); "" when it does not parse.
func StripQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}
