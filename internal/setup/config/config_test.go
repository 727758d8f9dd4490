package config

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/server/confirm"
)

const testID = "aokapgkciafkaelljglcdibalbfomkdb"

// env returns a Getenv over m.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// writeFile writes content to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// defaults is config.yaml's content for a linux user with home and no
// XDG_RUNTIME_DIR.
func defaults(home string) *Config {
	run := home + "/.cache/egohost/run"
	return &Config{
		Listen:              "127.0.0.1:47821",
		StateDir:            run,
		DataDir:             home + "/.local/state/egohost",
		Socket:              run + "/relay.sock",
		TokenFile:           run + "/token",
		AllowedExtensionIDs: []string{testID},
		HostName:            "com.egohost.host",
		Browser:             "",
		Timeouts: Timeouts{
			Request:       30 * time.Second,
			Connect:       5 * time.Second,
			Launch:        30 * time.Second,
			Action:        5 * time.Second,
			Reconnect:     60 * time.Second,
			ReconnectWait: 5 * time.Second,
			Script:        30 * time.Second,
			ScriptMax:     5 * time.Minute,
			Confirm:       60 * time.Second,
		},
		Limits:       Limits{MaxBrowserFrame: 64 << 20, MaxRPCMessage: 64 << 20, MaxInFlight: 64, ScriptMemory: 256 << 20, ScriptOutput: 64 << 10},
		Agents:       Agents{UploadMaxBytes: 50 << 20, OutputDir: home + "/.cache/egohost/output", Confirm: map[string][]confirm.Rule{}, ConfirmWords: confirm.DefaultWords},
		AgentOrigins: map[string]OriginRules{},
		AuditMaxSize: 10 << 20,
		AuditKeep:    5,
		Trace:        Trace{MaxBytes: 50 << 20, MaxAge: 7 * 24 * time.Hour},
		LogLevel:     slog.LevelInfo,
	}
}

// The trace.* keys, from a file and from the environment.
func TestLoadTrace(t *testing.T) {
	home := t.TempDir()
	file := writeFile(t, t.TempDir(), "c.yaml", "trace:\n  enabled: true\n  agents: [claude, bot]\n  max_bytes: 5MiB\n  max_age: 36h\n")
	got, err := Load(Options{Home: home, GOOS: "linux", File: file})
	if err != nil {
		t.Fatalf("got error %v, want nil", err)
	}
	if diff := cmp.Diff(Trace{Enabled: true, Agents: []string{"claude", "bot"}, MaxBytes: 5 << 20, MaxAge: 36 * time.Hour}, got.Trace); diff != "" {
		t.Errorf("trace mismatch (-want +got):\n%s", diff)
	}
	got, err = Load(Options{Home: home, GOOS: "linux", Getenv: env(map[string]string{"EGOHOST_TRACE_ENABLED": "true", "EGOHOST_TRACE_AGENTS": "claude"})})
	if err != nil {
		t.Fatalf("got error %v, want nil", err)
	}
	if !got.Trace.Enabled || len(got.Trace.Agents) != 1 || got.Trace.Agents[0] != "claude" {
		t.Errorf("got trace %+v from the environment, want enabled for claude", got.Trace)
	}
	for _, tt := range []struct {
		in   string
		want time.Duration
	}{{"0", 0}, {"30d", 30 * 24 * time.Hour}, {" 2d ", 48 * time.Hour}, {"90m", 90 * time.Minute}, {"1500", 1500 * time.Millisecond}} {
		got, err := Load(Options{Home: home, GOOS: "linux", Getenv: env(map[string]string{"EGOHOST_TRACE_MAX_AGE": tt.in})})
		if err != nil {
			t.Fatalf("trace.max_age %q: got error %v, want nil", tt.in, err)
		}
		if got.Trace.MaxAge != tt.want {
			t.Errorf("trace.max_age %q: got %v, want %v", tt.in, got.Trace.MaxAge, tt.want)
		}
	}
}

// The agents' origin rules are a map by the user's own agent names.
func TestLoadAgentOrigins(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(t.TempDir(), "c.yaml")
	yaml := "agents:\n  origins:\n    claude:\n      deny: [\"*.bank.example\"]\n      schemes: [file, \"data:\"]\n    \"*\":\n      allow: [\"*.example.com\", localhost]\naudit:\n  max_size: 1MiB\n  keep: 3\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Load(Options{Home: home, GOOS: "linux", File: file})
	if err != nil {
		t.Fatalf("got error %v, want nil", err)
	}
	want := map[string]OriginRules{"claude": {Deny: []string{"*.bank.example"}, Schemes: []string{"file", "data"}}, "*": {Allow: []string{"*.example.com", "localhost"}}}
	if diff := cmp.Diff(want, got.AgentOrigins); diff != "" {
		t.Errorf("agents.origins mismatch (-want +got):\n%s", diff)
	}
	if got.AuditMaxSize != 1<<20 || got.AuditKeep != 3 {
		t.Errorf("got audit.max_size %d, keep %d, want %d, 3", got.AuditMaxSize, got.AuditKeep, 1<<20)
	}
	for _, keep := range []string{"0", "101", "x"} {
		if _, err := Load(Options{Home: home, GOOS: "linux", Getenv: env(map[string]string{"EGOHOST_AUDIT_KEEP": keep})}); err == nil || !strings.Contains(err.Error(), "audit.keep") {
			t.Errorf("audit.keep %s: got %v, want an error naming audit.keep", keep, err)
		}
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("agents:\n  origins:\n    claude:\n      block: [x]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(Options{Home: home, GOOS: "linux", File: bad}); err == nil || !strings.Contains(err.Error(), "agents.origins.claude.block") {
		t.Errorf("agents.origins.claude.block: got error %v, want it named as unknown", err)
	}
}

// The confirmation policy: rules by agent name and "default", kinds
// checked, the word list and timeouts.confirm.
func TestLoadConfirm(t *testing.T) {
	home := t.TempDir()
	file := writeFile(t, t.TempDir(), "c.yaml", "timeouts:\n  confirm: 2m\nagents:\n  confirm_words: [wire, buy]\n  confirm:\n    claude:\n      - {origins: [\"*.bank.example\"], actions: [submit, upload]}\n      - {origins: [\"*\"], actions: [cookie_write]}\n    default: []\n")
	got, err := Load(Options{Home: home, GOOS: "linux", File: file})
	if err != nil {
		t.Fatalf("got error %v, want nil", err)
	}
	want := map[string][]confirm.Rule{
		"claude": {
			{Origins: []string{"*.bank.example"}, Actions: []confirm.Kind{confirm.Submit, confirm.Upload}},
			{Origins: []string{"*"}, Actions: []confirm.Kind{confirm.CookieWrite}},
		},
		"default": {},
	}
	if diff := cmp.Diff(want, got.Agents.Confirm); diff != "" {
		t.Errorf("agents.confirm mismatch (-want +got):\n%s", diff)
	}
	if !slices.Equal(got.Agents.ConfirmWords, []string{"wire", "buy"}) {
		t.Errorf("confirm_words: got %q, want [wire buy]", got.Agents.ConfirmWords)
	}
	if got.Timeouts.Confirm != 2*time.Minute {
		t.Errorf("timeouts.confirm: got %v, want 2m", got.Timeouts.Confirm)
	}
	for _, tt := range []struct{ name, yaml, want string }{
		{"unknown kind", "agents:\n  confirm:\n    claude: [{origins: [\"*\"], actions: [buy]}]\n", "agents.confirm.claude.actions"},
		{"no origins", "agents:\n  confirm:\n    claude: [{actions: [submit]}]\n", "needs both origins and actions"},
		{"no actions", "agents:\n  confirm:\n    claude: [{origins: [\"*\"]}]\n", "needs both origins and actions"},
		{"unknown field", "agents:\n  confirm:\n    claude: [{origins: [\"*\"], actions: [submit], when: [x]}]\n", "agents.confirm.claude.when"},
		{"not a list", "agents:\n  confirm:\n    claude: {origins: [\"*\"], actions: [submit]}\n", "agents.confirm.claude"},
		{"bad agent name", "agents:\n  confirm:\n    \"bad name\": []\n", "is not an agent name"},
		{"word with a space", "agents:\n  confirm_words: [\"place order\"]\n", "agents.confirm_words"},
		{"zero timeout", "timeouts:\n  confirm: 0s\n", "timeouts.confirm"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := writeFile(t, t.TempDir(), "bad.yaml", tt.yaml)
			if _, err := Load(Options{Home: home, GOOS: "linux", File: file}); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got error %v, want one with %q", err, tt.want)
			}
		})
	}
}

func TestLoadDefaults(t *testing.T) {
	home := t.TempDir()
	got, err := Load(Options{Home: home, GOOS: "linux"})
	if err != nil {
		t.Fatalf("got error %v, want nil", err)
	}
	if diff := cmp.Diff(defaults(home), got); diff != "" {
		t.Errorf("defaults mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadLayers(t *testing.T) {
	home := t.TempDir()
	userYAML := `
listen: "[::1]:9000"
timeouts:
  request: 2s
limits:
  max_browser_frame: 1MB
allowed_extension_ids: [bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, cccccccccccccccccccccccccccccccc]
log_level: debug
`
	file := writeFile(t, t.TempDir(), "custom.yaml", userYAML)
	homeFile := writeFile(t, home, ".config/egohost/config.yaml", "listen: localhost:1234\n")
	envFile := writeFile(t, t.TempDir(), "env.yaml", "browser: /opt/chromium\n")
	jsonFile := writeFile(t, t.TempDir(), "c.json", `{"timeouts": {"action": "9s"}, "host_name": "org.x_y"}`)

	tests := []struct {
		name   string
		opts   Options
		modify func(c *Config)
	}{
		{
			name: "explicit file overrides defaults",
			opts: Options{File: file},
			modify: func(c *Config) {
				c.File = file
				c.Listen = "[::1]:9000"
				c.Timeouts.Request = 2 * time.Second
				c.Limits.MaxBrowserFrame = 1000000
				c.AllowedExtensionIDs = []string{"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "cccccccccccccccccccccccccccccccc"}
				c.LogLevel = slog.LevelDebug
			},
		},
		{
			name: "environment overrides file",
			opts: Options{File: file, Getenv: env(map[string]string{
				"EGOHOST_TIMEOUTS_REQUEST":       "3m",
				"EGOHOST_TIMEOUTS_ACTION":        "5000",
				"EGOHOST_LISTEN":                 "127.0.0.2:1",
				"EGOHOST_ALLOWED_EXTENSION_IDS":  "dddddddddddddddddddddddddddddddd, " + testID,
				"EGOHOST_LIMITS_MAX_RPC_MESSAGE": "1048576",
				"EGOHOST_LIMITS_MAX_IN_FLIGHT":   "8",
				"EGOHOST_LOG_LEVEL":              "WARN",
				"EGOHOST_STATE_DIR":              "/srv/state",
			})},
			modify: func(c *Config) {
				c.File = file
				c.Listen = "127.0.0.2:1"
				c.Timeouts.Request = 3 * time.Minute
				c.Timeouts.Action = 5 * time.Second
				c.Limits.MaxBrowserFrame = 1000000
				c.Limits.MaxRPCMessage = 1 << 20
				c.Limits.MaxInFlight = 8
				c.AllowedExtensionIDs = []string{"dddddddddddddddddddddddddddddddd", testID}
				c.LogLevel = slog.LevelWarn
				c.StateDir = "/srv/state"
				c.DataDir = "/srv/state"
				c.Socket = "/srv/state/relay.sock"
				c.TokenFile = "/srv/state/token"
			},
		},
		{
			name:   "home file when nothing else names one",
			opts:   Options{},
			modify: func(c *Config) { c.File = homeFile; c.Listen = "localhost:1234" },
		},
		{
			name:   "EGOHOST_CONFIG beats the home file",
			opts:   Options{Getenv: env(map[string]string{"EGOHOST_CONFIG": envFile})},
			modify: func(c *Config) { c.File = envFile; c.Browser = "/opt/chromium" },
		},
		{
			name:   "explicit file beats EGOHOST_CONFIG",
			opts:   Options{File: jsonFile, Getenv: env(map[string]string{"EGOHOST_CONFIG": envFile})},
			modify: func(c *Config) { c.File = jsonFile; c.Timeouts.Action = 9 * time.Second; c.HostName = "org.x_y" },
		},
		{
			name: "empty environment value means unset",
			opts: Options{Getenv: env(map[string]string{"EGOHOST_LISTEN": "", "EGOHOST_CONFIG": ""})},
			modify: func(c *Config) {
				c.File = homeFile
				c.Listen = "localhost:1234"
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Home, tt.opts.GOOS = home, "linux"
			got, err := Load(tt.opts)
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			want := defaults(home)
			tt.modify(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("config mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadBadValues(t *testing.T) {
	tests := []struct {
		key, value string
		wantMsg    string
	}{
		{"timeouts.request", "abc", `config: timeouts.request: "abc" is not a duration`},
		{"timeouts.connect", "5x", `config: timeouts.connect: "5x" is not a duration`},
		{"timeouts.action", "0", `config: timeouts.action: "0" must be positive`},
		{"timeouts.launch", "0s", `config: timeouts.launch: "0s" must be positive`},
		{"timeouts.action", "-1s", `config: timeouts.action: "-1s" must be positive`},
		{"timeouts.reconnect_wait", "0", `config: timeouts.reconnect_wait: "0" must be positive`},
		{"timeouts.reconnect_wait", "61s", `config: timeouts.reconnect_wait: "1m1s" exceeds timeouts.reconnect (1m0s)`},
		{"limits.max_browser_frame", "lots", `config: limits.max_browser_frame: "lots" is not a size`},
		{"limits.max_browser_frame", "65MiB", `config: limits.max_browser_frame: "65MiB" exceeds the maximum of 67108864 bytes`},
		{"limits.max_browser_frame", "0", `config: limits.max_browser_frame: "0" must be positive`},
		{"limits.max_rpc_message", "12XB", `config: limits.max_rpc_message: "12XB" is not a size`},
		{"limits.max_rpc_message", "99999999999999999999", `config: limits.max_rpc_message: "99999999999999999999" is not a size`},
		{"limits.max_in_flight", "many", `config: limits.max_in_flight: "many" is not a whole number`},
		{"limits.max_in_flight", "0", `config: limits.max_in_flight: "0" must be positive`},
		{"limits.max_in_flight", "5000", `config: limits.max_in_flight: "5000" exceeds the maximum of 4096`},
		{"listen", "0.0.0.0:80", `config: listen: "0.0.0.0:80" is not a loopback address`},
		{"listen", "192.168.1.2:80", `config: listen: "192.168.1.2:80" is not a loopback address`},
		{"listen", "example.com:80", `config: listen: "example.com:80" is not a loopback address`},
		{"listen", ":8080", `config: listen: ":8080" is not a loopback address`},
		{"listen", "127.0.0.1", `config: listen: "127.0.0.1" is not host:port`},
		{"listen", "127.0.0.1:http", `config: listen: "127.0.0.1:http" has no valid port`},
		{"listen", "127.0.0.1:70000", `config: listen: "127.0.0.1:70000" has no valid port`},
		{"allowed_extension_ids", "abc", `config: allowed_extension_ids: "abc" is not an extension ID`},
		{"allowed_extension_ids", testID + ",zokapgkciafkaelljglcdibalbfomkdb", `config: allowed_extension_ids: "zokapgkciafkaelljglcdibalbfomkdb" is not an extension ID`},
		{"allowed_extension_ids", " , ", `config: allowed_extension_ids: "" must name at least one extension ID`},
		{"host_name", ".com.x", `config: host_name: ".com.x" is not a native messaging host name`},
		{"host_name", "com.x.", `config: host_name: "com.x." is not a native messaging host name`},
		{"host_name", "com..x", `config: host_name: "com..x" is not a native messaging host name`},
		{"host_name", "Com.X", `config: host_name: "Com.X" is not a native messaging host name`},
		{"host_name", "com-x", `config: host_name: "com-x" is not a native messaging host name`},
		{"log_level", "verbose", `config: log_level: "verbose" is not a log level`},
		{"agents.all_tabs", "alice,bad name", `config: agents.all_tabs: "bad name" is not an agent name (letters, digits, '.', '_', '-'; at most 32)`},
		{"state_dir", "relative/dir", `config: state_dir: "relative/dir" is not an absolute path`},
		{"socket", "relay.sock", `config: socket: "relay.sock" is not an absolute path`},
		{"token_file", "token", `config: token_file: "token" is not an absolute path`},
		{"agents.upload_dirs", "/srv/share:shared", `config: agents.upload_dirs: "shared" is not an absolute path`},
		{"agents.upload_max_bytes", "0", `config: agents.upload_max_bytes: "0" must be positive`},
		{"agents.output_dir", "out", `config: agents.output_dir: "out" is not an absolute path`},
		{"trace.enabled", "maybe", `config: trace.enabled: "maybe" is not true or false`},
		{"trace.agents", "bot,bad name", `config: trace.agents: "bad name" is not an agent name`},
		{"trace.max_bytes", "0", `config: trace.max_bytes: "0" must be positive`},
		{"trace.max_bytes", "lots", `config: trace.max_bytes: "lots" is not a size`},
		{"trace.max_age", "-1h", `config: trace.max_age: "-1h" must not be negative`},
		{"trace.max_age", "-2d", `config: trace.max_age: "-2d" must not be negative`},
		{"trace.max_age", "a week", `config: trace.max_age: "a week" is not an age (e.g. 7d, 36h, 0 for never)`},
		{"trace.max_age", "1.5d", `config: trace.max_age: "1.5d" is not an age (e.g. 7d, 36h, 0 for never)`},
		{"trace.max_age", "99999999999d", `config: trace.max_age: "99999999999d" is not an age (e.g. 7d, 36h, 0 for never)`},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			name := EnvVar(tt.key)
			_, err := Load(Options{Home: t.TempDir(), GOOS: "linux", Getenv: env(map[string]string{name: tt.value})})
			if err == nil {
				t.Fatalf("got nil error, want %q", tt.wantMsg)
			}
			if !strings.HasPrefix(err.Error(), tt.wantMsg) {
				t.Errorf("got error %q, want it to start with %q", err, tt.wantMsg)
			}
			if !strings.HasSuffix(err.Error(), "(from $"+name+")") {
				t.Errorf("got error %q, want it to name its source $%s", err, name)
			}
			var ke *KeyError
			if !errors.As(err, &ke) || ke.Key != tt.key {
				t.Errorf("got %#v, want a *KeyError for %s", err, tt.key)
			}
		})
	}
}

func TestLoadBadFileValue(t *testing.T) {
	file := writeFile(t, t.TempDir(), "c.yaml", "timeouts:\n  request: abc\n")
	_, err := Load(Options{File: file, GOOS: "linux", Home: t.TempDir()})
	want := `config: timeouts.request: "abc" is not a duration (e.g. 5000 for milliseconds, 500ms, 10s) (from ` + file + `)`
	if err == nil || err.Error() != want {
		t.Errorf("got error %v, want %q", err, want)
	}
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		content string // "" means the file does not exist
		wantMsg string
		wantKey string // for *UnknownKeyError
	}{
		{name: "missing explicit file", wantMsg: "config: read user file: "},
		{name: "top-level typo", content: "listn: 127.0.0.1:1\n", wantMsg: `unknown key "listn"`, wantKey: "listn"},
		{name: "nested typo", content: "timeouts:\n  reqest: 2s\n", wantMsg: `unknown key "timeouts.reqest"`, wantKey: "timeouts.reqest"},
		{name: "unknown section", content: "extra:\n  a: 1\n", wantMsg: `unknown key "extra.a"`, wantKey: "extra.a"},
		{name: "section given a value", content: "timeouts: 5s\n", wantMsg: `"timeouts" is a section`},
		{name: "list where a value goes", content: "listen: [a, b]\n", wantMsg: `config: listen: "[a b]" is not a single value`},
		{name: "not YAML", content: "listen: [\n", wantMsg: "config: parse "},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, "missing.yaml")
			if tt.content != "" {
				file = writeFile(t, dir, strings.Repeat("x", i+1)+".yaml", tt.content)
			}
			_, err := Load(Options{File: file, GOOS: "linux", Home: t.TempDir()})
			if err == nil || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("got error %v, want one containing %q", err, tt.wantMsg)
			}
			if tt.wantKey != "" {
				var uk *UnknownKeyError
				if !errors.As(err, &uk) || uk.Key != tt.wantKey || uk.File != file {
					t.Errorf("got %#v, want *UnknownKeyError{File: %q, Key: %q}", err, file, tt.wantKey)
				}
			}
		})
	}
}

func TestLoadEmptySectionIsFine(t *testing.T) {
	file := writeFile(t, t.TempDir(), "c.yaml", "# only a comment\ntimeouts: {}\n")
	if _, err := Load(Options{File: file, GOOS: "linux", Home: t.TempDir()}); err != nil {
		t.Errorf("got error %v, want nil", err)
	}
}

func TestLoadPaths(t *testing.T) {
	tests := []struct {
		name                         string
		goos, home                   string
		env                          map[string]string
		wantState, wantSock, wantTok string
	}{
		{
			name: "linux with XDG_RUNTIME_DIR", goos: "linux", home: "/home/u",
			env:       map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"},
			wantState: "/run/user/1000/egohost", wantSock: "/run/user/1000/egohost/relay.sock", wantTok: "/run/user/1000/egohost/token",
		},
		{
			name: "linux without XDG_RUNTIME_DIR", goos: "linux", home: "/home/u",
			wantState: "/home/u/.cache/egohost/run", wantSock: "/home/u/.cache/egohost/run/relay.sock", wantTok: "/home/u/.cache/egohost/run/token",
		},
		{
			name: "freebsd ignores a relative XDG_RUNTIME_DIR", goos: "freebsd", home: "/home/u",
			env:       map[string]string{"XDG_RUNTIME_DIR": "run"},
			wantState: "/home/u/.cache/egohost/run", wantSock: "/home/u/.cache/egohost/run/relay.sock", wantTok: "/home/u/.cache/egohost/run/token",
		},
		{
			name: "darwin", goos: "darwin", home: "/Users/u",
			env:       map[string]string{"XDG_RUNTIME_DIR": "/tmp/x"},
			wantState: "/Users/u/Library/Application Support/egohost",
			wantSock:  "/Users/u/Library/Application Support/egohost/relay.sock",
			wantTok:   "/Users/u/Library/Application Support/egohost/token",
		},
		{
			name: "windows with LOCALAPPDATA", goos: "windows", home: `C:\Users\u`,
			env:       map[string]string{"LOCALAPPDATA": `D:\Local\`},
			wantState: `D:\Local\egohost`, wantSock: `D:\Local\egohost\relay.sock`, wantTok: `D:\Local\egohost\token`,
		},
		{
			name: "windows without LOCALAPPDATA", goos: "windows", home: `C:\Users\u`,
			wantState: `C:\Users\u\AppData\Local\egohost`, wantSock: `C:\Users\u\AppData\Local\egohost\relay.sock`, wantTok: `C:\Users\u\AppData\Local\egohost\token`,
		},
		{
			name: "explicit state_dir", goos: "linux", home: "/home/u",
			env:       map[string]string{"EGOHOST_STATE_DIR": "/var/egohost", "XDG_RUNTIME_DIR": "/run/user/1000"},
			wantState: "/var/egohost", wantSock: "/var/egohost/relay.sock", wantTok: "/var/egohost/token",
		},
		{
			name: "explicit socket and token, with ~", goos: "linux", home: "/home/u",
			env:       map[string]string{"EGOHOST_SOCKET": "/tmp/s.sock", "EGOHOST_TOKEN_FILE": "~/tok"},
			wantState: "/home/u/.cache/egohost/run", wantSock: "/tmp/s.sock", wantTok: "/home/u/tok",
		},
		{
			name: "windows explicit ~ state dir", goos: "windows", home: `C:\Users\u`,
			env:       map[string]string{"EGOHOST_STATE_DIR": `~\eh`},
			wantState: `C:\Users\u\eh`, wantSock: `C:\Users\u\eh\relay.sock`, wantTok: `C:\Users\u\eh\token`,
		},
		{
			name: "no home but XDG_RUNTIME_DIR", goos: "linux",
			env:       map[string]string{"XDG_RUNTIME_DIR": "/run/user/7", "XDG_STATE_HOME": "/var/lib/u"},
			wantState: "/run/user/7/egohost", wantSock: "/run/user/7/egohost/relay.sock", wantTok: "/run/user/7/egohost/token",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Options{Home: tt.home, GOOS: tt.goos, Getenv: env(tt.env)})
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			got := [3]string{c.StateDir, c.Socket, c.TokenFile}
			want := [3]string{tt.wantState, tt.wantSock, tt.wantTok}
			if got != want {
				t.Errorf("got state, socket, token %q, want %q", got, want)
			}
		})
	}
}

// The durable state's folder, per OS: never the runtime dir (a tmpfs on
// Linux) unless the user chose that dir as state_dir; a state_dir set
// alone keeps everything together (the e2e tests rely on it: they set
// only EGOHOST_STATE_DIR and must never write to the real home).
func TestDataDir(t *testing.T) {
	tests := []struct {
		name, goos, home string
		env              map[string]string
		want             string
	}{
		{"linux default", "linux", "/home/u", map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"}, "/home/u/.local/state/egohost"},
		{"linux XDG_STATE_HOME", "linux", "/home/u", map[string]string{"XDG_STATE_HOME": "/data/st"}, "/data/st/egohost"},
		{"linux relative XDG_STATE_HOME ignored", "linux", "/home/u", map[string]string{"XDG_STATE_HOME": "st"}, "/home/u/.local/state/egohost"},
		{"freebsd", "freebsd", "/home/u", nil, "/home/u/.local/state/egohost"},
		{"darwin", "darwin", "/Users/u", map[string]string{"XDG_STATE_HOME": "/x"}, "/Users/u/Library/Application Support/egohost"},
		{"windows LOCALAPPDATA", "windows", `C:\Users\u`, map[string]string{"LOCALAPPDATA": `D:\Local`}, `D:\Local\egohost`},
		{"windows without LOCALAPPDATA", "windows", `C:\Users\u`, nil, `C:\Users\u\AppData\Local\egohost`},
		{"state_dir alone keeps both", "linux", "/home/u", map[string]string{"EGOHOST_STATE_DIR": "/tmp/t1"}, "/tmp/t1"},
		{"data_dir explicit", "linux", "/home/u", map[string]string{"EGOHOST_STATE_DIR": "/tmp/t1", "EGOHOST_DATA_DIR": "~/keep"}, "/home/u/keep"},
		{"no home, no XDG_STATE_HOME: the state dir", "linux", "", map[string]string{"XDG_RUNTIME_DIR": "/run/user/7"}, "/run/user/7/egohost"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(Options{Home: tt.home, GOOS: tt.goos, Getenv: env(tt.env)})
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if c.DataDir != tt.want {
				t.Errorf("got data dir %q, want %q", c.DataDir, tt.want)
			}
		})
	}
	if _, err := Load(Options{Home: "/home/u", GOOS: "linux", Getenv: env(map[string]string{"EGOHOST_DATA_DIR": "rel"})}); err == nil || !strings.Contains(err.Error(), "data_dir") {
		t.Errorf("relative data_dir: got %v, want an error naming data_dir", err)
	}
}

func TestLoadNoHome(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		wantMsg string
	}{
		{name: "no default state dir", wantMsg: `config: state_dir: "" has no default`},
		{name: "~ without home", env: map[string]string{"EGOHOST_STATE_DIR": "~/x"}, wantMsg: `config: state_dir: "~/x" uses ~ but the home directory is unknown`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(Options{GOOS: "linux", Getenv: env(tt.env)})
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantMsg) {
				t.Errorf("got error %v, want one starting with %q", err, tt.wantMsg)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		wantErr bool
	}{
		{in: "1048576", want: 1 << 20},
		{in: "64MiB", want: 64 << 20},
		{in: "64mib", want: 64 << 20},
		{in: "1MB", want: 1000000},
		{in: "1 MB", want: 1000000},
		{in: "2KiB", want: 2048},
		{in: "3kb", want: 3000},
		{in: "1GiB", want: 1 << 30},
		{in: "5B", want: 5},
		{in: " 7 ", want: 7},
		{in: "", wantErr: true},
		{in: "MiB", wantErr: true},
		{in: "1.5MiB", wantErr: true},
		{in: "-1", wantErr: true},
		{in: "1TB", wantErr: true},
		{in: "99999999999GiB", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("got error %v, want error %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestEnvVar(t *testing.T) {
	tests := []struct{ key, want string }{
		{"listen", "EGOHOST_LISTEN"},
		{"state_dir", "EGOHOST_STATE_DIR"},
		{"timeouts.request", "EGOHOST_TIMEOUTS_REQUEST"},
		{"limits.max_browser_frame", "EGOHOST_LIMITS_MAX_BROWSER_FRAME"},
	}
	for _, tt := range tests {
		if got := EnvVar(tt.key); got != tt.want {
			t.Errorf("EnvVar(%q): got %q, want %q", tt.key, got, tt.want)
		}
	}
}

func TestDefaultFile(t *testing.T) {
	tests := []struct{ goos, home, want string }{
		{"linux", "/home/u", "/home/u/.config/egohost/config.yaml"},
		{"darwin", "/Users/u", "/Users/u/.config/egohost/config.yaml"},
		{"windows", `C:\Users\u`, `C:\Users\u\.config\egohost\config.yaml`},
	}
	for _, tt := range tests {
		if got := DefaultFile(tt.goos, tt.home); got != tt.want {
			t.Errorf("DefaultFile(%q, %q): got %q, want %q", tt.goos, tt.home, got, tt.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{in: "1500", want: 1500 * time.Millisecond},
		{in: " 5000 ", want: 5 * time.Second},
		{in: "0", want: 0},
		{in: "-20", want: -20 * time.Millisecond},
		{in: "1.5s", want: 1500 * time.Millisecond},
		{in: "500ms", want: 500 * time.Millisecond},
		{in: "2m", want: 2 * time.Minute},
		{in: "1.5", wantErr: true},
		{in: "", wantErr: true},
		{in: "5x", wantErr: true},
		{in: "99999999999999999", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseDuration(%q): got %v, %v, want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"1500", "1.5s", "500ms", "", "-1", "99999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDuration(s)
		if err != nil && d != 0 {
			t.Errorf("ParseDuration(%q): got %v with error %v, want 0", s, d, err)
		}
	})
}

func TestLoadMillisecondsInFile(t *testing.T) {
	file := writeFile(t, t.TempDir(), "c.yaml", "timeouts:\n  action: 2500\n")
	c, err := Load(Options{File: file, GOOS: "linux", Home: t.TempDir()})
	if err != nil {
		t.Fatalf("got error %v, want nil", err)
	}
	if got, want := c.Timeouts.Action, 2500*time.Millisecond; got != want {
		t.Errorf("got timeouts.action %v, want %v", got, want)
	}
}

// The agents' file settings: upload_dirs and output_dir expanded and
// absolute, never inside the state dir; output_dir's default per OS.
func TestLoadAgentFiles(t *testing.T) {
	file := writeFile(t, t.TempDir(), "c.yaml", "agents:\n  upload_dirs: [~/share, /srv/in]\n  upload_max_bytes: 1MiB\n  output_dir: ~/shots\n")
	got, err := Load(Options{Home: "/home/u", GOOS: "linux", File: file})
	if err != nil {
		t.Fatal(err)
	}
	want := Agents{UploadDirs: []string{"/home/u/share", "/srv/in"}, UploadMaxBytes: 1 << 20, OutputDir: "/home/u/shots", Confirm: map[string][]confirm.Rule{}, ConfirmWords: confirm.DefaultWords}
	if diff := cmp.Diff(want, got.Agents); diff != "" {
		t.Errorf("agents mismatch (-want +got):\n%s", diff)
	}
	got, err = Load(Options{Home: "/home/u", GOOS: "linux", Getenv: env(map[string]string{"EGOHOST_AGENTS_UPLOAD_DIRS": "/a:/b c"})})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Agents.UploadDirs, []string{"/a", "/b c"}) {
		t.Errorf("upload_dirs from the environment: got %q, want [/a /b c]", got.Agents.UploadDirs)
	}

	for _, tt := range []struct{ name, key, value string }{
		{"output_dir in the state dir", "EGOHOST_AGENTS_OUTPUT_DIR", "/var/eg/out"},
		{"output_dir is the state dir", "EGOHOST_AGENTS_OUTPUT_DIR", "/var/eg/"},
		{"an upload dir in the state dir", "EGOHOST_AGENTS_UPLOAD_DIRS", "/srv:/var/eg/agents"},
	} {
		_, err := Load(Options{Home: "/home/u", GOOS: "linux", Getenv: env(map[string]string{"EGOHOST_STATE_DIR": "/var/eg", tt.key: tt.value})})
		if err == nil || !strings.Contains(err.Error(), "is inside state_dir") {
			t.Errorf("%s: got %v, want it refused", tt.name, err)
		}
	}
	if _, err := Load(Options{Home: "/home/u", GOOS: "linux", Getenv: env(map[string]string{"EGOHOST_STATE_DIR": "/var/eg", "EGOHOST_AGENTS_UPLOAD_DIRS": "/var/egg:/var"})}); err != nil {
		t.Errorf("upload dirs beside and above the state dir: got %v, want them accepted (the state dir is refused file by file)", err)
	}

	for _, tt := range []struct {
		goos, home string
		env        map[string]string
		want       string
	}{
		{"linux", "/home/u", nil, "/home/u/.cache/egohost/output"},
		{"linux", "/home/u", map[string]string{"XDG_CACHE_HOME": "/c"}, "/c/egohost/output"},
		{"linux", "", nil, ""},
		{"darwin", "/Users/u", nil, "/Users/u/Library/Caches/egohost/output"},
		{"windows", `C:\Users\u`, map[string]string{"LOCALAPPDATA": `D:\L`}, `D:\L\egohost-output`},
		{"windows", `C:\Users\u`, nil, `C:\Users\u\AppData\Local\egohost-output`},
	} {
		o := Options{Home: tt.home, GOOS: tt.goos, Getenv: env(tt.env)}
		if tt.home == "" {
			o.Getenv = env(map[string]string{"XDG_RUNTIME_DIR": "/run/user/7"})
		}
		got, err := Load(o)
		if err != nil {
			t.Errorf("%s %q %v: %v", tt.goos, tt.home, tt.env, err)
		} else if got.Agents.OutputDir != tt.want {
			t.Errorf("%s %q %v: got output_dir %q, want %q", tt.goos, tt.home, tt.env, got.Agents.OutputDir, tt.want)
		}
	}
}

// The user file's formats and keys as viper read them before values.go:
// YAML, YML, JSON and TOML; keys in any case; a section merged key by key
// over the defaults; the environment over the file.
func TestLoadFileFormats(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	tests := []struct {
		name, content string
	}{
		{"c.yaml", "Timeouts:\n  Action: 9s\nAgents:\n  Origins:\n    Claude: {allow: [\"https://a.example\"]}\n"},
		{"c.yml", "timeouts: {action: 9s}\nagents: {origins: {claude: {allow: [\"https://a.example\"]}}}\n"},
		{"c.json", `{"TIMEOUTS": {"action": "9s"}, "agents": {"origins": {"claude": {"allow": ["https://a.example"]}}}}`},
		{"c.toml", "[timeouts]\naction = \"9s\"\n[agents.origins.claude]\nallow = [\"https://a.example\"]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := writeFile(t, dir, tt.name, tt.content)
			got, err := Load(Options{Home: home, GOOS: "linux", File: file, Getenv: env(map[string]string{"EGOHOST_TIMEOUTS_REQUEST": "45s"})})
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if got.Timeouts.Action != 9*time.Second || got.Timeouts.Request != 45*time.Second || got.Timeouts.Connect != defaults(home).Timeouts.Connect {
				t.Errorf("got timeouts %+v; want action 9s from the file, request 45s from the environment, the rest the defaults'", got.Timeouts)
			}
			if diff := cmp.Diff(map[string]OriginRules{"claude": {Allow: []string{"https://a.example"}}}, got.AgentOrigins); diff != "" {
				t.Errorf("agents.origins mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// A value where a section is, and a file that is not a map: errors
	// that name the file.
	for _, content := range []string{"timeouts: 5s\n", "- a\n- b\n"} {
		file := writeFile(t, dir, "bad.yaml", content)
		if _, err := Load(Options{Home: home, GOOS: "linux", File: file}); err == nil || !strings.Contains(err.Error(), file) {
			t.Errorf("%q: got error %v, want one naming %s", content, err, file)
		}
	}
}
