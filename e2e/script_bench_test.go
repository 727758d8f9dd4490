package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// checkoutScript is the 5-field checkout task as one `egohost run`.
const checkoutScript = `await page.goto(%q)
await page.getByLabel('Name').fill('Ada Lovelace')
await page.getByLabel('Email').fill('ada@example.com')
await page.getByLabel('Address').fill('12 Analytical Street')
await page.getByLabel('City').fill('London')
await page.getByLabel('Country').selectOption('de')
await page.getByRole('button', {name: 'Place order'}).click()
await page.waitForURL(/thanks/)
console.log('ordered for', await page.locator('#msg').textContent())
`

// taskRun is one way of doing a task: how many calls, how many
// characters came back to the agent, how long it took.
type taskRun struct {
	calls int
	chars int
	wall  time.Duration
}

// BenchmarkScriptCheckout: the 5-field checkout form, filled and
// submitted by one `egohost run` and by egohost's CLI step by step as an
// agent would drive it (open, read the refs from a snapshot, fill each
// field, select, click, read the result), in the same run on the same
// browser. Every call is a real CLI process, as an agent's tool call is.
//
//	go test ./e2e -run '^$' -bench ScriptCheckout -benchtime 10x
func BenchmarkScriptCheckout(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run: measure once, in the real run
	}
	c := startChain(b)
	shop := serve(b, scriptPages()) + "/shop"
	tab := c.openTab(b, shop)
	file := filepath.Join(b.TempDir(), "checkout.js")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(checkoutScript, shop)), 0o600); err != nil {
		b.Fatal(err)
	}
	cli := func(r *taskRun, args ...string) string {
		start := time.Now()
		stdout, stderr, code := c.cli(tab, args...)
		r.wall += time.Since(start)
		if code != 0 {
			b.Fatalf("egohost %s: exit %d: %s%s", strings.Join(args, " "), code, stdout, stderr)
		}
		r.calls++
		r.chars += len(stdout)
		return stdout
	}
	script := func() taskRun {
		var r taskRun
		out := cli(&r, "run", file)
		if out != "ordered for Ada Lovelace\n" {
			b.Fatalf("egohost run: got %q", out)
		}
		return r
	}
	refs := regexp.MustCompile(`(?m)^\s*(\w+) "([^"]*)".*@(\d+)`)
	steps := func() taskRun {
		var r taskRun
		cli(&r, "goto", shop)
		snap := cli(&r, "snapshot", "-i")
		ref := map[string]string{}
		for _, m := range refs.FindAllStringSubmatch(snap, -1) {
			ref[m[2]] = "@" + m[3]
		}
		for _, f := range [][2]string{{"Name", "Ada Lovelace"}, {"Email", "ada@example.com"}, {"Address", "12 Analytical Street"}, {"City", "London"}} {
			cli(&r, "fill", ref[f[0]], f[1])
		}
		cli(&r, "select", ref["Country"], "de")
		cli(&r, "click", ref["Place order"])
		if out := cli(&r, "snapshot"); !strings.Contains(out, "Ada Lovelace") {
			b.Fatalf("after the steps the page shows:\n%s", out)
		}
		return r
	}
	runs := min(b.N, 20)
	var byScript, bySteps []taskRun
	script() // warm-up
	steps()
	for range runs {
		byScript = append(byScript, script())
		bySteps = append(bySteps, steps())
	}
	med := func(rs []taskRun) taskRun {
		slices.SortFunc(rs, func(a, b taskRun) int { return int(a.wall - b.wall) })
		return rs[len(rs)/2]
	}
	s, p := med(byScript), med(bySteps)
	b.ReportMetric(ms(s.wall), "script-ms")
	b.ReportMetric(ms(p.wall), "steps-ms")
	b.Logf("5-field checkout, %d runs each, median wall time (each call a CLI process)\n"+
		"| way | calls | characters returned | wall time |\n|---|---:|---:|---:|\n"+
		"| egohost run (one script) | %d | %d | %.0f ms |\n| egohost CLI step by step | %d | %d | %.0f ms |\n"+
		"| ratio | %.2f× | %.2f× | %.2f× |",
		runs, s.calls, s.chars, ms(s.wall), p.calls, p.chars, ms(p.wall),
		float64(s.calls)/float64(p.calls), float64(s.chars)/float64(p.chars), ms(s.wall)/ms(p.wall))
}
