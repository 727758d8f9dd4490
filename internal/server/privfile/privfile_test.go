package privfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestEnsureDirClosesAnOpenDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no unix modes on windows")
	}
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o700 {
		t.Errorf("got mode %v, want 0700", got)
	}
	for _, bad := range []string{"", "."} {
		if err := EnsureDir(bad); err == nil {
			t.Errorf("EnsureDir(%q): got no error, want one", bad)
		}
	}
}

func TestWriteReplacesWholeAndPrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := os.WriteFile(path, []byte("old, and longer than the new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "new" {
		t.Errorf("got %q, want %q", b, "new")
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(path)
		if got := fi.Mode().Perm(); got != 0o600 {
			t.Errorf("got mode %v, want 0600", got)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("got %d files in the dir, want 1 (no temp file left)", len(entries))
	}
}
