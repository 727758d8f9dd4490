package e2e

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestDokuWikiEditByRefs edits a page of a real application (Debian's
// DokuWiki under php -S, a private copy) as an agent does through the CLI:
// read the editor's refs, fill the page's text by its ref, save by the
// button's ref, read the saved page, follow a link by its ref; then a ref
// of the page before that navigation fails as stale instead of acting. It
// needs `apt-get install dokuwiki php-cli` and skips without them (CI does
// not install them; the DokuWiki benchmarks skip there likewise).
func TestDokuWikiEditByRefs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	wiki, err := startDokuWiki(ctx, t)
	if err != nil {
		t.Skip(err)
	}
	c := useSharedChain(t)
	tab := c.openTab(t, wiki+"/doku.php?id=playground:playground&do=edit")
	run, refIn := appCLI(t, c, tab, "DokuWiki")
	editor := run("snapshot", "-i")
	text, save := refIn(editor, `(?m)^\s*textbox @(\d+): =+ PlayGround`), refIn(editor, `button "Save" @(\d+)`)
	const words = "egohost was here, by its refs"
	run("fill", text, words)
	run("click", save)
	if page := run("snapshot"); !strings.Contains(page, words) || strings.Contains(page, `button "Save"`) {
		t.Fatalf("after the save, the page shows:\n%s", page)
	}
	sitemap := refIn(run("snapshot", "-i"), `link "Sitemap" @(\d+)`)
	run("click", sitemap)
	if got := run("eval", "new URLSearchParams(location.search).get('do')"); strings.TrimSpace(got) != "index" {
		t.Errorf("after the Sitemap link: do=%s, want index", got)
	}
	// The editor's Save button is gone with its page: its ref fails, and
	// nothing is clicked.
	out, errOut, code := c.cli(tab, "click", save)
	if code == 0 || !strings.Contains(out+errOut, "stale") {
		t.Errorf("click %s of a page left behind: exit %d, %s%s; want a stale ref error", save, code, out, errOut)
	}
}
