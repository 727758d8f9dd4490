package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// charsPage is a page whose full snapshot the chars benchmark reads.
type charsPage struct {
	name, url string
	want      string // text both snapshots must hold (the page loaded)
}

// BenchmarkSnapshotChars compares the characters of egohost's full
// snapshot (`egohost mcp`'s browser_snapshot with interactive=false) with
// Playwright MCP's browser_snapshot, on the same browser and pages: the
// benchmark pages (checkout, shop, the 15,000-element list) and Debian's
// DokuWiki (its start, wiki:dokuwiki and wiki:syntax pages) served by
// scripts/dokuwiki.sh when it is installed. Characters do not move between
// runs: one snapshot each per page. EGOHOST_BENCH_DUMP=DIR writes both
// texts of every page to DIR (to read what the characters are spent on).
// Run: go test ./e2e -run '^$' -bench SnapshotChars -benchtime 1x -timeout 20m
func BenchmarkSnapshotChars(b *testing.B) {
	b.Setenv("EGOHOST_TIMEOUTS_REQUEST", "120s")
	c := startChainConfig(b, confirmOff)
	base := serveHandler(b, benchPagesHandler(make(chan string, 1)))
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	endpoint := browsertest.DevToolsURL(ctx, b, c.proc)
	pwCS := startPlaywrightMCP(ctx, b, endpoint)
	egoCS, _ := startMCP(b, c.svc.stateDir)
	for _, cs := range []*mcp.ClientSession{egoCS, pwCS} { // a tab of its own each
		if r := callTool(b, cs, "browser_tabs", map[string]any{"action": "new"}); r.isErr {
			b.Fatal(r.text)
		}
	}

	pages := []charsPage{
		{"checkout", base + "/checkout", "Place order"},
		{"shop", base + "/shop", "€289.90"},
	}
	wiki, err := startDokuWiki(ctx, b)
	if err != nil {
		fmt.Printf("DokuWiki rows left out: %v\n", err)
	} else {
		pages = append(pages,
			charsPage{"DokuWiki start", wiki + "/doku.php", "DokuWiki"},
			charsPage{"DokuWiki wiki:dokuwiki", wiki + "/doku.php?id=wiki:dokuwiki", "DokuWiki"},
			charsPage{"DokuWiki wiki:syntax", wiki + "/doku.php?id=wiki:syntax", "Formatting Syntax"})
	}
	// The list last: its 10,000 refs would make every later page's refs a
	// digit or two longer (the service never gives a number twice, in any
	// tab, so refs grow with its age; see docs/snapshot.md).
	if !testing.Short() {
		pages = append(pages, charsPage{"15,000-element list", base + "/list", "Span 4999"})
	}
	dump := os.Getenv("EGOHOST_BENCH_DUMP")
	read := func(cs *mcp.ClientSession, page charsPage, args map[string]any, file string) int {
		a := &mcpAgent{tb: b, name: file, cs: cs}
		// Not a.setup: Playwright MCP's navigation answers with a snapshot
		// it gives up on after its own 30 s on a loaded machine; the page
		// is loaded all the same, and the snapshot below must hold want.
		callTool(b, cs, "browser_navigate", map[string]any{"url": page.url})
		text := a.call("browser_snapshot", args)
		callTool(b, cs, "browser_navigate", map[string]any{"url": "about:blank"})
		if a.err != nil {
			b.Fatalf("%s, %s: %v", file, page.name, a.err)
		}
		if !strings.Contains(text, page.want) {
			b.Fatalf("%s, %s: %q is not in the snapshot:\n%s", file, page.name, page.want, text)
		}
		if dump != "" {
			name := strings.NewReplacer(" ", "-", ",", "", ":", "-").Replace(page.name) + "." + file + ".txt"
			if err := os.WriteFile(filepath.Join(dump, name), []byte(text), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		return a.chars
	}
	var tb strings.Builder
	tb.WriteString("| page | egohost full | Playwright MCP | ratio |\n|---|---:|---:|---:|\n")
	for _, p := range pages {
		ego := read(egoCS, p, map[string]any{"interactive": false}, "egohost")
		pw := read(pwCS, p, nil, "pwmcp")
		fmt.Fprintf(&tb, "| %s | %d | %d | %.2f× |\n", p.name, ego, pw, float64(ego)/float64(pw))
	}
	// Printed, not logged: go test cuts a benchmark's log after a few lines.
	fmt.Printf("Snapshot characters, egohost full vs Playwright MCP browser_snapshot\n%s", tb.String())
}

// startDokuWiki serves a private copy of Debian's DokuWiki with
// scripts/dokuwiki.sh and returns its base URL; an error says why it
// cannot (not installed).
func startDokuWiki(ctx context.Context, tb testing.TB) (string, error) {
	if _, err := os.Stat("/usr/share/dokuwiki/doku.php"); err != nil {
		return "", fmt.Errorf("DokuWiki is not installed (apt-get install -y dokuwiki php-cli): %w", err)
	}
	if _, err := exec.LookPath("php"); err != nil {
		return "", fmt.Errorf("DokuWiki needs php-cli: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return "", err
	}
	script, _ := filepath.Abs("../scripts/dokuwiki.sh")
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.Command("sh", script, tb.TempDir(), strconv.Itoa(port))
	if err := serveApp(ctx, tb, "DokuWiki", cmd, base+"/doku.php", 60*time.Second); err != nil {
		return "", err
	}
	return base, nil
}
