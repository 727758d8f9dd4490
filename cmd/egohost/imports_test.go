package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFrontLinksNoHeavyPackage keeps egohost, the binary an agent runs
// per step, off what only the full binary needs: Go links and initialises
// every package a binary imports, at every start. These run in
// egohost-host (cli.Host), which egohost executes for its commands. A
// verb reaches the service on the agent socket (rpcclient), not the
// WebSocket, and reads the configuration with plain maps (config.Load),
// not viper (internal/setup/config/viperconfig, the service's reader): both linked
// net/http, TLS and HTTP/2, whose start every call paid
// (docs/benchmarks.md, "What a CLI call costs"). Likewise the ref map
// (cdproto) and trace show's html/template: 175 packages → 161.
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
		{"github.com/egohost/egohost/internal/server/service", "the service"},
		{"github.com/egohost/egohost/internal/server/ownermethods", "the person's methods (the service's)"},
		{"github.com/egohost/egohost/internal/server/cdpmethods", "the service's raw CDP methods"},
		{"github.com/egohost/egohost/internal/server/popuptools", "the popup's page tools (the service's)"},
		{"github.com/egohost/egohost/internal/server/tabmethods", "the service's browsers and tabs methods"},
		{"github.com/egohost/egohost/internal/server/tabdata", "the service's methods of a tab's data"},
		{"github.com/egohost/egohost/internal/server/confirmmethods", "the service's confirmations"},
		{"github.com/egohost/egohost/internal/server/pagemethods", "the page methods' handlers (the service's)"},
		{"github.com/egohost/egohost/internal/link/relay", "relay mode"},
		{"github.com/egohost/egohost/internal/front/mcpserver", "egohost mcp"},
		{"github.com/egohost/egohost/internal/server/script", "the script sandbox"},
		{"github.com/egohost/egohost/install", "install, doctor"},
		{"github.com/egohost/egohost/internal/setup/launcher", "launch, demo"},
		{"github.com/egohost/egohost/internal/setup/browser", "launch, demo"},
		{"net/http", "the WebSocket client (the CLI dials the agent socket)"},
		{"crypto/tls", "net/http"},
		{"github.com/coder/websocket", "the WebSocket client (the CLI dials the agent socket)"},
		{"github.com/egohost/egohost/client", "the WebSocket client (rpcclient is the CLI's)"},
		{"github.com/spf13/viper", "the service's config reader (config.Load reads the same files)"},
		{"github.com/spf13/afero", "viper"},
		{"github.com/egohost/egohost/internal/setup/config/viperconfig", "viper"},
		{"github.com/egohost/egohost/refmap", "the ref map (a target's syntax, refs too, is locator's)"},
		{"github.com/chromedp/", "refmap (cdproto and its JSON, whose init every start paid)"},
		{"github.com/go-json-experiment/", "cdproto"},
		{"github.com/egohost/egohost/internal/server/trace", "trace show's HTML page (Host.TraceHTML)"},
		{"html/template", "trace show's HTML page (Host.TraceHTML)"},
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if pkg == f.prefix || strings.HasPrefix(pkg, strings.TrimSuffix(f.prefix, "/")+"/") {
				t.Errorf("egohost links %s (%s): it belongs in egohost-host (a cli.Host command)", pkg, f.why)
			}
		}
	}
}
