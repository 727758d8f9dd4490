package config

import (
	"github.com/egohost/egohost/internal/link/chromeext"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/spaces"

	"fmt"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// decoder turns the merged layers' values into typed fields, collecting
// the first error.
type decoder struct {
	v    Layers
	src  sources
	goos string // the list separator of paths from the environment
	err  error
}

func decode(v Layers, src sources, goos string) (*Config, error) {
	d := &decoder{v: v, src: src, goos: goos}
	c := &Config{
		Listen:              d.listen(keyListen),
		StateDir:            d.str(keyStateDir),
		DataDir:             d.str(keyDataDir),
		Socket:              d.str(keySocket),
		TokenFile:           d.str(keyTokenFile),
		AllowedExtensionIDs: d.extensionIDs(keyAllowedIDs),
		HostName:            d.hostName(keyHostName),
		Browser:             d.str(keyBrowser),
		Timeouts: Timeouts{
			Request:       d.duration(keyRequest),
			Connect:       d.duration(keyConnect),
			Launch:        d.duration(keyLaunch),
			Action:        d.duration(keyAction),
			Reconnect:     d.duration(keyReconnect),
			ReconnectWait: d.duration(keyReconnectWait),
			Script:        d.duration(keyScript),
			ScriptMax:     d.duration(keyScriptMax),
			Confirm:       d.duration(keyConfirmTimeout),
		},
		Limits: Limits{
			MaxBrowserFrame: d.size(keyMaxBrowserFrame, MaxBrowserFrameLimit),
			MaxRPCMessage:   d.size(keyMaxRPCMessage, math.MaxInt),
			MaxInFlight:     d.count(keyMaxInFlight, MaxInFlightLimit),
			ScriptMemory:    d.size(keyScriptMemory, math.MaxInt),
			ScriptOutput:    d.size(keyScriptOutput, math.MaxInt),
		},
		Agents: Agents{
			AllTabs:        d.agentNames(keyAllTabs),
			UploadDirs:     d.paths(keyUploadDirs),
			UploadMaxBytes: d.size(keyUploadMaxBytes, math.MaxInt),
			OutputDir:      d.str(keyOutputDir),
			Confirm:        d.confirmRules(keyConfirm),
			ConfirmWords:   d.words(keyConfirmWords),
		},
		AgentOrigins: d.origins(keyAgentOrigins),
		AuditMaxSize: d.size(keyAuditMaxSize, math.MaxInt),
		AuditKeep:    d.count(keyAuditKeep, MaxAuditKeep),
		Trace: Trace{
			Enabled:  d.flag(keyTraceEnabled),
			Agents:   d.agentNames(keyTraceAgents),
			MaxBytes: d.size(keyTraceMaxBytes, math.MaxInt),
			MaxAge:   d.age(keyTraceMaxAge),
		},
		LogLevel: d.logLevel(keyLogLevel),
	}
	if d.err == nil && c.Timeouts.ReconnectWait > c.Timeouts.Reconnect {
		d.fail(keyReconnectWait, c.Timeouts.ReconnectWait.String(), "exceeds timeouts.reconnect ("+c.Timeouts.Reconnect.String()+")")
	}
	if d.err == nil && c.Timeouts.Script > c.Timeouts.ScriptMax {
		d.fail(keyScript, c.Timeouts.Script.String(), "exceeds timeouts.script_max ("+c.Timeouts.ScriptMax.String()+")")
	}
	if d.err != nil {
		return nil, d.err
	}
	return c, nil
}

func (d *decoder) fail(key, value, reason string) {
	if d.err == nil {
		d.err = &KeyError{Key: key, Value: value, Reason: reason, Source: d.src[key]}
	}
}

// str returns a scalar value as a string.
func (d *decoder) str(key string) string {
	switch val := d.v.Get(key).(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(val)
	case bool, int, int64, uint64, float64:
		return fmt.Sprint(val)
	default:
		d.fail(key, fmt.Sprint(val), "is not a single value")
		return ""
	}
}

// flag reads a boolean: true or false (also 1, 0, yes, no, on, off).
func (d *decoder) flag(key string) bool {
	if b, ok := d.v.Get(key).(bool); ok {
		return b
	}
	s := d.str(key)
	switch strings.ToLower(s) {
	case "true", "1", "yes", "on":
		return true
	case "false", "0", "no", "off", "":
		return false
	}
	d.fail(key, s, "is not true or false")
	return false
}

func (d *decoder) listen(key string) string {
	s := d.str(key)
	if d.err != nil {
		return ""
	}
	if err := checkLoopback(s); err != nil {
		d.fail(key, s, err.Error())
		return ""
	}
	return s
}

// checkLoopback accepts host:port where host is localhost or a loopback IP.
func checkLoopback(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("is not host:port")
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p > math.MaxUint16 {
		return fmt.Errorf("has no valid port (0-65535)")
	}
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	addr, err := netip.ParseAddr(host)
	if err != nil || addr.Zone() != "" || !addr.Unmap().IsLoopback() {
		return fmt.Errorf("is not a loopback address (use 127.0.0.1, ::1 or localhost)")
	}
	return nil
}

// parsed reads a scalar with parse: a value parse refuses fails with
// notA ("is not a duration …"), a parsed one with what check says is
// wrong with it ("" when nothing is).
func parsed[T any](d *decoder, key string, parse func(string) (T, error), notA string, check func(T) string) T {
	var zero T
	s := d.str(key)
	if d.err != nil {
		return zero
	}
	v, err := parse(s)
	if err != nil {
		d.fail(key, s, notA)
		return zero
	}
	if why := check(v); why != "" {
		d.fail(key, s, why)
		return zero
	}
	return v
}

func (d *decoder) duration(key string) time.Duration {
	return parsed(d, key, ParseDuration, "is not a duration (e.g. 5000 for milliseconds, 500ms, 10s)", func(dur time.Duration) string {
		if dur <= 0 {
			return "must be positive"
		}
		return ""
	})
}

// age returns a duration that may be 0 (for "never"), in the units
// duration takes or in days ("7d").
func (d *decoder) age(key string) time.Duration {
	return parsed(d, key, parseAge, "is not an age (e.g. 7d, 36h, 0 for never)", func(dur time.Duration) string {
		if dur < 0 {
			return "must not be negative"
		}
		return ""
	})
}

// parseAge parses a whole number of days ("7d") or what ParseDuration
// takes.
func parseAge(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(t, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n > math.MaxInt64/int64(24*time.Hour) || n < math.MinInt64/int64(24*time.Hour) {
			return 0, fmt.Errorf("parse age %q: want a whole number of days (7d)", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	return ParseDuration(s)
}

// ParseDuration parses a duration: a whole number of milliseconds
// ("1500", as Playwright takes timeouts) or a Go duration ("1.5s",
// "500ms", "2m"). Surrounding white space is ignored; the sign is kept
// (callers decide whether zero or negative is allowed).
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n > math.MaxInt64/int64(time.Millisecond) || n < math.MinInt64/int64(time.Millisecond) {
			return 0, fmt.Errorf("parse duration %q: too large", s)
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, fmt.Errorf("parse duration %q: want milliseconds (1500) or a duration (1.5s, 500ms)", s)
	}
	return d, nil
}

func (d *decoder) size(key string, max int) int {
	return parsed(d, key, ParseSize, "is not a size (e.g. 1048576, 1MB, 64MiB)", upTo(max, " bytes"))
}

// count returns a whole number from 1 to max.
func (d *decoder) count(key string, max int) int {
	return parsed(d, key, strconv.Atoi, "is not a whole number", upTo(max, ""))
}

// upTo is parsed's check of a number from 1 to max; unit follows max in
// the reason (" bytes").
func upTo(max int, unit string) func(n int) string {
	return func(n int) string {
		switch {
		case n <= 0:
			return "must be positive"
		case n > max:
			return fmt.Sprintf("exceeds the maximum of %d%s", max, unit)
		}
		return ""
	}
}

// sizeUnit returns the multiplier of a lower-case unit: SI units are
// powers of 1000, IEC units (KiB, MiB, GiB) powers of 1024.
func sizeUnit(unit string) (uint64, bool) {
	switch unit {
	case "", "b":
		return 1, true
	case "k", "kb":
		return 1000, true
	case "kib":
		return 1 << 10, true
	case "m", "mb":
		return 1000 * 1000, true
	case "mib":
		return 1 << 20, true
	case "g", "gb":
		return 1000 * 1000 * 1000, true
	case "gib":
		return 1 << 30, true
	}
	return 0, false
}

// ParseSize parses a byte count: a plain number ("1048576") or a number
// with a unit, SI ("1MB" = 1,000,000) or IEC ("64MiB" = 67,108,864).
// Units are case-insensitive.
func ParseSize(s string) (int, error) {
	t := strings.TrimSpace(s)
	digits := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	if digits < 0 {
		digits = len(t)
	}
	if digits == 0 {
		return 0, fmt.Errorf("parse size %q: want a number with an optional unit", s)
	}
	unit := strings.ToLower(strings.TrimSpace(t[digits:]))
	mult, ok := sizeUnit(unit)
	if !ok {
		return 0, fmt.Errorf("parse size %q: unknown unit %q", s, t[digits:])
	}
	n, err := strconv.ParseUint(t[:digits], 10, 64)
	if err != nil || n > math.MaxInt/mult {
		return 0, fmt.Errorf("parse size %q: too large", s)
	}
	return int(n * mult), nil
}

// list reads a list of values (a YAML list, or comma-separated from the
// environment), each trimmed; what names the values in the error when
// the setting is not a list. It reports false once it has failed.
func (d *decoder) list(key, what string) ([]string, bool) {
	var out []string
	switch val := d.v.Get(key).(type) {
	case nil:
	case string:
		for s := range strings.SplitSeq(val, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	case []any:
		for _, item := range val {
			out = append(out, strings.TrimSpace(fmt.Sprint(item)))
		}
	case []string:
		out = append(out, val...)
	default:
		d.fail(key, fmt.Sprint(val), "is not a list of "+what)
		return nil, false
	}
	return out, true
}

func (d *decoder) extensionIDs(key string) []string {
	ids, ok := d.list(key, "extension IDs")
	if !ok {
		return nil
	}
	if len(ids) == 0 {
		d.fail(key, "", "must name at least one extension ID")
		return nil
	}
	for _, id := range ids {
		if !chromeext.ValidID(id) {
			d.fail(key, id, "is not an extension ID (32 letters a-p)")
			return nil
		}
	}
	return ids
}

// byAgent reads a map keyed by agent name: nil when the setting is unset
// or is not such a map (an error whose what names its values).
func (d *decoder) byAgent(key, what string) map[string]any {
	raw, ok := d.v.Get(key).(map[string]any)
	if !ok {
		if v := d.v.Get(key); v != nil && fmt.Sprint(v) != "map[]" {
			d.fail(key, fmt.Sprint(v), "is not a map of agent names to "+what)
		}
		return nil
	}
	return raw
}

// origins decodes agents.origins: agent name → {allow, deny} lists of
// origin patterns and a schemes list (checked by the service at start).
func (d *decoder) origins(key string) map[string]OriginRules {
	out := make(map[string]OriginRules)
	raw := d.byAgent(key, "{allow, deny}")
	for name, v := range raw {
		m, ok := v.(map[string]any)
		if !ok {
			d.fail(key+"."+name, fmt.Sprint(v), "is not {allow: [...], deny: [...], schemes: [...]}")
			return out
		}
		var r OriginRules
		for field, list := range m {
			items, ok := list.([]any)
			if !ok {
				d.fail(key+"."+name+"."+field, fmt.Sprint(list), "is not a list of origin patterns")
				return out
			}
			for _, it := range items {
				pat, ok := it.(string)
				if !ok || strings.TrimSpace(pat) == "" {
					d.fail(key+"."+name+"."+field, fmt.Sprint(it), "is not an origin pattern")
					return out
				}
				switch field {
				case "allow":
					r.Allow = append(r.Allow, pat)
				case "schemes":
					r.Schemes = append(r.Schemes, strings.TrimSuffix(strings.TrimSpace(pat), ":"))
				default:
					r.Deny = append(r.Deny, pat)
				}
			}
		}
		out[name] = r
	}
	return out
}

// confirmRules decodes agents.confirm: agent name (or "default") → a list
// of {origins: [patterns], actions: [kinds]}. An agent's empty list asks
// nothing of it.
func (d *decoder) confirmRules(key string) map[string][]confirm.Rule {
	out := make(map[string][]confirm.Rule)
	raw := d.byAgent(key, "lists of {origins, actions}")
	for name, v := range raw {
		k := key + "." + name
		if name != confirm.DefaultAgent {
			if err := spaces.CheckName(name); err != nil {
				d.fail(k, name, "is not an agent name (letters, digits, '.', '_', '-'; at most 32) or default")
				return out
			}
		}
		list, ok := v.([]any)
		if !ok {
			d.fail(k, fmt.Sprint(v), "is not a list of {origins: [...], actions: [...]}")
			return out
		}
		rules := []confirm.Rule{}
		for _, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				d.fail(k, fmt.Sprint(item), "is not {origins: [...], actions: [...]}")
				return out
			}
			var r confirm.Rule
			for field, val := range m {
				vals, ok := val.([]any)
				if !ok || field != "origins" && field != "actions" {
					d.fail(k+"."+field, fmt.Sprint(val), "is not origins: [patterns] or actions: [kinds]")
					return out
				}
				for _, it := range vals {
					s, ok := it.(string)
					if !ok || strings.TrimSpace(s) == "" {
						d.fail(k+"."+field, fmt.Sprint(it), "is not a string")
						return out
					}
					if field == "origins" {
						r.Origins = append(r.Origins, strings.TrimSpace(s))
						continue
					}
					kind, err := confirm.ParseKind(s)
					if err != nil {
						d.fail(k+".actions", s, err.Error())
						return out
					}
					r.Actions = append(r.Actions, kind)
				}
			}
			if len(r.Origins) == 0 || len(r.Actions) == 0 {
				d.fail(k, fmt.Sprint(item), "needs both origins and actions (origins: [\"*\"] for every origin)")
				return out
			}
			rules = append(rules, r)
		}
		out[name] = rules
	}
	return out
}

// words reads a list of words (a YAML list, or comma-separated from the
// environment); none may be empty or hold a space.
func (d *decoder) words(key string) []string {
	out, ok := d.list(key, "words")
	if !ok {
		return nil
	}
	for _, w := range out {
		if w == "" || strings.ContainsFunc(w, unicode.IsSpace) {
			d.fail(key, w, "is not one word")
			return nil
		}
	}
	return out
}

func (d *decoder) hostName(key string) string {
	s := d.str(key)
	if d.err != nil {
		return ""
	}
	if !chromeext.ValidHostName(s) {
		d.fail(key, s, "is not a native messaging host name ([a-z0-9_.], no leading, trailing or double dot)")
		return ""
	}
	return s
}

func (d *decoder) logLevel(key string) slog.Level {
	s := d.str(key)
	if d.err != nil {
		return 0
	}
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug
	case "info":
		return slog.LevelInfo
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	d.fail(key, s, "is not a log level (debug, info, warn, error)")
	return 0
}

// agentNames reads a list of agent names (a YAML list, or comma-separated
// from the environment); it may be empty.
func (d *decoder) agentNames(key string) []string {
	names, ok := d.list(key, "agent names")
	if !ok {
		return nil
	}
	for _, n := range names {
		if err := spaces.CheckName(n); err != nil {
			d.fail(key, n, "is not an agent name (letters, digits, '.', '_', '-'; at most 32)")
			return nil
		}
	}
	return names
}

// paths reads a list of paths (a YAML list, or from the environment
// separated as in PATH: ":", ";" on Windows); it may be empty.
// resolvePaths checks them.
func (d *decoder) paths(key string) []string {
	sep := ":"
	if d.goos == "windows" {
		sep = ";"
	}
	var out []string
	switch val := d.v.Get(key).(type) {
	case nil:
	case string:
		for p := range strings.SplitSeq(val, sep) {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	case []any:
		for _, item := range val {
			p, ok := item.(string)
			if !ok || strings.TrimSpace(p) == "" {
				d.fail(key, fmt.Sprint(item), "is not a path")
				return nil
			}
			out = append(out, strings.TrimSpace(p))
		}
	case []string:
		out = append(out, val...)
	default:
		d.fail(key, fmt.Sprint(val), "is not a list of folders")
		return nil
	}
	return out
}
