package service

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/egohost/egohost/internal/server/browserids"
	"github.com/egohost/egohost/internal/server/hub"
)

// The durable files an older egohost left in the runtime folder move to
// the data dir once; a file the data dir has already is never replaced,
// and a symlink is not followed.
func TestMigrateDurable(t *testing.T) {
	run, data := t.TempDir(), filepath.Join(t.TempDir(), "data")
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{agentsFile, spacesFile, browserids.File, hub.RefsFile, AuditFile, AuditFile + ".1", AuditFile + ".2", "agents/claude.token"} {
		write(filepath.Join(run, name), "old "+name)
	}
	write(filepath.Join(data, spacesFile), "new spaces")
	write(filepath.Join(run, "token"), "owner") // live: stays
	write(filepath.Join(run, "secret"), "not ours")
	if err := os.Symlink(filepath.Join(run, "secret"), filepath.Join(run, "agents", "evil.token")); err != nil {
		t.Fatal(err)
	}

	moved, err := MigrateDurable(run, data)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(moved)
	want := []string{"agents.json", "agents/claude.token", "audit.log", "audit.log.1", "audit.log.2", "browsers.json", "refs-next"}
	if !slices.Equal(moved, want) {
		t.Errorf("moved %v, want %v", moved, want)
	}
	for _, name := range want {
		b, err := os.ReadFile(filepath.Join(data, name))
		if err != nil || string(b) != "old "+name {
			t.Errorf("%s in the data dir: %q %v", name, b, err)
		}
		if st, err := os.Stat(filepath.Join(data, name)); err == nil && st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", name, st.Mode().Perm())
		}
		if _, err := os.Stat(filepath.Join(run, name)); !os.IsNotExist(err) {
			t.Errorf("%s is still in the runtime folder (%v)", name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(data, spacesFile)); string(b) != "new spaces" {
		t.Errorf("spaces.json in the data dir: got %q, want it kept", b)
	}
	if _, err := os.Stat(filepath.Join(run, spacesFile)); err != nil {
		t.Errorf("the old spaces.json (not moved: the data dir has one) is gone: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(data, "agents", "evil.token")); !os.IsNotExist(err) {
		t.Errorf("a symlink was moved (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(run, "token")); err != nil {
		t.Errorf("the owner token left the runtime folder: %v", err)
	}
	if st, err := os.Stat(filepath.Join(data, "agents")); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("agents folder: %v %v, want 0700", st.Mode().Perm(), err)
	}
	if again, err := MigrateDurable(run, data); err != nil || len(again) != 0 {
		t.Errorf("a second migration: moved %v (%v), want nothing", again, err)
	}
}
