// Package sockdir makes the short temporary folders that tests put unix
// sockets in: a socket's path is capped (104 bytes on macOS, 108 on
// Linux), and t.TempDir's, which names the test, can be longer.
package sockdir

import (
	"os"
	"testing"
)

// New makes a private temporary folder with a short path, removed when the
// test ends.
func New(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "eg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
