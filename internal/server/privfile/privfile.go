// Package privfile keeps the service's own files private to the user who
// runs it: directories 0700, files 0600, written whole (a reader finds the
// old file or the new one, never half of one).
package privfile

import (
	"errors"
	"fmt"
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
