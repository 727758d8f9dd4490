package main

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// What every start of egohost pays before main: Go runs every linked
// package's initialisers, at every `egohost tabs`. Our
// own packages do no work there (a table, a regexp, a hash is built on
// first use), and the outside packages that do are the known ones below:
// a new dependency that works at start, or one of ours that starts to,
// fails here. It counts allocations (GODEBUG=inittrace=1), which do not
// depend on the machine's load; docs/benchmarks.md has the times.
func TestStartDoesNoWork(t *testing.T) {
	bin := binary(t, "egohost")
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("egohost --version: %v\n%s", err, out)
	}
	// init PKG @T ms, C ms clock, B bytes, A allocs
	line := regexp.MustCompile(`(?m)^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)
	inits := line.FindAllStringSubmatch(string(out), -1)
	if len(inits) < 50 {
		t.Fatalf("found %d init lines in the trace; want the binary's packages:\n%.2000s", len(inits), out)
	}
	// The outside packages known to allocate at start (bytes), with what
	// pulls them in. The service's (goja, the MCP SDK, kardianos/service)
	// are egohost-host's only: TestFrontLinksNoHeavyPackage.
	known := map[string]string{
		"go.yaml.in/yaml/v3": "config (config.yaml, the user file)",
		"unicode":            "the standard library",
	}
	var heavy []string
	for _, m := range inits {
		pkg := m[1]
		bytes, _ := strconv.Atoi(m[2])
		allocs, _ := strconv.Atoi(m[3])
		ours := pkg == "main" || strings.HasPrefix(pkg, "github.com/egohost/egohost")
		switch {
		case ours && (allocs > 16 || bytes > 8<<10):
			t.Errorf("%s allocates %d bytes in %d allocations at start: build it on first use (sync.OnceValue), as pairing's CDP rules are", pkg, bytes, allocs)
		case !ours && (allocs >= 64 || bytes >= 8<<10):
			if _, ok := known[pkg]; !ok {
				heavy = append(heavy, pkg+" ("+m[2]+" bytes, "+m[3]+" allocs)")
			}
		}
	}
	slices.Sort(heavy)
	for _, h := range heavy {
		t.Errorf("%s works at every start of the binary, a CLI call's too: keep it out of the binary, or add it to the known list with what pulls it in", h)
	}
}
