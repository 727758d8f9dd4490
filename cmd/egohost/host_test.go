package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// run runs a built binary with args in a private configuration and
// returns its stdout, stderr and exit code.
func runBin(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	state := t.TempDir()
	cmd.Env = append(os.Environ(), "EGOHOST_CONFIG=", "EGOHOST_STATE_DIR="+state, "EGOHOST_DATA_DIR="+state, "EGOHOST_LISTEN=127.0.0.1:0", "HOME="+t.TempDir())
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %q: %v", bin, args, err)
	}
	return out.String(), errb.String(), code
}

// Both binaries build their help from one command tree (every command's
// help is compared in process by cmd/egohost-host's
// TestHelpIsTheSameWithoutTheHost): the binaries say the same too, for a
// client verb, a command only egohost-host runs, the root, the version
// and a mistyped verb.
func TestHelpIsTheSameInBothBinaries(t *testing.T) {
	front, full := binary(t, "egohost"), binary(t, "egohost-host")
	for _, args := range [][]string{{"--help"}, {"--version"}, {"tabs", "--help"}, {"serve", "--help"}, {"clik"}, {"serve", "x"}} {
		o1, e1, c1 := runBin(t, front, args...)
		o2, e2, c2 := runBin(t, full, args...)
		if o1 != o2 || e1 != e2 || c1 != c2 {
			t.Errorf("%q: egohost says (exit %d)\n%s%s\negohost-host says (exit %d)\n%s%s", args, c1, o1, e1, c2, o2, e2)
		}
	}
}

// egohost runs egohost-host for a command it does not have (doctor):
// the full binary answers, and names itself as the binary to register.
func TestFrontRunsTheFullBinary(t *testing.T) {
	front, full := binary(t, "egohost"), binary(t, "egohost-host")
	out, errs, _ := runBin(t, front, "doctor", "--json")
	var r struct {
		Checks []struct{ Name, Status, Detail string }
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("egohost doctor --json printed %q (stderr %q): %v", out, errs, err)
	}
	for _, c := range r.Checks {
		if c.Name == "binary" && !strings.Contains(c.Detail, full) {
			t.Errorf("doctor's binary check: got %q, want it to name %s (what install registers)", c.Detail, full)
		}
	}
	// Alone in its folder, egohost says where it looked.
	alone := filepath.Join(t.TempDir(), filepath.Base(front))
	b, err := os.ReadFile(front)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o700); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runBin(t, alone, "serve")
	want := filepath.Join(filepath.Dir(alone), "egohost-host")
	if code != 1 || !strings.Contains(errs, want) || !strings.Contains(errs, "go install ./cmd/...") {
		t.Errorf("egohost serve without egohost-host: got exit %d, stderr %q; want exit 1 naming %s and go install ./cmd/...", code, errs, want)
	}
	// A client verb never needs it.
	if _, errs, code := runBin(t, alone, "tabs"); code != 1 || !strings.Contains(errs, "never run") {
		t.Errorf("egohost tabs without egohost-host or a service: got exit %d, stderr %q; want the service's absence", code, errs)
	}
}
