// Package privfile keeps the service's own files private to the user who
// runs it: directories 0700, files 0600, written whole (a reader finds the
// old file or the new one, never half of one), and moved from where an
// older egohost kept them without replacing what is there (Move); the
// agents' token (LoadOrCreateToken) and the service's unix sockets
// (ListenSocket) are this user's only too.
package privfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
)

// EnsureDir creates dir (0700) if needed and refuses one that other
// users can write or read.
func EnsureDir(dir string) error {
	if dir == "" || dir == "." {
		return errors.New("state dir: empty path")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("state dir %s is open to other users (%v) and chmod failed: %w", dir, fi.Mode().Perm(), err)
		}
	}
	return nil
}

// Write writes data to path (0600) atomically.
func Write(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Chmod makes an existing file private (0600); a no-op on Windows.
func Chmod(path string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	return os.Chmod(path, 0o600)
}

// Move moves the regular file from to the path to (made 0600, its
// folders 0700) when from exists and to does not, and reports whether it
// did. It copies when a rename cannot cross file systems (a tmpfs to the
// disk). A symlink at from is not followed, and not moved.
func Move(from, to string) (bool, error) {
	fi, err := os.Lstat(from)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("move %s: %w", from, err)
	}
	if !fi.Mode().IsRegular() {
		return false, nil
	}
	if _, err := os.Lstat(to); err == nil {
		return false, nil // the new place has its own: the old one stays
	} else if !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("move %s: %w", from, err)
	}
	if err := EnsureDir(filepath.Dir(to)); err != nil {
		return false, fmt.Errorf("move %s: %w", from, err)
	}
	if err := os.Link(from, to); err == nil {
		// Same file system: the link keeps to if it already appeared
		// (Link never replaces), unlike a rename.
		os.Remove(from)
		return true, Chmod(to)
	}
	if err := copyNew(from, to); err != nil {
		if errors.Is(err, os.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("move %s to %s: %w", from, to, err)
	}
	if err := os.Remove(from); err != nil {
		return true, fmt.Errorf("move %s: copied, but the old file stays: %w", from, err)
	}
	return true, nil
}

// copyNew copies from into a new file to (0600), which must not exist.
func copyNew(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		os.Remove(to)
		return err
	}
	if err := dst.Sync(); err != nil {
		dst.Close()
		os.Remove(to)
		return err
	}
	return dst.Close()
}
