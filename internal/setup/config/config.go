// Package config loads egohost's configuration: the defaults shipped in
// config.yaml, then a user file, then EGOHOST_* environment variables, each
// overriding the one before. It resolves empty paths to per-user defaults and
// validates every value, so the rest of the program receives a Config it can
// trust.
//
// The package reads nothing from the process's environment by itself: the
// caller passes the environment, the home directory and the OS in Options,
// which keeps tests hermetic.
package config

import (
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/egohost/egohost"
	"github.com/egohost/egohost/internal/server/confirm"
)

// MaxBrowserFrameLimit is the largest accepted value of
// limits.max_browser_frame: Chrome itself refuses to post a message of
// 64 MiB or more, so a larger cap would only delay the failure.
const MaxBrowserFrameLimit = 64 << 20

// EnvPrefix starts the name of every environment variable that overrides a
// key, e.g. EGOHOST_TIMEOUTS_REQUEST for timeouts.request.
const EnvPrefix = "EGOHOST_"

// EnvConfigFile names the environment variable that points at the user file
// when Options.File is empty.
const EnvConfigFile = "EGOHOST_CONFIG"

// Config is egohost's validated configuration, with every path resolved.
type Config struct {
	// Listen is the loopback host:port of the agents' WebSocket.
	Listen string
	// StateDir holds the service's live files: the relay socket, the
	// owner token and service.json (a runtime folder: it may be wiped at
	// logout).
	StateDir string
	// DataDir holds what must outlive a logout: the paired agents and
	// their tokens, the known browsers, the spaces, the ref counter and
	// the audit log. Empty in the configuration: state_dir when that is
	// set, else DefaultDataDir.
	DataDir string
	// Socket is the relay <-> service socket path.
	Socket string
	// TokenFile is the agents' bearer token file.
	TokenFile string
	// AllowedExtensionIDs are the extension IDs allowed to use the host.
	AllowedExtensionIDs []string
	// HostName is the native messaging host name (manifest file name).
	HostName string
	// Browser is the browser binary for `egohost launch`; empty means
	// look for one.
	Browser string
	// Timeouts groups the timeouts.* keys.
	Timeouts Timeouts
	// Limits groups the limits.* keys.
	Limits Limits
	// Agents groups the agents.* keys.
	Agents Agents
	// AgentOrigins are the paired agents' origin rules by agent name
	// ("*": every paired agent), agents.origins.
	AgentOrigins map[string]OriginRules
	// AuditMaxSize is the audit log's size before it rotates, audit.max_size.
	AuditMaxSize int
	// AuditKeep is how many rotated audit files are kept, audit.keep.
	AuditKeep int
	// Trace groups the trace.* keys.
	Trace Trace
	// LogLevel is the minimum level logged.
	LogLevel slog.Level
	// File is the user config file that was read, or "" if none was.
	File string
}

// Agents holds the agents.* keys.
type Agents struct {
	// AllTabs names the agents the user granted every tab: they may act
	// on tabs outside their own spaces (never on a space the person took
	// over).
	AllTabs []string
	// UploadDirs are the folders whose files a paired agent may upload
	// by path (agents.upload_dirs); absolute.
	UploadDirs []string
	// UploadMaxBytes caps the bytes of one upload (agents.upload_max_bytes).
	UploadMaxBytes int
	// OutputDir is where a plain file name is written (agents.output_dir);
	// absolute, never inside StateDir.
	OutputDir string
	// Confirm is the confirmation policy by agent name
	// (confirm.DefaultAgent: every paired agent without an entry of its
	// own), agents.confirm. Its origin patterns are checked by the
	// service at start, as agents.origins' are.
	Confirm map[string][]confirm.Rule
	// ConfirmWords make a click a purchase when its element's accessible
	// name has one (agents.confirm_words).
	ConfirmWords []string
}

// Trace holds the trace.* keys.
type Trace struct {
	// Enabled starts a trace when the service starts (trace.enabled).
	Enabled bool
	// Agents are the agents traced (trace.agents); none: every agent.
	Agents []string
	// MaxBytes bounds a trace file (trace.max_bytes): past it, no more
	// screenshots.
	MaxBytes int
	// MaxAge: the service deletes traces older than it when it starts and
	// when a trace starts (trace.max_age); 0 keeps them forever.
	MaxAge time.Duration
}

// Timeouts holds the timeouts.* keys. Every one is positive.
type Timeouts struct {
	Request time.Duration // one agent request, end to end
	Connect time.Duration // relay -> service dial, client -> service dial
	Launch  time.Duration // browser start until the link is up
	Action  time.Duration // default auto-wait for actions and resolution
	// Reconnect is how long after a known browser's link drops the
	// service waits for it to come back (instead of answering no_browser).
	Reconnect time.Duration
	// ReconnectWait is how long one call that needs a reconnecting
	// browser waits for it before failing with browser_reconnecting (at
	// most Reconnect).
	ReconnectWait time.Duration
	// Script is a script's default wall-clock limit; ScriptMax the
	// longest one may ask for (at least Script).
	Script    time.Duration
	ScriptMax time.Duration
	// Confirm is how long a call waits for the person's answer to a
	// confirmation (agents.confirm) when its own timeout is shorter.
	Confirm time.Duration
}

// Limits holds the limits.* keys. Every one is positive.
type Limits struct {
	MaxBrowserFrame int // browser -> host frame cap in bytes, at most 64 MiB
	MaxRPCMessage   int // agent <-> service WebSocket message cap in bytes
	// MaxInFlight is how many requests one agent connection may have
	// running at once (at most MaxInFlightLimit); the service reads no
	// more of that connection until one ends.
	MaxInFlight  int
	ScriptMemory int // heap growth a running script may cause
	ScriptOutput int // a script's console output cap
}

// OriginRules are one agent's origin patterns (agents.origins.NAME), and
// the URL schemes besides the web's the person granted it (file, data,
// view-source, chrome, …).
type OriginRules struct {
	Allow   []string
	Deny    []string
	Schemes []string
}

// MaxInFlightLimit is the largest accepted value of limits.max_in_flight.
const MaxInFlightLimit = 4096

// MaxAuditKeep is the largest accepted value of audit.keep.
const MaxAuditKeep = 100

// Options tells Load where to look. The zero value loads the defaults only,
// resolved for the running OS with no home directory and no environment.
type Options struct {
	// File is an explicit user config file (the --config flag). When
	// empty, $EGOHOST_CONFIG is used, else <Home>/.config/egohost/config.yaml
	// if it exists. An explicit or $EGOHOST_CONFIG file must exist.
	File string
	// Getenv looks up an environment variable; "" means unset. Pass
	// os.Getenv in production. Nil means an empty environment.
	Getenv func(string) string
	// Home is the user's home directory (os.UserHomeDir in production).
	Home string
	// GOOS selects the per-OS default paths; empty means runtime.GOOS.
	GOOS string
}

// Keys of the configuration, as written in config.yaml.
const (
	keyListen          = "listen"
	keyStateDir        = "state_dir"
	keyDataDir         = "data_dir"
	keySocket          = "socket"
	keyTokenFile       = "token_file"
	keyAllowedIDs      = "allowed_extension_ids"
	keyHostName        = "host_name"
	keyBrowser         = "browser"
	keyRequest         = "timeouts.request"
	keyConnect         = "timeouts.connect"
	keyLaunch          = "timeouts.launch"
	keyAction          = "timeouts.action"
	keyReconnect       = "timeouts.reconnect"
	keyReconnectWait   = "timeouts.reconnect_wait"
	keyMaxBrowserFrame = "limits.max_browser_frame"
	keyMaxRPCMessage   = "limits.max_rpc_message"
	keyMaxInFlight     = "limits.max_in_flight"
	keyScript          = "timeouts.script"
	keyScriptMax       = "timeouts.script_max"
	keyScriptMemory    = "limits.script_memory"
	keyScriptOutput    = "limits.script_output"
	keyLogLevel        = "log_level"
	keyAllTabs         = "agents.all_tabs"
	keyAgentOrigins    = "agents.origins"
	keyUploadDirs      = "agents.upload_dirs"
	keyUploadMaxBytes  = "agents.upload_max_bytes"
	keyOutputDir       = "agents.output_dir"
	keyAuditMaxSize    = "audit.max_size"
	keyConfirm         = "agents.confirm"
	keyConfirmWords    = "agents.confirm_words"
	keyConfirmTimeout  = "timeouts.confirm"
	keyAuditKeep       = "audit.keep"
	keyTraceEnabled    = "trace.enabled"
	keyTraceAgents     = "trace.agents"
	keyTraceMaxBytes   = "trace.max_bytes"
	keyTraceMaxAge     = "trace.max_age"
)

// EnvVar returns the environment variable that overrides key, e.g.
// EGOHOST_TIMEOUTS_REQUEST for "timeouts.request".
func EnvVar(key string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// DefaultFile returns the user config file looked for when neither
// Options.File nor $EGOHOST_CONFIG names one.
func DefaultFile(goos, home string) string {
	return joinPath(goos, home, ".config", "egohost", "config.yaml")
}

// Layers reads the configuration's files and holds its merged layers:
// the defaults, then the user file merged over them, then the environment
// set over both. viper is the service's (internal/setup/config/viperconfig: the project's
// config reader); the CLI's are plain maps (NewMapLayers), so that a call
// an agent makes per step does not link and start viper. Load is the same
// for both; a test holds them to the same Config.
type Layers interface {
	// Defaults reads the defaults (YAML).
	Defaults(yaml []byte) error
	// Keys lists the dotted keys the defaults have.
	Keys() []string
	// Parse reads a user file of format (yaml, json or toml) into nested
	// settings with lower-case keys.
	Parse(format string, data []byte) (map[string]any, error)
	// Merge merges a user file's settings over the defaults.
	Merge(settings map[string]any) error
	// Set overrides key with an environment variable's value.
	Set(key, value string)
	// Get is key's value: the environment's, else the user file's, else
	// the default (a nested section is a map[string]any).
	Get(key string) any
}

// Load reads the defaults, the user file and the environment, in that
// order of increasing precedence, and returns the validated result.
// Every error names the offending key (and file, for unknown keys). It
// reads the files with plain maps (NewMapLayers); LoadWith takes others.
func Load(opts Options) (*Config, error) { return LoadWith(opts, NewMapLayers()) }

// LoadWith is Load, reading and merging the layers with l.
func LoadWith(opts Options, l Layers) (*Config, error) {
	if opts.GOOS == "" {
		opts.GOOS = runtime.GOOS
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}

	if err := l.Defaults(egohost.DefaultConfig()); err != nil {
		return nil, fmt.Errorf("config: read defaults: %w", err)
	}
	known := l.Keys()
	slices.Sort(known)

	src := sources{}
	file, err := userFile(opts, getenv)
	if err != nil {
		return nil, err
	}
	if file != "" {
		settings, err := readUserFile(l, file, known)
		if err != nil {
			return nil, err
		}
		if err := l.Merge(settings); err != nil {
			return nil, fmt.Errorf("config: merge %s: %w", file, err)
		}
		for _, k := range flatKeys(settings, "") {
			src[k] = file
		}
	}

	for _, k := range known {
		name := EnvVar(k)
		if val := getenv(name); val != "" {
			l.Set(k, val)
			src[k] = "$" + name
		}
	}

	c, err := decode(l, src, opts.GOOS)
	if err != nil {
		return nil, err
	}
	c.File = file
	if err := c.resolvePaths(opts.GOOS, opts.Home, getenv, src); err != nil {
		return nil, err
	}
	return c, nil
}

// sources records where each overridden key was set, for error messages.
type sources map[string]string

// userFile picks the user config file, or "" if there is none.
func userFile(opts Options, getenv func(string) string) (string, error) {
	if opts.File != "" {
		return opts.File, nil
	}
	if f := getenv(EnvConfigFile); f != "" {
		return f, nil
	}
	if opts.Home == "" {
		return "", nil
	}
	f := DefaultFile(opts.GOOS, opts.Home)
	if _, err := os.Stat(f); err != nil {
		if os.IsNotExist(err) {
			return "", nil
		}
		return "", fmt.Errorf("config: stat %s: %w", f, err)
	}
	return f, nil
}

// readUserFile parses a user file and refuses keys the defaults do not
// have: a typo must not be silently ignored.
func readUserFile(l Layers, file string, known []string) (map[string]any, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("config: read user file: %w", err)
	}
	format := "yaml"
	switch ext := strings.ToLower(path.Ext(strings.ReplaceAll(file, `\`, "/"))); ext {
	case ".json", ".toml", ".yml":
		format = ext[1:]
	}
	settings, err := l.Parse(format, data)
	if err != nil {
		return nil, fmt.Errorf("config: parse %s: %w", file, err)
	}
	for _, k := range flatKeys(settings, "") {
		if _, ok := slices.BinarySearch(known, k); ok {
			continue
		}
		if originKey(k) {
			continue // agents.origins.NAME.allow|deny: names are the user's
		}
		if name, ok := strings.CutPrefix(k, keyConfirm+"."); ok && !strings.Contains(name, ".") {
			continue // agents.confirm.NAME: a list of rules
		}
		if isSection(k, known) {
			return nil, fmt.Errorf("config: %s: %q is a section: set its keys (%s)", file, k, strings.Join(sectionKeys(k, known), ", "))
		}
		return nil, &UnknownKeyError{File: file, Key: k}
	}
	return settings, nil
}

// flatKeys lists the dotted leaf keys of a nested settings map. An empty
// nested map contributes nothing.
func flatKeys(m map[string]any, prefix string) []string {
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		full := prefix + k
		if sub, ok := m[k].(map[string]any); ok {
			keys = append(keys, flatKeys(sub, full+".")...)
			continue
		}
		keys = append(keys, full)
	}
	return keys
}

// originKey reports whether k is agents.origins.NAME.allow, .deny or
// .schemes.
func originKey(k string) bool {
	rest, ok := strings.CutPrefix(k, keyAgentOrigins+".")
	if !ok {
		return false
	}
	i := strings.LastIndex(rest, ".")
	return i > 0 && (rest[i+1:] == "allow" || rest[i+1:] == "deny" || rest[i+1:] == "schemes")
}

func isSection(k string, known []string) bool {
	return len(sectionKeys(k, known)) > 0
}

func sectionKeys(k string, known []string) []string {
	var keys []string
	for _, kk := range known {
		if strings.HasPrefix(kk, k+".") {
			keys = append(keys, kk)
		}
	}
	return keys
}

// KeyError reports a bad value for a key.
type KeyError struct {
	Key    string // dotted key, e.g. "timeouts.request"
	Value  string // the value as given
	Reason string // e.g. "is not a duration"
	Source string // where the value came from: a file, "$EGOHOST_…", or "" for the defaults
}

// Error implements error: `config: timeouts.request: "abc" is not a
// duration (from $EGOHOST_TIMEOUTS_REQUEST)`.
func (e *KeyError) Error() string {
	msg := fmt.Sprintf("config: %s: %q %s", e.Key, e.Value, e.Reason)
	if e.Source != "" {
		msg += " (from " + e.Source + ")"
	}
	return msg
}

// UnknownKeyError reports a key in a user file that egohost does not know.
type UnknownKeyError struct {
	File string
	Key  string
}

// Error implements error.
func (e *UnknownKeyError) Error() string {
	return fmt.Sprintf("config: %s: unknown key %q", e.File, e.Key)
}
