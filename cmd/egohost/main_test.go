package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	if !testing.Short() {
		dir, err := os.MkdirTemp("", "egohost-bins-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), ".", "../egohost-host")
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
