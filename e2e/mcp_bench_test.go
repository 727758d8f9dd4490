package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/ci"
	"github.com/egohost/egohost/internal/testkit/snapshotbench"
	"github.com/egohost/egohost/protocol"
)

// shopChrome wraps a body in a realistic shop page: header, navigation,
// search, breadcrumbs, a sidebar of filters and a footer of links.
func shopChrome(title, body string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html lang=en><head><meta charset=utf-8><title>%s · Northwind Outfitters</title>
<style>body{margin:0;font:15px/1.4 sans-serif}header,footer{background:#f4f4f4;padding:8px 16px}nav a{margin-right:12px}
main{display:flex;gap:16px;padding:16px}aside{width:200px}section{flex:1}.grid{display:grid;grid-template-columns:repeat(4,1fr);gap:12px}
article{border:1px solid #ddd;padding:8px}img{width:100%%;height:80px;background:#eee;display:block}</style></head><body>
<a href="#main" class=skip>Skip to content</a>
<header><a href="/" aria-label="Northwind Outfitters home"><img src="/logo.svg" alt="Northwind Outfitters" style="width:120px;height:30px"></a>
<nav aria-label=Primary><a href="/c/men">Men</a><a href="/c/women">Women</a><a href="/c/kids">Kids</a><a href="/c/outdoor">Outdoor</a><a href="/c/sale">Sale</a><a href="/stores">Stores</a></nav>
<form role=search action="/search"><label>Search products <input name=q type=search placeholder="Jackets, boots…"></label><button>Search</button></form>
<a href="/account">Account</a> <a href="/cart">Cart (2)</a></header>
<nav aria-label=Breadcrumb><ol><li><a href="/">Home</a></li><li><a href="/c/outdoor">Outdoor</a></li><li aria-current=page>%s</li></ol></nav>
<main id=main>`, title, title)
	b.WriteString(`<aside><h2>Filter</h2><fieldset><legend>Size</legend>`)
	for _, s := range []string{"XS", "S", "M", "L", "XL"} {
		fmt.Fprintf(&b, `<label><input type=checkbox name=size value=%s> %s</label> `, s, s)
	}
	b.WriteString(`</fieldset><fieldset><legend>Colour</legend>`)
	for _, c := range []string{"Black", "Navy", "Olive", "Red"} {
		fmt.Fprintf(&b, `<label><input type=checkbox name=colour value=%s> %s</label> `, c, c)
	}
	b.WriteString(`</fieldset><label>Sort by <select name=sort><option>Relevance</option><option>Price, low to high</option><option>Price, high to low</option><option>Newest</option></select></label></aside><section>`)
	b.WriteString(body)
	b.WriteString(`</section></main><footer><h2>Northwind Outfitters</h2><p>Outdoor clothing since 1987. Free returns within 30 days.</p><ul>`)
	for _, l := range []string{"About us", "Careers", "Press", "Sustainability", "Help centre", "Shipping", "Returns", "Size guide", "Gift cards", "Privacy", "Terms", "Cookie settings"} {
		fmt.Fprintf(&b, `<li><a href="/p/%s">%s</a></li>`, strings.ReplaceAll(strings.ToLower(l), " ", "-"), l)
	}
	b.WriteString(`</ul><p>© 2026 Northwind Outfitters Ltd.</p></footer></body></html>`)
	return b.String()
}

// mcpBenchPages are the pages of the MCP benchmark: a realistic product
// listing, a realistic checkout with 5 fields, and the 15,000-element list.
func mcpBenchPages() map[string]string {
	var grid strings.Builder
	grid.WriteString(`<h1>Outdoor jackets</h1><p>24 products</p><div class=grid>`)
	names := []string{"Ridge", "Summit", "Harbour", "Fjord", "Cascade", "Tundra", "Glen", "Pioneer"}
	kinds := []string{"Shell Jacket", "Down Parka", "Fleece"}
	for i := range 24 {
		name := names[i%len(names)] + " " + kinds[i%len(kinds)]
		fmt.Fprintf(&grid, `<article><a href="/p/%d"><img src="/img/%d.jpg" alt="%s in navy"></a><h3><a href="/p/%d">%s</a></h3>
<p>Windproof, breathable, recycled fabric.</p><p><span class=price>€%d.90</span> <span>★ 4.%d (%d reviews)</span></p>
<button>Add %s to cart</button></article>`, i, i, name, i, name, 59+i*10, i%10, 10+i*7, name)
	}
	grid.WriteString(`</div><nav aria-label=Pagination><a href="?page=1" aria-current=page>1</a> <a href="?page=2">2</a> <a href="?page=3">3</a> <a href="?page=2">Next</a></nav>`)
	checkout := `<h1>Checkout</h1><table><caption>Your order</caption><tr><th>Item</th><th>Qty</th><th>Price</th></tr>
<tr><td>Ridge Shell Jacket</td><td>1</td><td>€59.90</td></tr><tr><td>Summit Down Parka</td><td>1</td><td>€69.90</td></tr>
<tr><td colspan=2>Total</td><td>€129.80</td></tr></table>
<form action="/thanks" method=get><h2>Delivery</h2>
<label>Full name <input name=name autocomplete=name required></label>
<label>Email <input name=email type=email autocomplete=email required></label>
<label>Address <input name=address autocomplete=street-address required></label>
<label>Country <select name=country><option value="">Choose…</option><option value=fr>France</option><option value=de>Germany</option><option value=nl>Netherlands</option></select></label>
<label><input type=checkbox name=terms value=yes required> I accept the terms of sale</label>
<button>Place order</button></form>`
	return map[string]string{
		"/shop":     shopChrome("Outdoor jackets", grid.String()),
		"/checkout": shopChrome("Checkout", checkout),
		"/thanks":   shopChrome("Thank you", `<h1>Thank you for your order</h1><p>A confirmation is on its way.</p>`),
		"/list":     snapshotbench.ListPage(5000),
	}
}

// mcpAgent is one MCP server driven as a scripted agent would: it counts
// calls, the characters the server answered and the wall time of those
// calls (set-up calls are not counted). The first
// failure ends its run (err); the table reports it.
type mcpAgent struct {
	tb    testing.TB
	name  string
	cs    *mcp.ClientSession
	calls int
	chars int
	ms    float64 // wall time of the counted calls
	err   error
}

func (a *mcpAgent) failf(format string, args ...any) {
	if a.err == nil {
		a.err = fmt.Errorf(format, args...)
	}
}

// call calls a tool and counts it.
func (a *mcpAgent) call(tool string, args map[string]any) string {
	start := time.Now()
	out := a.setup(tool, args)
	if a.err == nil {
		a.calls++
		a.chars += len([]rune(out))
		a.ms += ms(time.Since(start))
	}
	return out
}

// setup calls a tool without counting it (set-up of a measured task).
func (a *mcpAgent) setup(tool string, args map[string]any) string {
	if a.err != nil {
		return ""
	}
	start := time.Now()
	r := callTool(a.tb, a.cs, tool, args)
	if os.Getenv("EGOHOST_BENCH_TRACE") != "" {
		first, _, _ := strings.Cut(r.text, "\n") // the outcome line: what the server says it waited for
		fmt.Fprintf(os.Stderr, "    %s %s: %.0f ms, %d chars: %.160s\n", a.name, tool, ms(time.Since(start)), len([]rune(r.text)), first)
	}
	if r.isErr {
		a.failf("%s: %s", tool, strings.Join(strings.Fields(r.text), " "))
		return ""
	}
	return r.text
}

// refIn finds a line's ref in either server's snapshot: `@12` (egohost)
// or `[ref=e12]` (Playwright MCP).
func (a *mcpAgent) refIn(snap, line string) string {
	if a.err != nil {
		return ""
	}
	m := regexp.MustCompile(regexp.QuoteMeta(line) + `[^\n]*?(?:(@\d+)|\[ref=(\w+)\])`).FindStringSubmatch(snap)
	if m == nil {
		a.failf("no ref for %q in its snapshot", line)
		return ""
	}
	return m[1] + m[2]
}

// taskResult is one run of a task by one agent.
type taskResult struct {
	calls, chars int
	ms           float64
	err          error
}

// benchTask is a task an agent does through an MCP server.
type benchTask struct {
	name string
	run  func(a *mcpAgent, pw bool)
}

func benchTasks(base string, orders chan string) []benchTask {
	// The 5-field checkout: the fewest calls each server allows.
	checkout := func(a *mcpAgent, pw bool) {
		snap := a.call("browser_navigate", map[string]any{"url": base + "/checkout"})
		if a.err == nil && !strings.Contains(snap, `textbox "Full name"`) {
			snap = a.call("browser_snapshot", nil) // the page's refs
		}
		fields := []map[string]any{
			{"name": "Full name", "type": "textbox", "target": a.refIn(snap, `textbox "Full name"`), "value": "Ada Lovelace"},
			{"name": "Email", "type": "textbox", "target": a.refIn(snap, `textbox "Email"`), "value": "ada@example.com"},
			{"name": "Address", "type": "textbox", "target": a.refIn(snap, `textbox "Address"`), "value": "12 St James's Square"},
			{"name": "Country", "type": "combobox", "target": a.refIn(snap, `combobox "Country"`), "value": "Germany"},
			{"name": "Terms", "type": "checkbox", "target": a.refIn(snap, `checkbox "I accept the terms of sale"`), "value": "true"},
		}
		a.call("browser_fill_form", map[string]any{"fields": fields})
		a.call("browser_click", map[string]any{"element": "Place order", "target": a.refIn(snap, `button "Place order"`)})
		if a.err != nil {
			return
		}
		select {
		case q := <-orders:
			if want := "name=Ada+Lovelace&email=ada%40example.com&address=12+St+James%27s+Square&country=de&terms=yes"; q != want {
				a.failf("placed the order %q, want %q", q, want)
			}
		case <-time.After(10 * time.Second):
			a.failf("no order reached the server")
		}
	}
	// Reading a page: open it and read its text (egohost: a navigation
	// that answers the full snapshot).
	read := func(path, want string) func(a *mcpAgent, pw bool) {
		return func(a *mcpAgent, pw bool) {
			args := map[string]any{"url": base + path}
			if !pw {
				args["snapshot"] = "full"
			}
			out := a.call("browser_navigate", args)
			if a.err == nil && !strings.Contains(out, want) {
				out = a.call("browser_snapshot", nil)
			}
			if a.err == nil && !strings.Contains(out, want) {
				a.failf("%q is not in what it read of %s", want, path)
			}
		}
	}
	// One snapshot of a page already open (what an agent re-reads); the
	// navigation is set-up, not counted.
	snap := func(path string) func(a *mcpAgent, pw bool) {
		return func(a *mcpAgent, pw bool) {
			a.setup("browser_navigate", map[string]any{"url": base + path})
			a.call("browser_snapshot", nil)
		}
	}
	return []benchTask{
		{"checkout form, 5 fields + submit", checkout},
		{"read the page: shop (realistic)", read("/shop", "€289.90")},
		{"read the page: 15,000-element list", read("/list", "Span 4999")},
		{"snapshot: shop (realistic)", snap("/shop")},
		{"snapshot: 15,000-element list", snap("/list")},
	}
}

// BenchmarkMCPVersusPlaywrightMCP runs the same scripted agent through
// `egohost mcp` and through Playwright MCP (npm @playwright/mcp, pinned in
// bench/package.json, attached with --cdp-endpoint to the same test
// browser) in one run: calls, characters answered and wall time per task.
// Run: go test ./e2e -run '^$' -bench MCPVersusPlaywrightMCP -benchtime 5x -timeout 30m
func BenchmarkMCPVersusPlaywrightMCP(b *testing.B) {
	// The 15,000-element page takes seconds per snapshot on a loaded
	// machine: both servers get 120 s per call instead of 30.
	b.Setenv("EGOHOST_TIMEOUTS_REQUEST", "120s")
	c := startChainConfig(b, confirmOff) // the same clicks as Playwright MCP: none waits for the person
	orders := make(chan string, 1)
	pages := benchPagesHandler(orders)
	base := serveHandler(b, pages)
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	endpoint := browsertest.DevToolsURL(ctx, b, c.proc)
	pwCS := startPlaywrightMCP(ctx, b, endpoint)
	egoCS, _ := startMCP(b, c.svc.stateDir)

	// Each agent gets its own tab (set-up, not measured), brought to the
	// front before each of its runs: Chrome does not deliver mouse input to
	// a background tab of a headless browser.
	egoTab, pwTab := benchNewTab(ctx, b, c, egoCS), benchNewTab(ctx, b, c, pwCS)
	front := func(tab int) { benchFront(ctx, b, c, tab) }

	runs := max(b.N, 1)
	if testing.Short() {
		runs = 1 // CI: the benchmark works; its figures need more
	}
	type cell struct{ ego, pw []taskResult }
	tasks := benchTasks(base, orders)
	if only := os.Getenv("EGOHOST_BENCH_TASK"); only != "" { // e.g. "checkout": one task while iterating
		tasks = slices.DeleteFunc(tasks, func(t benchTask) bool { return !strings.Contains(t.name, only) })
	}
	if testing.Short() { // CI: the benchmark works; the 15,000-element page takes minutes there
		tasks = slices.DeleteFunc(tasks, func(t benchTask) bool { return strings.Contains(t.name, "15,000") })
	}
	cells := make([]cell, len(tasks))
	measure := func(cs *mcp.ClientSession, name string, pw bool, task benchTask) taskResult {
		if pw {
			front(pwTab)
		} else {
			front(egoTab)
		}
		a := &mcpAgent{tb: b, name: name, cs: cs}
		task.run(a, pw)
		r := taskResult{calls: a.calls, chars: a.chars, ms: a.ms, err: a.err}
		fmt.Fprintf(os.Stderr, "  %s: %d calls, %d chars, %.0f ms, error %v\n", name, r.calls, r.chars, r.ms, r.err)
		if r.err != nil && !pw {
			b.Errorf("egohost, %s: %v", task.name, r.err)
		}
		// Leave one heavy page alive at a time: the agent's tab goes blank
		// (set-up, not measured).
		callTool(b, cs, "browser_navigate", map[string]any{"url": "about:blank"})
		return r
	}
	for i, task := range tasks {
		fmt.Fprintf(os.Stderr, "%s: measuring\n", task.name)
		// One warm-up each, then alternate so both see the same machine load.
		measure(egoCS, "egohost", false, task)
		measure(pwCS, "Playwright MCP", true, task)
		for range runs {
			cells[i].ego = append(cells[i].ego, measure(egoCS, "egohost", false, task))
			cells[i].pw = append(cells[i].pw, measure(pwCS, "Playwright MCP", true, task))
		}
	}
	// median is the median time of the runs that succeeded, with the calls
	// and chars of the last of them; failed counts the others.
	median := func(rs []taskResult) (taskResult, int, error) {
		var ms []float64
		var last taskResult
		var firstErr error
		for _, r := range rs {
			if r.err != nil {
				if firstErr == nil {
					firstErr = r.err
				}
				continue
			}
			ms = append(ms, r.ms)
			last = r
		}
		if len(ms) == 0 {
			return taskResult{}, len(rs), firstErr
		}
		slices.Sort(ms)
		last.ms = ms[len(ms)/2]
		return last, len(rs) - len(ms), firstErr
	}
	var tb strings.Builder
	fmt.Fprintf(&tb, "| task | egohost calls | PW MCP calls | egohost chars | PW MCP chars | chars ratio | egohost ms | PW MCP ms | time ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	var failures []string
	for i, task := range tasks {
		e, eFailed, eErr := median(cells[i].ego)
		p, pFailed, pErr := median(cells[i].pw)
		if eFailed+pFailed > 0 {
			failures = append(failures, fmt.Sprintf("%s: egohost failed %d of %d runs (%v), Playwright MCP %d of %d (%v)", task.name, eFailed, runs, eErr, pFailed, runs, pErr))
		}
		if p.ms == 0 || e.ms == 0 {
			fmt.Fprintf(&tb, "| %s | %d | %d | %d | %d | – | %.0f | %.0f | – |\n", task.name, e.calls, p.calls, e.chars, p.chars, e.ms, p.ms)
			continue
		}
		fmt.Fprintf(&tb, "| %s | %d | %d | %d | %d | %.2f× | %.0f | %.0f | %.2f× |\n",
			task.name, e.calls, p.calls, e.chars, p.chars, float64(e.chars)/float64(p.chars), e.ms, p.ms, e.ms/p.ms)
		b.ReportMetric(e.ms, fmt.Sprintf("ego-ms/%d", i))
		b.ReportMetric(p.ms, fmt.Sprintf("pw-ms/%d", i))
	}
	for _, f := range failures {
		tb.WriteString("\n" + f)
	}
	// Printed, not logged: go test cuts a benchmark's log after a few lines.
	fmt.Printf("MCP servers side by side, %d runs per cell (median time of the runs that succeeded; calls and chars of the last one)\n%s\n", runs, tb.String())
}

// benchPagesHandler serves mcpBenchPages and sends each order's query to orders.
func benchPagesHandler(orders chan string) http.Handler {
	pages := mcpBenchPages()
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/thanks" {
			mu.Lock()
			select {
			case orders <- r.URL.RawQuery:
			default:
			}
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(body))
	})
}

// startPlaywrightMCP starts Playwright MCP (npm @playwright/mcp, pinned in
// bench/package.json) attached with --cdp-endpoint to the test browser,
// with 120 s for every action and navigation; it skips the benchmark when
// it is not installed (and fails it in CI).
func startPlaywrightMCP(ctx context.Context, b *testing.B, endpoint string) *mcp.ClientSession {
	cli, _ := filepath.Abs("../bench/node_modules/@playwright/mcp/cli.js")
	node, nodeErr := exec.LookPath("node")
	if _, err := os.Stat(cli); err != nil || nodeErr != nil {
		ci.Need(b, fmt.Errorf("Playwright MCP is missing (install Node.js and run npm ci in bench/): %v %v", err, nodeErr))
	}
	out := b.TempDir() // Playwright MCP writes logs and snapshots under its working directory
	pwCmd := exec.Command(node, cli, "--cdp-endpoint", endpoint, "--timeout-action", "120000", "--timeout-navigation", "120000", "--output-dir", out)
	pwCmd.Dir = out
	pwLogs := &logBuffer{}
	pwCmd.Stderr = pwLogs
	pwCS, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: pwCmd}, nil)
	if err != nil {
		b.Fatalf("start Playwright MCP: %v\n%s", err, pwLogs)
	}
	b.Cleanup(func() { pwCS.Close() })
	return pwCS
}

// benchNewTab opens a tab through an MCP server (browser_tabs new) and
// returns its id.
func benchNewTab(ctx context.Context, b *testing.B, c *chain, cs *mcp.ClientSession) int {
	tabIDs := func() map[int]bool {
		var r protocol.TabsListResult
		if err := c.agent.Call(ctx, protocol.MethodTabsList, nil, &r); err != nil {
			b.Fatal(err)
		}
		ids := map[int]bool{}
		for _, t := range r.Tabs {
			ids[t.ID] = true
		}
		return ids
	}
	before := tabIDs()
	if r := callTool(b, cs, "browser_tabs", map[string]any{"action": "new"}); r.isErr {
		b.Fatal(r.text)
	}
	for id := range tabIDs() {
		if !before[id] {
			return id
		}
	}
	b.Fatal("browser_tabs new opened no tab")
	return 0
}

// benchFront brings a tab to the front: Chrome does not deliver mouse
// input to a background tab of a headless browser.
func benchFront(ctx context.Context, b *testing.B, c *chain, tab int) {
	if err := c.agent.Call(ctx, protocol.MethodTabsSelect, protocol.TabParams{Target: protocol.Target{Tab: tab}}, nil); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkMCPCheckoutStages makes, over one agent connection, the service
// calls `egohost mcp`'s checkout task makes (browser_navigate: goto with
// its snapshot; browser_fill_form: form.fill, then a diff; browser_click:
// click, then the new page's snapshot), on the same page as
// BenchmarkMCPVersusPlaywrightMCP: each call's median wall time and the
// service's own time (goto's: the navigation's and the snapshot's), to see
// where each tool's time goes.
//
//	go test ./e2e -run '^$' -bench MCPCheckoutStages -benchtime 10x
func BenchmarkMCPCheckoutStages(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run: measure once, in the real run
	}
	c := startChainConfig(b, confirmOff)
	orders := make(chan string, 1)
	base := serveHandler(b, benchPagesHandler(orders))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	tab := c.openTab(b, base+"/thanks")
	benchFront(ctx, b, c, tab.Tab)
	type lap struct{ rpc, service float64 }
	laps := map[string][]lap{}
	var order []string
	record := func(name string, start time.Time, service float64) {
		if laps[name] == nil {
			order = append(order, name)
		}
		laps[name] = append(laps[name], lap{ms(time.Since(start)), service})
	}
	call := func(name, method string, params, result any) {
		start := time.Now()
		if err := c.agent.Call(ctx, method, params, result); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		var service float64
		switch r := result.(type) {
		case *protocol.NavResult:
			service = r.TookMs
			if r.Snapshot != nil {
				service += r.Snapshot.Stats.TookMs
			}
		case *protocol.FormFillResult:
			service = r.TookMs
		case *protocol.SnapshotResult:
			service = r.Stats.TookMs
		case *protocol.ActionResult:
			service = r.TookMs
		}
		record(name, start, service)
	}
	for i := -1; i < benchRuns(b, 20); i++ { // -1 is a warm-up
		start := time.Now()
		var nav protocol.NavResult
		call("goto + snapshot -i", protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: base + "/checkout", Snapshot: &protocol.PageSnapshot{Interactive: true}}, &nav)
		if nav.Snapshot == nil {
			b.Fatalf("goto answered no snapshot: %+v", nav)
		}
		snap := *nav.Snapshot
		ref := func(line string) string { return refOf(b, snap.Text, line) }
		var form protocol.FormFillResult
		call("form.fill (5 fields, the last settles)", protocol.MethodFormFill, protocol.FormFillParams{Target: tab, Fields: []protocol.FormField{
			{Element: ref(`textbox "Full name"`), Action: "fill", Text: "Ada Lovelace"},
			{Element: ref(`textbox "Email"`), Action: "fill", Text: "ada@example.com"},
			{Element: ref(`textbox "Address"`), Action: "fill", Text: "12 St James's Square"},
			{Element: ref(`combobox "Country"`), Action: "select", Values: []string{"Germany"}},
			{Element: ref(`checkbox "I accept the terms of sale"`), Action: "check"},
		}}, &form)
		var act protocol.ActionResult
		var diff protocol.SnapshotResult
		call("snapshot -i diff", protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Interactive: true, Diff: true}, &diff)
		call("click (navigates, settles)", protocol.MethodClick, protocol.ClickParams{Target: tab, Element: ref(`button "Place order"`)}, &act)
		settled := fmt.Sprintf("%.0f ms for %v", act.Settled.Ms, act.Settled.For)
		var after protocol.SnapshotResult
		call("snapshot -i (new page)", protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Interactive: true}, &after)
		record("whole task", start, 0)
		select {
		case <-orders:
		case <-time.After(10 * time.Second):
			b.Fatal("no order reached the server")
		}
		if err := c.agent.Call(ctx, protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: "about:blank"}, nil); err != nil {
			b.Fatal(err)
		}
		if i >= 0 {
			fmt.Fprintf(os.Stderr, "run %d: goto %.0f ms (load %s), click settled %s\n", i, nav.TookMs, nav.Reached, settled)
		}
	}
	med := func(l []lap, f func(lap) float64) float64 {
		v := make([]float64, 0, len(l))
		for _, x := range l[1:] { // not the warm-up
			v = append(v, f(x))
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	var s strings.Builder
	s.WriteString("| call | rpc ms | service ms |\n|---|---:|---:|\n")
	for _, k := range order {
		fmt.Fprintf(&s, "| %s | %.0f | %.0f |\n", k, med(laps[k], func(l lap) float64 { return l.rpc }), med(laps[k], func(l lap) float64 { return l.service }))
	}
	fmt.Printf("the MCP checkout's service calls, %d runs (median)\n%s", len(laps["goto"])-1, s.String())
}
