package config

import (
	"path"
	"strings"
)

// resolvePaths fills empty paths with their per-user defaults, expands a
// leading "~" and checks that every path is absolute.
func (c *Config) resolvePaths(goos, home string, getenv func(string) string, src sources) error {
	expand := func(key string, p *string) error {
		if *p == "~" || strings.HasPrefix(*p, "~/") || (goos == "windows" && strings.HasPrefix(*p, `~\`)) {
			if home == "" {
				return &KeyError{Key: key, Value: *p, Reason: "uses ~ but the home directory is unknown", Source: src[key]}
			}
			*p = joinPath(goos, home, (*p)[1:])
		}
		return nil
	}
	for _, f := range []struct {
		key string
		p   *string
	}{{keyStateDir, &c.StateDir}, {keyDataDir, &c.DataDir}, {keySocket, &c.Socket}, {keyTokenFile, &c.TokenFile}, {keyBrowser, &c.Browser}} {
		if err := expand(f.key, f.p); err != nil {
			return err
		}
	}

	explicitState := c.StateDir != ""
	if c.StateDir == "" {
		dir, ok := DefaultStateDir(goos, home, getenv)
		if !ok {
			return &KeyError{Key: keyStateDir, Value: "", Reason: "has no default: set it, or give a home directory"}
		}
		c.StateDir = dir
	}
	if c.DataDir == "" {
		// A state dir the user chose is theirs to keep: the durable files
		// stay with it, as before data_dir existed (and a test that sets
		// only state_dir never writes to the user's home). With no home
		// and no XDG_STATE_HOME there is no other place known: the state
		// dir too (the relay, started by the browser, must still start).
		dir, ok := DefaultDataDir(goos, home, getenv)
		if explicitState || !ok {
			dir = c.StateDir
		}
		c.DataDir = dir
	}
	if c.Socket == "" {
		c.Socket = joinPath(goos, c.StateDir, "relay.sock")
	}
	if c.TokenFile == "" {
		c.TokenFile = joinPath(goos, c.StateDir, "token")
	}
	for _, f := range []struct{ key, p string }{
		{keyStateDir, c.StateDir}, {keyDataDir, c.DataDir}, {keySocket, c.Socket}, {keyTokenFile, c.TokenFile},
	} {
		if !isAbs(goos, f.p) {
			return &KeyError{Key: f.key, Value: f.p, Reason: "is not an absolute path", Source: src[f.key]}
		}
	}
	return nil
}

// DefaultStateDir returns the per-user state folder used when state_dir is
// empty, and false when it cannot be known (no home directory):
//
//   - linux and other unixes: $XDG_RUNTIME_DIR/egohost, else
//     <home>/.cache/egohost/run;
//   - darwin: <home>/Library/Application Support/egohost;
//   - windows: %LOCALAPPDATA%\egohost, else <home>\AppData\Local\egohost.
func DefaultStateDir(goos, home string, getenv func(string) string) (string, bool) {
	switch goos {
	case "windows":
		if d := getenv("LOCALAPPDATA"); d != "" && isAbs(goos, d) {
			return joinPath(goos, d, "egohost"), true
		}
		if home == "" {
			return "", false
		}
		return joinPath(goos, home, "AppData", "Local", "egohost"), true
	case "darwin":
		if home == "" {
			return "", false
		}
		return joinPath(goos, home, "Library", "Application Support", "egohost"), true
	default:
		if d := getenv("XDG_RUNTIME_DIR"); d != "" && isAbs(goos, d) {
			return joinPath(goos, d, "egohost"), true
		}
		if home == "" {
			return "", false
		}
		return joinPath(goos, home, ".cache", "egohost", "run"), true
	}
}

// DefaultDataDir returns the per-user folder of durable state used when
// data_dir and state_dir are empty, and false when it cannot be known (no
// home directory: the state dir is used then):
//
//   - linux and other unixes: $XDG_STATE_HOME/egohost, else
//     <home>/.local/state/egohost (the XDG base directory spec's place for
//     state that outlives a reboot; never $XDG_RUNTIME_DIR, a tmpfs);
//   - darwin: <home>/Library/Application Support/egohost;
//   - windows: %LOCALAPPDATA%\egohost, else <home>\AppData\Local\egohost.
//
// On darwin and windows it is the default state dir too: their default
// state dir is not wiped at logout.
func DefaultDataDir(goos, home string, getenv func(string) string) (string, bool) {
	switch goos {
	case "windows", "darwin":
		return DefaultStateDir(goos, home, getenv)
	default:
		if d := getenv("XDG_STATE_HOME"); d != "" && isAbs(goos, d) {
			return joinPath(goos, d, "egohost"), true
		}
		if home == "" {
			return "", false
		}
		return joinPath(goos, home, ".local", "state", "egohost"), true
	}
}

// joinPath joins path elements with goos's separator, so that Linux tests
// can compute every OS's paths.
func joinPath(goos string, elem ...string) string {
	if goos != "windows" {
		return path.Join(elem...)
	}
	var b strings.Builder
	for i, e := range elem {
		e = strings.ReplaceAll(e, "/", `\`)
		if i > 0 {
			e = strings.Trim(e, `\`)
		}
		if e == "" {
			continue
		}
		if b.Len() > 0 && !strings.HasSuffix(b.String(), `\`) {
			b.WriteByte('\\')
		}
		b.WriteString(e)
	}
	return b.String()
}

// isAbs reports whether p is absolute on goos.
func isAbs(goos, p string) bool {
	if goos != "windows" {
		return strings.HasPrefix(p, "/")
	}
	if strings.HasPrefix(p, `\\`) {
		return true // UNC path
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		(('a' <= p[0] && p[0] <= 'z') || ('A' <= p[0] && p[0] <= 'Z'))
}
