package nodescript

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/egohost/egohost/internal/testkit/ci"
)

func TestLines(t *testing.T) {
	_, err := exec.LookPath("node")
	ci.Need(t, err)
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.mjs")
	os.WriteFile(ok, []byte(`console.log(JSON.stringify({n: Number(process.argv[2])})); console.log('{"n": 2}');`), 0o600)
	type line struct{ N int }
	got, err := Lines[line](context.Background(), ok, "1")
	if err != nil || len(got) != 2 || got[0].N != 1 || got[1].N != 2 {
		t.Errorf("Lines: got %+v, %v; want n=1, n=2", got, err)
	}
	bad := filepath.Join(dir, "bad.mjs")
	os.WriteFile(bad, []byte(`import 'playwright-core';`), 0o600)
	if _, err := Lines[line](context.Background(), bad); !errors.Is(err, ErrNoNode) {
		t.Errorf("missing playwright-core: got %v, want ErrNoNode", err)
	}
	garbled := filepath.Join(dir, "garbled.mjs")
	os.WriteFile(garbled, []byte(`console.log("not json")`), 0o600)
	if _, err := Lines[line](context.Background(), garbled); err == nil {
		t.Error("a line that is not JSON was accepted")
	}
}

func TestColumn(t *testing.T) {
	t.Setenv("CI", "")
	if !Column(t, nil) {
		t.Error("Column(nil): got false, want true")
	}
	if Column(t, fmt.Errorf("pw.mjs: %w", ErrNoNode)) {
		t.Error("Column(ErrNoNode) outside CI: got true, want false")
	}
}
