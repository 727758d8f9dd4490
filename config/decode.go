package config

import (
	"github.com/egohost/egohost/chromeext"

	"fmt"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/viper"
)

// decoder turns viper's merged values into typed fields, collecting the
// first error.
type decoder struct {
	v   *viper.Viper
	src sources
	err error
}

func decode(v *viper.Viper, src sources) (*Config, error) {
	d := &decoder{v: v, src: src}
	c := &Config{
		Listen:              d.listen(keyListen),
		StateDir:            d.str(keyStateDir),
		Socket:              d.str(keySocket),
		TokenFile:           d.str(keyTokenFile),
		AllowedExtensionIDs: d.extensionIDs(keyAllowedIDs),
		HostName:            d.hostName(keyHostName),
		Browser:             d.str(keyBrowser),
		Timeouts: Timeouts{
			Request: d.duration(keyRequest),
			Connect: d.duration(keyConnect),
			Launch:  d.duration(keyLaunch),
			Action:  d.duration(keyAction),
		},
		Limits: Limits{
			MaxBrowserFrame: d.size(keyMaxBrowserFrame, MaxBrowserFrameLimit),
			MaxRPCMessage:   d.size(keyMaxRPCMessage, math.MaxInt),
		},
		LogLevel: d.logLevel(keyLogLevel),
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

func (d *decoder) duration(key string) time.Duration {
	s := d.str(key)
	if d.err != nil {
		return 0
	}
	dur, err := time.ParseDuration(s)
	if err != nil {
		d.fail(key, s, "is not a duration")
		return 0
	}
	if dur <= 0 {
		d.fail(key, s, "must be positive")
		return 0
	}
	return dur
}

func (d *decoder) size(key string, max int) int {
	s := d.str(key)
	if d.err != nil {
		return 0
	}
	n, err := ParseSize(s)
	if err != nil {
		d.fail(key, s, "is not a size (e.g. 1048576, 1MB, 64MiB)")
		return 0
	}
	switch {
	case n <= 0:
		d.fail(key, s, "must be positive")
		return 0
	case n > max:
		d.fail(key, s, fmt.Sprintf("exceeds the maximum of %d bytes", max))
		return 0
	}
	return n
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

func (d *decoder) extensionIDs(key string) []string {
	var ids []string
	switch val := d.v.Get(key).(type) {
	case nil:
	case string: // from the environment: comma-separated
		for id := range strings.SplitSeq(val, ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
	case []any:
		for _, item := range val {
			ids = append(ids, strings.TrimSpace(fmt.Sprint(item)))
		}
	case []string:
		ids = append(ids, val...)
	default:
		d.fail(key, fmt.Sprint(val), "is not a list of extension IDs")
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
