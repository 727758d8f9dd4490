package viperconfig_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/setup/config"
	"github.com/egohost/egohost/internal/setup/config/viperconfig"
)

// TestLayersAgree holds the CLI's reader (config.Load, plain maps) to the
// service's (viper): the same files and environment give the same Config,
// or the same error. The CLI finds the service where the service is.
func TestLayersAgree(t *testing.T) {
	tests := []struct {
		name, file, content string
		env                 map[string]string
	}{
		{name: "defaults"},
		{name: "paths in yaml", file: "c.yaml", content: "state_dir: /run/eg\ndata_dir: /var/eg\ntoken_file: /run/eg/tok\nlisten: 127.0.0.1:4000\n"},
		{name: "home paths", file: "c.yaml", content: "state_dir: ~/eg\n"},
		{name: "mixed case keys", file: "c.yaml", content: "State_Dir: /run/EG\nTimeouts:\n  Request: 1500\n  CONNECT: 2s\n"},
		{name: "yml", file: "c.yml", content: "state_dir: /run/eg\nlog_level: debug\n"},
		{name: "json", file: "c.json", content: `{"state_dir": "/run/eg", "timeouts": {"request": 1500, "confirm": "2m"}, "limits": {"max_rpc_message": 67108864}, "agents": {"upload_max_bytes": 1048576}}`},
		{name: "toml", file: "c.toml", content: "state_dir = \"/run/eg\"\n[timeouts]\nrequest = \"45s\"\nscript = 1500\n"},
		{name: "no extension", file: "config", content: "state_dir: /run/eg\n"},
		{name: "empty file", file: "c.yaml", content: ""},
		{name: "empty section", file: "c.yaml", content: "timeouts: {}\nagents:\n  origins: {}\n"},
		{name: "value over a section", file: "c.yaml", content: "timeouts: 5s\n"},
		{name: "section over a value", file: "c.yaml", content: "listen:\n  host: x\n"},
		{name: "unknown key", file: "c.yaml", content: "timeouts:\n  requets: 5s\n"},
		{name: "a section named", file: "c.yaml", content: "agents: 3\n"},
		{name: "bad duration", file: "c.yaml", content: "timeouts:\n  request: soon\n"},
		{name: "bad yaml", file: "c.yaml", content: "state_dir: [\n"},
		{name: "origins and confirm", file: "c.yaml", content: "agents:\n  origins:\n    Bot:\n      allow: [\"https://*.example.com\"]\n      deny: [\"https://bank.example\"]\n  confirm:\n    bot:\n      - {Kind: download}\n  all_tabs: [bot]\n  confirm_words: [Buy, pay]\n"},
		{name: "lists", file: "c.yaml", content: "allowed_extension_ids: [aokapgkciafkaelljglcdibalbfomkdb, abcdefghijklmnopabcdefghijklmnop]\ntrace:\n  agents: [a, b]\n  enabled: true\n"},
		{name: "environment", env: map[string]string{"EGOHOST_STATE_DIR": "/run/env", "EGOHOST_TIMEOUTS_REQUEST": "1500", "EGOHOST_LOG_LEVEL": "warn", "EGOHOST_AGENTS_UPLOAD_MAX_BYTES": "1MiB"}},
		{name: "environment over the file", file: "c.yaml", content: "state_dir: /run/file\ntimeouts:\n  connect: 3s\n", env: map[string]string{"EGOHOST_STATE_DIR": "/run/env", "EGOHOST_TIMEOUTS_CONNECT": "4s"}},
		{name: "bad environment", env: map[string]string{"EGOHOST_TIMEOUTS_CONNECT": "never"}},
		{name: "environment list", env: map[string]string{"EGOHOST_AGENTS_ALL_TABS": "a,b", "EGOHOST_AGENTS_UPLOAD_DIRS": "/tmp/up"}},
		{name: "XDG runtime dir", env: map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			opts := config.Options{Home: home, GOOS: "linux", Getenv: func(k string) string { return tc.env[k] }}
			if tc.file != "" {
				opts.File = filepath.Join(home, tc.file)
				if err := os.WriteFile(opts.File, []byte(tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			viper, verr := viperconfig.Load(opts)
			maps, merr := config.Load(opts)
			if fmt.Sprint(verr) != fmt.Sprint(merr) {
				t.Fatalf("errors differ:\nviper: %v\nmaps:  %v", verr, merr)
			}
			if diff := cmp.Diff(viper, maps); diff != "" {
				t.Errorf("Configs differ (-viper +maps):\n%s", diff)
			}
		})
	}
}

// The CLI also finds the user's default file, as the service does.
func TestLayersAgreeOnTheDefaultFile(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "egohost")
	os.MkdirAll(dir, 0o700)
	os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("state_dir: /run/default-file\n"), 0o600)
	opts := config.Options{Home: home, GOOS: "linux"}
	viper, verr := viperconfig.Load(opts)
	maps, merr := config.Load(opts)
	if verr != nil || merr != nil {
		t.Fatalf("viper: %v, maps: %v", verr, merr)
	}
	if viper.StateDir != "/run/default-file" || maps.StateDir != viper.StateDir || maps.TokenFile != viper.TokenFile {
		t.Errorf("state dir: viper %s, maps %s; token file: viper %s, maps %s", viper.StateDir, maps.StateDir, viper.TokenFile, maps.TokenFile)
	}
}
