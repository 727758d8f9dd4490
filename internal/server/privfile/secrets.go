package privfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"runtime"
	"strings"
	"time"
)

// LoadOrCreateToken reads the agents' token from path, or creates one
// (32 random bytes, hex) with mode 0600. A token file that other users can
// read is refused: anyone holding the token drives the browser.
func LoadOrCreateToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		var raw [32]byte
		if _, err := rand.Read(raw[:]); err != nil {
			return "", fmt.Errorf("token: %w", err)
		}
		tok := hex.EncodeToString(raw[:])
		if err := Write(path, []byte(tok+"\n")); err != nil {
			return "", fmt.Errorf("token: create %s: %w", path, err)
		}
		return tok, nil
	}
	if err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			return "", fmt.Errorf("token: %w", err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			return "", fmt.Errorf("token: %s is readable by other users (%v): run chmod 600 on it or delete it", path, fi.Mode().Perm())
		}
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < 32 {
		return "", fmt.Errorf("token: %s holds a token shorter than 32 characters", path)
	}
	return tok, nil
}

// ListenSocket listens on a unix socket that only this user may use. A
// stale socket file (no one answers) is removed; a live one means another
// service is running.
func ListenSocket(path string) (net.Listener, error) {
	if c, err := net.DialTimeout("unix", path, 500*time.Millisecond); err == nil {
		c.Close()
		return nil, fmt.Errorf("socket %s: another egohost service is already running", path)
	}
	_ = os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("listen on socket %s: %w", path, err)
	}
	if runtime.GOOS != "windows" {
		if err := os.Chmod(path, 0o600); err != nil {
			ln.Close()
			return nil, fmt.Errorf("socket %s: chmod: %w", path, err)
		}
	}
	return ln, nil
}
