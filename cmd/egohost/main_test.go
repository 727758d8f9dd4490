package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// bins is the folder where TestMain built egohost and egohost-host
// ("" with -short: the tests that run them skip).
var bins string

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	flag.Parse()
	if raceDetector && !strings.Contains(os.Getenv("GORACE"), "atexit_sleep_ms") {
		// A race-built process sleeps a second at exit (see e2e's TestMain).
		os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	}
	if dir := os.Getenv("EGOHOST_E2E_BIN"); dir != "" && !testing.Short() {
		// The binaries scripts/test.sh built once for e2e and these
		// tests, with -race as both are: linking them again costs ~10 s
		// of CPU.
		bins = dir
	} else if !testing.Short() {
		dir, err := os.MkdirTemp("", "egohost-bins-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		args := []string{"build", "-o", dir + string(filepath.Separator)}
		if raceDetector {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, ".", "../egohost-host")...)
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
			return 1
		}
		bins = dir
	}
	return m.Run()
}

// binary is the built egohost (or egohost-host: name), skipping with -short.
func binary(t *testing.T, name string) string {
	t.Helper()
	if bins == "" {
		t.Skip("builds the binaries")
	}
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(bins, name)
}
