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

// From a tmpfs to the disk (another file system: no rename, no link) the
// file is copied, then removed.
func TestMoveAcrossFileSystems(t *testing.T) {
	shm, err := os.MkdirTemp("/dev/shm", "egohost-test-")
	if err != nil {
		t.Skip("no /dev/shm here")
	}
	defer os.RemoveAll(shm)
	from, to := filepath.Join(shm, "agents.json"), filepath.Join(t.TempDir(), "d", "agents.json")
	if err := os.WriteFile(from, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(from, to); err == nil {
		t.Skip("/dev/shm and the temp dir are one file system here")
	}
	moved, err := Move(from, to)
	if err != nil || !moved {
		t.Fatalf("got %v %v, want moved", moved, err)
	}
	if b, err := os.ReadFile(to); err != nil || string(b) != "x" {
		t.Errorf("copied: %q %v", b, err)
	}
	if _, err := os.Stat(from); !os.IsNotExist(err) {
		t.Errorf("the old file stays (%v)", err)
	}
}

// A move never replaces a file at its destination, never follows nor
// moves a symlink, and makes what it moved owner-only.
func TestMove(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no unix modes on windows")
	}
	dir := t.TempDir()
	write := func(name, content string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	from, to := write("from", "new"), filepath.Join(dir, "sub", "to")
	if moved, err := Move(from, to); err != nil || !moved {
		t.Fatalf("a move: got %v, %v, want moved", moved, err)
	}
	if fi, err := os.Stat(to); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the moved file: got %v, %v, want mode 0600", fi.Mode(), err)
	}
	if moved, err := Move(from, to); err != nil || moved {
		t.Errorf("a missing file: got %v, %v, want nothing moved", moved, err)
	}
	again := write("again", "other")
	if moved, err := Move(again, to); err != nil || moved {
		t.Errorf("onto a file: got %v, %v, want nothing moved", moved, err)
	}
	if b, _ := os.ReadFile(to); string(b) != "new" {
		t.Errorf("onto a file: got %q there, want it kept", b)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(again, link); err != nil {
		t.Fatal(err)
	}
	if moved, err := Move(link, filepath.Join(dir, "linked")); err != nil || moved {
		t.Errorf("a symlink: got %v, %v, want nothing moved", moved, err)
	}
}

func TestTokenFileMustBePrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "token")
	tok, err := LoadOrCreateToken(path)
	if err != nil || len(tok) != 64 {
		t.Fatalf("create: got %q, %v", tok, err)
	}
	fi, _ := os.Stat(path)
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("token mode: got %v, want 0600", got)
	}
	again, err := LoadOrCreateToken(path)
	if err != nil || again != tok {
		t.Errorf("reload: got %q, %v; want the same token", again, err)
	}
	os.Chmod(path, 0o644)
	if _, err := LoadOrCreateToken(path); err == nil {
		t.Error("a world-readable token file was accepted")
	}
}
