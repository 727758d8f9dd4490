package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/egohost/egohost"
	"github.com/egohost/egohost/internal/setup/config"
)

// `trace show NAME` reads the traces folder only: a file of that name in
// the current folder does not stand in for the trace; a path says so
// with a slash.
func TestTracePathNamesAreTheTracesFolders(t *testing.T) {
	data := t.TempDir()
	t.Chdir(t.TempDir())
	if err := os.WriteFile("trace-1.jsonl", []byte("forged"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := &env{cfg: &config.Config{DataDir: data}}
	tests := []struct {
		name, want string // want "" for an error
	}{
		{"trace-1.jsonl", filepath.Join(data, egohost.TracesDir, "trace-1.jsonl")},
		{"./trace-1.jsonl", "./trace-1.jsonl"},
		{"/tmp/t.jsonl", "/tmp/t.jsonl"},
		{`dir\t.jsonl`, `dir\t.jsonl`},
		{"..", ""},
		{".", ""},
	}
	for _, tt := range tests {
		got, err := e.tracePath(tt.name)
		if tt.want == "" {
			if err == nil {
				t.Errorf("tracePath(%q): got %q, want an error", tt.name, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("tracePath(%q): got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}
