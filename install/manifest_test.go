package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHostManifestJSON(t *testing.T) {
	m := NewHostManifest("com.egohost.host", "/usr/local/bin/egohost", []string{testID})
	got, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "name": "com.egohost.host",
  "description": "egohost: lets local agents drive this browser",
  "path": "/usr/local/bin/egohost",
  "type": "stdio",
  "allowed_origins": [
    "chrome-extension://aokapgkciafkaelljglcdibalbfomkdb/"
  ]
}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("manifest JSON mismatch (-want +got):\n%s", diff)
	}
}

func TestHostManifestValidate(t *testing.T) {
	good := NewHostManifest("com.egohost.host", "/opt/egohost", []string{testID})
	tests := []struct {
		name    string
		modify  func(m *HostManifest)
		wantErr string
	}{
		{name: "good", modify: func(*HostManifest) {}},
		{name: "relative path", modify: func(m *HostManifest) { m.Path = "egohost" }, wantErr: `path "egohost" is not absolute`},
		{name: "empty path", modify: func(m *HostManifest) { m.Path = "" }, wantErr: `path "" is not absolute`},
		{name: "upper-case name", modify: func(m *HostManifest) { m.Name = "Com.Egohost" }, wantErr: `name "Com.Egohost"`},
		{name: "leading dot", modify: func(m *HostManifest) { m.Name = ".com" }, wantErr: `name ".com"`},
		{name: "trailing dot", modify: func(m *HostManifest) { m.Name = "com." }, wantErr: `name "com."`},
		{name: "double dot", modify: func(m *HostManifest) { m.Name = "com..x" }, wantErr: `name "com..x"`},
		{name: "path separator in name", modify: func(m *HostManifest) { m.Name = "../x" }, wantErr: `name "../x"`},
		{name: "type", modify: func(m *HostManifest) { m.Type = "" }, wantErr: `type ""`},
		{name: "no origins", modify: func(m *HostManifest) { m.AllowedOrigins = nil }, wantErr: "no allowed origins"},
		{
			name:    "origin without trailing slash",
			modify:  func(m *HostManifest) { m.AllowedOrigins = []string{"chrome-extension://" + testID} },
			wantErr: `origin "chrome-extension://` + testID + `"`,
		},
		{
			name:    "origin with a bad ID",
			modify:  func(m *HostManifest) { m.AllowedOrigins = []string{"chrome-extension://xyz/"} },
			wantErr: `origin "chrome-extension://xyz/"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := good
			m.AllowedOrigins = append([]string(nil), good.AllowedOrigins...)
			tt.modify(&m)
			err := m.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("got error %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("got error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestWriteManifest(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "NativeMessagingHosts")
	m := NewHostManifest("com.egohost.host", "/opt/egohost", []string{testID, strings.Repeat("b", 32)})

	for i := range 2 { // the second write replaces the first
		if i == 1 {
			m.Path = "/opt/egohost2"
		}
		path, err := WriteManifest(dir, m)
		if err != nil {
			t.Fatalf("write %d: got error %v, want nil", i, err)
		}
		if want := filepath.Join(dir, "com.egohost.host.json"); path != want {
			t.Errorf("write %d: got path %q, want %q", i, path, want)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var got HostManifest
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatalf("write %d: manifest is not JSON: %v", i, err)
		}
		if diff := cmp.Diff(m, got); diff != "" {
			t.Errorf("write %d: manifest mismatch (-want +got):\n%s", i, diff)
		}
	}

	tests := []struct {
		path string
		want os.FileMode
	}{
		{filepath.Join(dir, "com.egohost.host.json"), 0o600},
		{dir, 0o700 | os.ModeDir},
		{filepath.Dir(dir), 0o700 | os.ModeDir},
	}
	for _, tt := range tests {
		fi, err := os.Stat(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode(); got != tt.want {
			t.Errorf("%s: got mode %v, want %v", tt.path, got, tt.want)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("got %d files in %s, want 1 (no temporary file left)", len(entries), dir)
	}
}

func TestWriteManifestRefusesBadManifest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hosts")
	m := NewHostManifest("com.egohost.host", "bin/egohost", []string{testID})
	_, err := WriteManifest(dir, m)
	if err == nil || !strings.HasPrefix(err.Error(), "write manifest: host manifest: path") {
		t.Errorf("got error %v, want a relative-path error", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("got %v, want the folder not created", err)
	}
}

func TestRemoveManifest(t *testing.T) {
	dir := t.TempDir()
	m := NewHostManifest("com.egohost.host", "/opt/egohost", []string{testID})
	path, err := WriteManifest(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // removing twice is fine
		if err := RemoveManifest(dir, m.Name); err != nil {
			t.Errorf("remove %d: got error %v, want nil", i, err)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("got %v, want the manifest gone", err)
	}
	if err := RemoveManifest(dir, "../x"); err == nil {
		t.Error("got nil error for a bad name, want one")
	}
}

func TestInspectManifest(t *testing.T) {
	want := NewHostManifest("com.egohost.host", "/opt/egohost", []string{testID})
	other := NewHostManifest("com.egohost.host", "/old/egohost", []string{strings.Repeat("b", 32)})
	tests := []struct {
		name       string
		content    string // "" = no file
		wantState  ManifestState
		wantDetail string
	}{
		{name: "missing", wantState: ManifestMissing},
		{name: "up to date", content: mustJSON(t, want), wantState: ManifestUpToDate},
		{name: "other binary and origin", content: mustJSON(t, other), wantState: ManifestDifferent,
			wantDetail: "points at /old/egohost, not this binary (/opt/egohost); allowed_origins [chrome-extension://bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb/] lack chrome-extension://" + testID + "/"},
		{name: "not JSON", content: "{", wantState: ManifestInvalid, wantDetail: "not valid JSON"},
		{name: "breaks Chrome's rules", content: `{"name":"com.egohost.host","path":"egohost","type":"stdio","allowed_origins":["chrome-extension://` + testID + `/"]}`, wantState: ManifestInvalid, wantDetail: "is not absolute"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.content != "" {
				if err := os.WriteFile(filepath.Join(dir, "com.egohost.host.json"), []byte(tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			r := InspectManifest(dir, want)
			if r.State != tt.wantState || !strings.Contains(r.Detail, tt.wantDetail) {
				t.Errorf("got state %v, detail %q; want %v, %q", r.State, r.Detail, tt.wantState, tt.wantDetail)
			}
			if want := filepath.Join(dir, "com.egohost.host.json"); r.Path != want {
				t.Errorf("got path %q, want %q", r.Path, want)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
