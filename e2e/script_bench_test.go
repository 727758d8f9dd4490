package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/protocol"
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
	steps []time.Duration // each call's wall time, in order (the CLI's and agent-browser's)
}

// cli runs one CLI call on tab and counts it in r: its wall time and the
// characters it printed. A failing call fails the benchmark.
func (r *taskRun) cli(b *testing.B, c *chain, tab protocol.Target, args ...string) string {
	b.Helper()
	start := time.Now()
	stdout, stderr, code := c.cli(tab, args...)
	r.wall += time.Since(start)
	r.steps = append(r.steps, time.Since(start))
	if code != 0 {
		b.Fatalf("egohost %s: exit %d: %s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	r.calls++
	r.chars += len(stdout)
	return stdout
}

// checkoutByRefs does the checkout form's steps through a CLI (run), by
// the refs its snapshot (snap) gave: four fills, a select, the order's
// click, then a snapshot that must show the name. refs finds a line's
// role, name and ref (its third group: "@" is prefixed).
func checkoutByRefs(b *testing.B, who string, refs *regexp.Regexp, snap string, run func(args ...string) string) {
	b.Helper()
	ref := map[string]string{}
	for _, m := range refs.FindAllStringSubmatch(snap, -1) {
		ref[m[2]] = "@" + m[3]
	}
	if ref["Name"] == "" || ref["Place order"] == "" || ref["Country"] == "" {
		b.Fatalf("no refs in %s's snapshot:\n%s", who, snap)
	}
	for _, f := range [][2]string{{"Name", "Ada Lovelace"}, {"Email", "ada@example.com"}, {"Address", "12 Analytical Street"}, {"City", "London"}} {
		run("fill", ref[f[0]], f[1])
	}
	run("select", ref["Country"], "de")
	run("click", ref["Place order"])
	if out := run("snapshot"); !strings.Contains(out, "Ada Lovelace") {
		b.Fatalf("after %s's steps the page shows:\n%s", who, out)
	}
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
	cli := func(r *taskRun, args ...string) string { return r.cli(b, c, tab, args...) }
	front := func() {
		if err := c.agent.Call(context.Background(), protocol.MethodTabsSelect, protocol.TabParams{Target: tab}, nil); err != nil {
			b.Fatal(err)
		}
	}
	script := func() taskRun {
		front()
		var r taskRun
		out := cli(&r, "run", file)
		if out != "ordered for Ada Lovelace\n" {
			b.Fatalf("egohost run: got %q", out)
		}
		return r
	}
	refs := regexp.MustCompile(`(?m)^\s*(\w+) "([^"]*)".*@(\d+)`)
	steps := func() taskRun {
		front()
		var r taskRun
		cli(&r, "goto", shop)
		snap := cli(&r, "snapshot", "-i")
		checkoutByRefs(b, "egohost", refs, snap, func(args ...string) string { return cli(&r, args...) })
		return r
	}
	// Playwright MCP's best path: navigate, snapshot, fill_form, click
	// (4 calls), when EGOHOST_PLAYWRIGHT_MCP names its cli.js.
	var mcp func() taskRun
	if cliJS := os.Getenv("EGOHOST_PLAYWRIGHT_MCP"); cliJS != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		endpoint := browsertest.DevToolsURL(ctx, b, c.proc)
		peer, err := startMCPPeer(ctx, cliJS, endpoint, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		defer peer.close()
		// Its own tab, brought to the front before each of its runs (as
		// egohost's is before each of egohost's): Playwright's stability
		// check needs animation frames, which background tabs do not get.
		if _, err := peer.tool(ctx, "browser_tabs", map[string]any{"action": "new"}); err != nil {
			b.Fatal(err)
		}
		list, err := peer.tool(ctx, "browser_tabs", map[string]any{"action": "list"})
		if err != nil {
			b.Fatal(err)
		}
		cur := regexp.MustCompile(`(\d+):? \(current\)`).FindStringSubmatch(list)
		if cur == nil {
			b.Fatalf("Playwright MCP's current tab is not in its list:\n%s", list)
		}
		mcpTab, _ := strconv.Atoi(cur[1])
		pwRefs := regexp.MustCompile(`(\w+) "([^"]*)".*\[ref=(\w+)\]`)
		mcp = func() taskRun {
			var r taskRun
			if _, err := peer.tool(ctx, "browser_tabs", map[string]any{"action": "select", "index": mcpTab}); err != nil {
				b.Fatal(err)
			}
			call := func(name string, args map[string]any) string {
				start := time.Now()
				out, err := peer.tool(ctx, name, args)
				r.wall += time.Since(start)
				if err != nil {
					b.Fatalf("Playwright MCP %s: %v", name, err)
				}
				r.calls++
				r.chars += len(out)
				return out
			}
			call("browser_navigate", map[string]any{"url": shop})
			snap := call("browser_snapshot", map[string]any{})
			ref := map[string]string{}
			for _, m := range pwRefs.FindAllStringSubmatch(snap, -1) {
				ref[m[2]] = m[3]
			}
			if ref["Name"] == "" || ref["Place order"] == "" {
				b.Fatalf("no refs in Playwright MCP's snapshot:\n%s", snap)
			}
			field := func(name, typ, value string) map[string]any {
				return map[string]any{"name": name, "type": typ, "target": ref[name], "value": value}
			}
			call("browser_fill_form", map[string]any{"fields": []any{
				field("Name", "textbox", "Ada Lovelace"), field("Email", "textbox", "ada@example.com"),
				field("Address", "textbox", "12 Analytical Street"), field("City", "textbox", "London"),
				field("Country", "combobox", "Germany"),
			}})
			if out := call("browser_click", map[string]any{"element": "Place order button", "target": ref["Place order"]}); !strings.Contains(out, "Page Title: Thanks") {
				b.Fatalf("after Playwright MCP's click the page shows:\n%s", out)
			}
			return r
		}
	}
	abSteps := agentBrowserSteps(b, c, shop) // nil without its binary
	runs := benchRuns(b, 20)
	var byScript, bySteps, byMCP, byAB []taskRun
	script() // warm-up
	steps()
	if mcp != nil {
		mcp()
	}
	if abSteps != nil {
		abSteps()
	}
	for range runs {
		byScript = append(byScript, script())
		bySteps = append(bySteps, steps())
		if mcp != nil {
			byMCP = append(byMCP, mcp())
		}
		if abSteps != nil {
			byAB = append(byAB, abSteps())
		}
	}
	s := reportScriptVsSteps(b, "5-field checkout", runs, byScript, bySteps)
	if abSteps != nil {
		a, p := medianRun(byAB), medianRun(bySteps)
		b.ReportMetric(ms(a.wall), "agentbrowser-ms")
		b.ReportMetric(ms(p.wall)/ms(a.wall), "steps/agentbrowser")
		b.Logf("agent-browser's CLI step by step (the same 9 calls), same browser and page, median of %d\n"+
			"| way | calls | characters returned | wall time |\n|---|---:|---:|---:|\n| agent-browser CLI | %d | %d | %.0f ms |\n"+
			"| egohost CLI / agent-browser CLI | %.2f× | %.2f× | %.2f× |",
			runs, a.calls, a.chars, ms(a.wall), float64(p.calls)/float64(a.calls), float64(p.chars)/float64(a.chars), ms(p.wall)/ms(a.wall))
		fmt.Printf("checkout per call, median ms of %d runs\n| way | goto/open | snapshot -i | fill | fill | fill | fill | select | click | snapshot |\n|---|%s\n| egohost CLI |%s\n| agent-browser CLI |%s",
			runs, strings.Repeat("---:|", 9), stepMedians(bySteps), stepMedians(byAB))
		fmt.Println()
	}
	if mcp != nil {
		m := medianRun(byMCP)
		b.ReportMetric(ms(m.wall), "pwmcp-ms")
		b.Logf("Playwright MCP (navigate, snapshot, fill_form, click), same browser and page, median of %d\n"+
			"| way | calls | characters returned | wall time |\n|---|---:|---:|---:|\n| Playwright MCP | %d | %d | %.0f ms |\n"+
			"| egohost run / Playwright MCP | %.2f× | %.2f× | %.2f× |",
			runs, m.calls, m.chars, ms(m.wall), float64(s.calls)/float64(m.calls), float64(s.chars)/float64(m.chars), ms(s.wall)/ms(m.wall))
	}
}

// listPages are three pages of five products each, linked by "Next".
func listPages() map[string]string {
	pages := scriptPages()
	for p := 1; p <= 3; p++ {
		var b strings.Builder
		fmt.Fprintf(&b, `<!doctype html><html><head><meta charset=utf-8><title>Products %d</title></head><body><h1>Products, page %d</h1><ul id=items>`, p, p)
		for i := 1; i <= 5; i++ {
			fmt.Fprintf(&b, `<li><span class=name>Item %d-%d</span> <span class=price>%d.00</span></li>`, p, i, p*10+i)
		}
		b.WriteString(`</ul>`)
		if p < 3 {
			fmt.Fprintf(&b, `<a href="/list%d">Next</a>`, p+1)
		}
		b.WriteString(`</body></html>`)
		pages[fmt.Sprintf("/list%d", p)] = b.String()
	}
	return pages
}

// paginateScript reads every product over the pages, branches on what it
// read and fills the checkout with it: about 20 steps for a step-per-call
// agent.
const paginateScript = `await page.goto(%q)
const names = [], prices = []
for (;;) {
  names.push(...await page.locator('#items .name').allTextContents())
  prices.push(...(await page.locator('#items .price').allTextContents()).map(Number))
  const next = page.getByRole('link', {name: 'Next'})
  if (await next.count() === 0) break
  await next.click()
}
const total = prices.reduce((a, b) => a + b, 0)
await page.goto(%q)
await page.getByLabel('Name').fill('Ada Lovelace')
await page.getByLabel('Email').fill('ada@example.com')
await page.getByLabel('Address').fill(names[names.length - 1])
await page.getByLabel('City').fill(total > 300 ? 'Paris' : 'London')
await page.getByLabel('Country').selectOption(total > 300 ? 'fr' : 'de')
await page.getByRole('button', {name: 'Place order'}).click()
await page.waitForURL(/thanks/)
console.log(names.length, 'products, total', total, '->', await page.locator('#msg').textContent())
`

// BenchmarkScriptPaginate: a 20-step task (read a list over 3 pages,
// branch on a value read, fill and submit a form) as one `egohost run`
// and as egohost's CLI step by step, each call a CLI process.
//
//	go test ./e2e -run '^$' -bench ScriptPaginate -benchtime 5x
func BenchmarkScriptPaginate(b *testing.B) {
	if b.N == 1 {
		return
	}
	c := startChain(b)
	base := serve(b, listPages())
	shop, list1 := base+"/shop", base+"/list1"
	tab := c.openTab(b, shop)
	file := filepath.Join(b.TempDir(), "paginate.js")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(paginateScript, list1, shop)), 0o600); err != nil {
		b.Fatal(err)
	}
	cli := func(r *taskRun, args ...string) string { return r.cli(b, c, tab, args...) }
	const want = "15 products, total 345 -> Ada Lovelace\n"
	script := func() taskRun {
		var r taskRun
		if out := cli(&r, "run", file); out != want {
			b.Fatalf("egohost run: got %q, want %q", out, want)
		}
		return r
	}
	refs := regexp.MustCompile(`(?m)^\s*-?\s*(\w+) "([^"]*)".*@(\d+)`)
	steps := func() taskRun {
		var r taskRun
		cli(&r, "goto", list1)
		var names []string
		total := 0
		for {
			snap := cli(&r, "snapshot")
			names = append(names, regexp.MustCompile(`Item \d-\d`).FindAllString(snap, -1)...)
			for _, m := range regexp.MustCompile(`\b(\d+)\.00\b`).FindAllStringSubmatch(snap, -1) {
				n, _ := strconv.Atoi(m[1])
				total += n
			}
			next := ""
			for _, m := range refs.FindAllStringSubmatch(snap, -1) {
				if m[1] == "link" && m[2] == "Next" {
					next = "@" + m[3]
				}
			}
			if next == "" {
				break
			}
			cli(&r, "click", next)
		}
		city, country := "London", "de"
		if total > 300 {
			city, country = "Paris", "fr"
		}
		cli(&r, "goto", shop)
		snap := cli(&r, "snapshot", "-i")
		ref := map[string]string{}
		for _, m := range refs.FindAllStringSubmatch(snap, -1) {
			ref[m[2]] = "@" + m[3]
		}
		for _, f := range [][2]string{{"Name", "Ada Lovelace"}, {"Email", "ada@example.com"}, {"Address", names[len(names)-1]}, {"City", city}} {
			cli(&r, "fill", ref[f[0]], f[1])
		}
		cli(&r, "select", ref["Country"], country)
		cli(&r, "click", ref["Place order"])
		if out := cli(&r, "snapshot"); len(names) != 15 || total != 345 || !strings.Contains(out, "Ada Lovelace") {
			b.Fatalf("steps: %d names, total %d, page:\n%s", len(names), total, out)
		}
		return r
	}
	runs := benchRuns(b, 20)
	var byScript, bySteps []taskRun
	script()
	steps()
	for range runs {
		byScript = append(byScript, script())
		bySteps = append(bySteps, steps())
	}
	reportScriptVsSteps(b, "20-step task (3 pages of products, branch, checkout)", runs, byScript, bySteps)
}

// stepMedians is the median wall time of each call across runs, as
// table cells.
func stepMedians(rs []taskRun) string {
	var cells strings.Builder
	for i := range rs[0].steps {
		var d []float64
		for _, r := range rs {
			if i < len(r.steps) {
				d = append(d, ms(r.steps[i]))
			}
		}
		slices.Sort(d)
		fmt.Fprintf(&cells, " %.0f |", d[len(d)/2])
	}
	return cells.String()
}

// medianRun is the run of median wall time (rs is sorted).
func medianRun(rs []taskRun) taskRun {
	slices.SortFunc(rs, func(a, b taskRun) int { return int(a.wall - b.wall) })
	return rs[len(rs)/2]
}

// reportScriptVsSteps reports the median runs of a task done as one
// script and step by step: two metrics and a table for docs/benchmarks.md.
// It returns the script's median run.
func reportScriptVsSteps(b *testing.B, task string, runs int, byScript, bySteps []taskRun) taskRun {
	s, p := medianRun(byScript), medianRun(bySteps)
	b.ReportMetric(ms(s.wall), "script-ms")
	b.ReportMetric(ms(p.wall), "steps-ms")
	b.Logf("%s, %d runs each, median wall time (each call a CLI process)\n"+
		"| way | calls | characters returned | wall time |\n|---|---:|---:|---:|\n"+
		"| egohost run (one script) | %d | %d | %.0f ms |\n| egohost CLI step by step | %d | %d | %.0f ms |\n"+
		"| ratio | %.2f× | %.2f× | %.2f× |",
		task, runs, s.calls, s.chars, ms(s.wall), p.calls, p.chars, ms(p.wall),
		float64(s.calls)/float64(p.calls), float64(s.chars)/float64(p.chars), ms(s.wall)/ms(p.wall))
	return s
}

// stagedCheckoutScript is checkoutScript with a lap after each step: where
// a script's time goes, step by step, in the service (no process start).
const stagedCheckoutScript = `const laps = []
let t = Date.now()
const lap = (name) => { const now = Date.now(); laps.push(name + ' ' + (now - t)); t = now }
await page.goto(%q); lap('goto')
await page.getByLabel('Name').fill('Ada Lovelace'); lap('fill')
await page.getByLabel('Email').fill('ada@example.com'); lap('fill')
await page.getByLabel('Address').fill('12 Analytical Street'); lap('fill')
await page.getByLabel('City').fill('London'); lap('fill')
await page.getByLabel('Country').selectOption('de'); lap('select')
await page.getByRole('button', {name: 'Place order'}).click(); lap('click')
await page.waitForURL(/thanks/); lap('waitForURL')
const msg = await page.locator('#msg').textContent(); lap('textContent')
console.log(laps.join('\n'))
`

// BenchmarkScriptCheckoutStages times each step of the checkout script
// inside the service (one agent connection, no CLI process): the median of
// each step over the runs.
//
//	go test ./e2e -run '^$' -bench ScriptCheckoutStages -benchtime 10x
func BenchmarkScriptCheckoutStages(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run: measure once, in the real run
	}
	c := startChain(b)
	shop := serve(b, scriptPages()) + "/shop"
	tab := c.openTab(b, shop)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := c.agent.Call(ctx, protocol.MethodTabsSelect, protocol.TabParams{Target: tab}, nil); err != nil {
		b.Fatal(err)
	}
	laps := map[string][]float64{}
	var order []string
	var whole []float64
	for i := -1; i < benchRuns(b, 20); i++ { // -1 is a warm-up
		res, err := c.agent.RunScript(ctx, protocol.ScriptRunParams{Target: tab, Script: fmt.Sprintf(stagedCheckoutScript, shop)})
		if err != nil {
			b.Fatal(err)
		}
		if i < 0 {
			continue
		}
		whole = append(whole, res.TookMs)
		for n, line := range strings.Split(strings.TrimSpace(res.Output), "\n") {
			name, v, _ := strings.Cut(line, " ")
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				b.Fatalf("lap %q: %v", line, err)
			}
			key := fmt.Sprintf("%d %s", n+1, name)
			if laps[key] == nil {
				order = append(order, key)
			}
			laps[key] = append(laps[key], f)
		}
	}
	med := func(l []float64) float64 { slices.Sort(l); return l[len(l)/2] }
	var s strings.Builder
	s.WriteString("| step | median ms |\n|---|---:|\n")
	for _, k := range order {
		fmt.Fprintf(&s, "| %s | %.0f |\n", k, med(laps[k]))
	}
	fmt.Fprintf(&s, "| whole script (service's tookMs) | %.0f |\n", med(whole))
	fmt.Printf("checkout script by step, %d runs (median)\n%s", len(whole), s.String())
	// The same steps as agent calls, with what each waited for.
	type step struct {
		name   string
		method string
		params any
	}
	steps := []step{
		{"fill Name", protocol.MethodFill, protocol.FillParams{Target: tab, Element: "label=Name", Text: "Ada Lovelace"}},
		{"fill Email", protocol.MethodFill, protocol.FillParams{Target: tab, Element: "label=Email", Text: "ada@example.com"}},
		{"select", protocol.MethodSelect, protocol.SelectParams{Target: tab, Element: "label=Country", Values: []string{"de"}}},
		{"click (navigates)", protocol.MethodClick, protocol.ClickParams{Target: tab, Element: `role=button[name="Place order"]`}},
	}
	for i := range 3 {
		var nav protocol.NavResult
		start := time.Now()
		if err := c.agent.Call(ctx, protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: shop}, &nav); err != nil {
			b.Fatal(err)
		}
		line := fmt.Sprintf("run %d: goto rpc %.0f ms (service %.0f)", i, ms(time.Since(start)), nav.TookMs)
		for _, st := range steps {
			var res protocol.ActionResult
			start := time.Now()
			if err := c.agent.Call(ctx, st.method, st.params, &res); err != nil {
				b.Fatalf("%s: %v", st.name, err)
			}
			line += fmt.Sprintf("; %s rpc %.0f (service %.0f, waited %.0f in %d, settled %.0f for %v)", st.name, ms(time.Since(start)), res.TookMs, res.Waited.Ms, res.Waited.Attempts, res.Settled.Ms, res.Settled.For)
		}
		fmt.Println(line)
	}
}
