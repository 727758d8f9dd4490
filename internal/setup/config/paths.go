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
	return c.resolveAgentPaths(goos, home, getenv, src, expand)
}

// resolveAgentPaths expands and checks agents.upload_dirs and
// agents.output_dir (empty when it has no default: no home directory):
// absolute, never the state dir or the data dir or inside them (the
// service refuses those files anyway; a setting that can only fail is a
// mistake to name now).
func (c *Config) resolveAgentPaths(goos, home string, getenv func(string) string, src sources, expand func(string, *string) error) error {
	a := &c.Agents
	if err := expand(keyOutputDir, &a.OutputDir); err != nil {
		return err
	}
	if a.OutputDir == "" {
		// Without a home there is none: plain file names are refused.
		a.OutputDir, _ = DefaultOutputDir(goos, home, getenv)
	}
	check := func(key, p string) error {
		switch {
		case !isAbs(goos, p):
			return &KeyError{Key: key, Value: p, Reason: "is not an absolute path", Source: src[key]}
		case inside(goos, p, c.StateDir):
			return &KeyError{Key: key, Value: p, Reason: "is inside state_dir (" + c.StateDir + "), which no agent may reach", Source: src[key]}
		case inside(goos, p, c.DataDir):
			return &KeyError{Key: key, Value: p, Reason: "is inside data_dir (" + c.DataDir + "), which no agent may reach", Source: src[key]}
		}
		return nil
	}
	if a.OutputDir != "" {
		if err := check(keyOutputDir, a.OutputDir); err != nil {
			return err
		}
	}
	for i := range a.UploadDirs {
		if err := expand(keyUploadDirs, &a.UploadDirs[i]); err != nil {
			return err
		}
		if err := check(keyUploadDirs, a.UploadDirs[i]); err != nil {
			return err
		}
	}
	return nil
}

// DefaultOutputDir returns the folder where a plain file name is written
// when agents.output_dir is empty, and false when it cannot be known:
//
//   - linux and other unixes: $XDG_CACHE_HOME/egohost/output, else
//     <home>/.cache/egohost/output;
//   - darwin: <home>/Library/Caches/egohost/output;
//   - windows: %LOCALAPPDATA%\egohost-output (the state dir is
//     %LOCALAPPDATA%\egohost), else under <home>\AppData\Local.
func DefaultOutputDir(goos, home string, getenv func(string) string) (string, bool) {
	switch goos {
	case "windows":
		return userDir(goos, home, getenv, "LOCALAPPDATA", []string{"egohost-output"}, "AppData", "Local", "egohost-output")
	case "darwin":
		return userDir(goos, home, getenv, "", nil, "Library", "Caches", "egohost", "output")
	default:
		return userDir(goos, home, getenv, "XDG_CACHE_HOME", []string{"egohost", "output"}, ".cache", "egohost", "output")
	}
}

// inside reports whether p is dir or inside it (lexically, with goos's
// separators; case-insensitive on Windows and macOS).
func inside(goos, p, dir string) bool {
	p, dir = joinPath(goos, p), joinPath(goos, dir)
	if goos == "windows" || goos == "darwin" {
		p, dir = strings.ToLower(p), strings.ToLower(dir)
	}
	sep := "/"
	if goos == "windows" {
		sep = `\`
	}
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, sep)+sep)
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
		return userDir(goos, home, getenv, "LOCALAPPDATA", []string{"egohost"}, "AppData", "Local", "egohost")
	case "darwin":
		return userDir(goos, home, getenv, "", nil, "Library", "Application Support", "egohost")
	default:
		return userDir(goos, home, getenv, "XDG_RUNTIME_DIR", []string{"egohost"}, ".cache", "egohost", "run")
	}
}

// userDir is underEnv in the folder the environment variable env names
// when that is an absolute path (no env: none), else underHome in home,
// and false when home is not known either.
func userDir(goos, home string, getenv func(string) string, env string, underEnv []string, underHome ...string) (string, bool) {
	if env != "" {
		if d := getenv(env); d != "" && isAbs(goos, d) {
			return joinPath(goos, append([]string{d}, underEnv...)...), true
		}
	}
	if home == "" {
		return "", false
	}
	return joinPath(goos, append([]string{home}, underHome...)...), true
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
