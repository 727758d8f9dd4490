package resolver_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/setup/browser"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/nodescript"
	"github.com/egohost/egohost/internal/testkit/resolverbench"
	"github.com/egohost/egohost/resolver"
)

// BenchmarkResolve measures resolve-to-centre by role, by text and by css
// on a page of 5,000 list items (500 under -short) over a direct DevTools session, and
// Playwright's locator.boundingBox() for the same elements on the same
// browser, and logs the table of docs/benchmarks.md. Each cell is the
// median of b.N resolutions (run with -benchtime Nx).
func BenchmarkResolve(b *testing.B) {
	items := resolverbench.ItemsFor(testing.Short())
	srv := browsertest.Serve(b, resolverbench.Handler(items))
	br := browsertest.Launch(b, browser.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	endpoint := browsertest.DevToolsURL(ctx, b, br.Process)
	url := srv + "/list"
	counter := &resolverbench.Counter{Sessions: br.NewPage(b, url)}
	p, err := cdptab.Open(ctx, counter)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	r := resolver.New(p, nil)
	runs := b.N
	cases := resolverbench.Cases(items)
	rows := make([]resolverbench.Row, len(cases))
	var selectors []string
	for i, c := range cases {
		rows[i].Case = c
		if rows[i].Egohost, err = resolverbench.Measure(ctx, r, counter, c.Egohost, runs); err != nil {
			b.Fatalf("%s: %v", c.Egohost, err)
		}
		selectors = append(selectors, c.Playwright)
	}
	script, _ := filepath.Abs("../bench/pw-resolve.mjs")
	pw, err := resolverbench.Playwright(ctx, script, endpoint, url, selectors, runs)
	if nodescript.Column(b, err) {
		for i := range rows {
			rows[i].PW, rows[i].HavePW = pw[i], true
			rows[i].SameSpot = math.Abs(pw[i].X-rows[i].Egohost.X) < 1 && math.Abs(pw[i].Y-rows[i].Egohost.Y) < 1
		}
	}
	for _, row := range rows {
		b.ReportMetric(row.Egohost.MedianMs, row.Case.Name+"-ms")
		if row.HavePW {
			b.ReportMetric(row.PW.MedianMs, row.Case.Name+"-pw-ms")
		}
	}
	// Printed, not logged: the testing package cuts long benchmark logs.
	fmt.Printf("%d items, runs per cell: %d (median)\n%s", items, runs, resolverbench.Table(rows))
}

// The same locators pick the same elements as Playwright's (getByRole,
// getByText, getByLabel… semantics), on the same page in the same browser.
func TestSameElementsAsPlaywright(t *testing.T) {
	b := browsertest.Launch(t, browser.Options{})
	url := fixture(t)
	p, ctx := tab(t, b, url)
	r := resolver.New(p, nil)
	cases := []struct{ ours, theirs string }{
		{"#save", "#save"},
		{`role=button[name="save draft"]`, `internal:role=button[name="save draft"i]`},
		{`role=button[name="Save"s]`, `internal:role=button[name="Save"s]`},
		{`role=button[name="close"]`, `internal:role=button[name="close"i]`},
		{`role=textbox[name="email"]`, `internal:role=textbox[name="email"i]`},
		{`role=checkbox[checked]`, `internal:role=checkbox[checked=true]`},
		{`role=heading[level=2]`, `internal:role=heading[level=2]`},
		{`role=link[name="home"]`, `internal:role=link[name="home"i]`},
		{`role=img[name="cat"]`, `internal:role=img[name="cat"i]`},
		{`role=button[name="Buy"] >> nth=1`, `internal:role=button[name="Buy"i] >> nth=1`},
		{`role=button[name="Buy"] >> last`, `internal:role=button[name="Buy"i] >> nth=-1`},
		{"text=text WITH bold", `internal:text="text WITH bold"i`},
		{`text="bold words"`, `internal:text="bold words"s`},
		{"text=Row", `internal:text="Row"i`},
		{"text=glued words", `internal:text="glued words"i`},
		{"text=Send it", `internal:text="Send it"i`},
		{"label=Email", `internal:label="Email"i`},
		{"label=Search the", `internal:label="Search the"i`},
		{"placeholder=example.com", `internal:attr=[placeholder="example.com"i]`},
		{"alt=a cat", `internal:attr=[alt="a cat"i]`},
		{"title=helpful", `internal:attr=[title="helpful"i]`},
		{"testid=row-1", `internal:testid=[data-testid="row-1"s]`},
		{"id=row", "id=row"},
		{"data-testid=row-1", "data-testid=row-1"},
		{"id=sbtn", "id=sbtn"},
		{"xpath=//a[@href='/home']", "xpath=//a[@href='/home']"},
		{`css=li >> has-text="Eggs"i >> css=button`, `li >> internal:has-text="Eggs"i >> button`},
		{`css=li >> has=#buybread`, `li >> internal:has="#buybread"`},
		{`.dup >> nth=2`, `.dup >> nth=2`},
		{"#sbtn", "#sbtn"},
		{"text=Shadow text", `internal:text="Shadow text"i`},
		{`role=button[name="shadow"]`, `internal:role=button[name="shadow"i]`},
		// A table's rows, which Chrome leaves unnamed, by their names from
		// content.
		{`role=row[name="ink"]`, `internal:role=row[name="ink"i]`},
		{`role=row[name="Pick edit Ink 7"s]`, `internal:role=row[name="Pick edit Ink 7"s]`},
		{`role=row[name=/^edit Pen/]`, `internal:role=row[name=/^edit Pen/]`},
		{`role=row[name="Pen"] >> role=link`, `internal:role=row[name="Pen"i] >> internal:role=link`},
		{"placeholder=Shadow field", `internal:attr=[placeholder="Shadow field"i]`},
	}
	sameAsPlaywright(ctx, t, b, url, r, cases)
}

// A row's name is its content as Playwright reads it: a field in it gives
// its value, not the label its aria-labelledby points at when that label
// is in the row already (Fossil's login: row "User ID:", not "User ID:
// User ID:"), nor its aria-label.
func TestRowNamesAsPlaywright(t *testing.T) {
	b := browsertest.Launch(t, browser.Options{})
	url := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": `<!doctype html><body><table>
<tr><th>Field</th><th>Value</th></tr>
<tr><td id=l>User ID:</td><td><input aria-labelledby=l></td></tr>
<tr><td>Pw</td><td><input aria-label="Secret"></td></tr>
<tr><td id=m>Mail</td><td><input aria-labelledby=m value="a@b"></td></tr>
<tr><td>Elsewhere</td><td><input aria-labelledby=far></td></tr></table><p id=far>Far label</p>`})) + "/"
	p, ctx := tab0(t, b, url)
	r := resolver.New(p, nil)
	sameAsPlaywright(ctx, t, b, url, r, []struct{ ours, theirs string }{
		{`role=row[name="User ID:"s]`, `internal:role=row[name="User ID:"s]`},
		{`role=row[name="Pw"s]`, `internal:role=row[name="Pw"s]`},
		{`role=row[name="Mail a@b"s]`, `internal:role=row[name="Mail a@b"s]`},
		{`role=row[name="Elsewhere Far label"s]`, `internal:role=row[name="Elsewhere Far label"s]`},
	})
}

// sameAsPlaywright checks that each case's locator finds, by r, the
// element Playwright's finds on url in the same browser b (their centres
// within a pixel).
func sameAsPlaywright(ctx context.Context, t *testing.T, b *browsertest.Browser, url string, r *resolver.Resolver, cases []struct{ ours, theirs string }) {
	t.Helper()
	var theirs []string
	for _, c := range cases {
		theirs = append(theirs, c.theirs)
	}
	script, _ := filepath.Abs("../bench/pw-resolve.mjs")
	pw, err := resolverbench.Playwright(ctx, script, browsertest.DevToolsURL(ctx, t, b.Process), url, theirs, 0)
	if nodescript.MissingOutsideCI(err) {
		t.Skipf("no Playwright: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		pt, err := r.Center(ctx, c.ours)
		if err != nil {
			t.Errorf("%s: %v", c.ours, err)
			continue
		}
		if math.Abs(pt.X-pw[i].X) > 1 || math.Abs(pt.Y-pw[i].Y) > 1 {
			t.Errorf("%s: egohost (%.1f, %.1f), Playwright %s (%.1f, %.1f)", c.ours, pt.X, pt.Y, c.theirs, pw[i].X, pw[i].Y)
		}
	}
}
