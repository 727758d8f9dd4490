package hostexec

import (
	"path/filepath"
	"testing"
)

// A binary that is not there: Exec returns the error, and says nothing
// ran (the process was not replaced and no child exited).
func TestExecOfAMissingBinaryFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "egohost-host")
	code, exited, err := Exec(path, []string{path, "doctor"}, nil)
	if err == nil || exited || code != 0 {
		t.Fatalf("got code %d, exited %v, err %v; want an error, nothing exited", code, exited, err)
	}
}
