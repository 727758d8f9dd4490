package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFrontLinksNoHeavyPackage keeps egohost, the binary an agent runs
// per step, off what only the full binary needs: Go links and initialises
// every package a binary imports, at every start. These run in
// egohost-host (cli.Host), which egohost executes for its commands.
// (viper stays: it is the project's config library, and a verb reads the
// config at every call; it costs about 1 ms of the start.)
func TestFrontLinksNoHeavyPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	forbidden := []struct{ prefix, why string }{
		{"github.com/dop251/goja", "the script sandbox (the service's)"},
		{"github.com/modelcontextprotocol/", "the MCP SDK (egohost mcp)"},
		{"github.com/google/jsonschema-go", "the MCP SDK"},
		{"github.com/kardianos/service", "install --service"},
		{"github.com/google/pprof", "goja"},
		{"net/http/pprof", "the service's debug endpoint"},
		{"encoding/gob", "the MCP SDK"},
		{"github.com/egohost/egohost/service", "the service"},
		{"github.com/egohost/egohost/relay", "relay mode"},
		{"github.com/egohost/egohost/mcpserver", "egohost mcp"},
		{"github.com/egohost/egohost/script", "the script sandbox"},
		{"github.com/egohost/egohost/install", "install, doctor"},
		{"github.com/egohost/egohost/launcher", "launch, demo"},
		{"github.com/egohost/egohost/browser", "launch, demo"},
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if pkg == f.prefix || strings.HasPrefix(pkg, strings.TrimSuffix(f.prefix, "/")+"/") {
				t.Errorf("egohost links %s (%s): it belongs in egohost-host (a cli.Host command)", pkg, f.why)
			}
		}
	}
}
