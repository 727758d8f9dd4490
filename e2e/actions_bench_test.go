package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/nodescript"
	"github.com/egohost/egohost/internal/testkit/resolverbench"
	"github.com/egohost/egohost/protocol"
)

// benchPages are the pages of the action benchmark: a button, a text
// input, and a second page for goto.
func benchPages() map[string]string {
	return map[string]string{
		"/page": `<!doctype html><title>bench</title><body style="font:16px sans-serif">
<button id=b onclick="this.dataset.n = (+this.dataset.n || 0) + 1">Click me</button>
<input id=name aria-label="Name"><p>Some text.</p></body>`,
		"/other": `<!doctype html><title>other</title><p>Another page.</p>`,
	}
}

// actionTime is one row of the action benchmark.
type actionTime struct {
	op       string
	median   float64 // ms
	min      float64
	pwMedian float64 // 0: no Playwright figure
	pwOp     string
}

// BenchmarkActions times click, fill, press and goto on the same page of
// the same browser: relayed through the whole chain (agent → WebSocket →
// service → relay → native messaging → extension → chrome.debugger), with
// and without egohost's settle after the action, against Playwright
// (bench/pw-actions.mjs, attached to the same browser with
// connectOverCDP), in one run.
// Run: go test ./e2e -run '^$' -bench Actions -benchtime 20x -timeout 20m
func BenchmarkActions(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run: measure once, in the real run
	}
	c := startChain(b)
	srv := browsertest.Serve(b, browsertest.Pages(benchPages()))
	pageURL, otherURL := srv+"/page", srv+"/other"
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	tab := c.openTab(b, pageURL)
	runs := benchRuns(b, 50)
	measure := func(op string, call func(i int) error) actionTime {
		times := timeRuns(b, op, runs, call)
		slices.Sort(times)
		return actionTime{op: op, median: times[len(times)/2], min: times[0]}
	}
	rpc := func(method string, params any) error { return c.agent.Call(ctx, method, params, nil) }
	noSettle := protocol.ActionOptions{NoSettle: true}
	rows := []actionTime{
		measure("click", func(int) error {
			return rpc(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#b"})
		}),
		measure("click, no settle", func(int) error {
			return rpc(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#b", ActionOptions: noSettle})
		}),
		measure("fill", func(i int) error {
			return rpc(protocol.MethodFill, protocol.FillParams{Target: tab, Element: "#name", Text: fmt.Sprintf("Ada Lovelace %d", i)})
		}),
		measure("fill, no settle", func(i int) error {
			return rpc(protocol.MethodFill, protocol.FillParams{Target: tab, Element: "#name", Text: fmt.Sprintf("Ada Lovelace %d", i), ActionOptions: noSettle})
		}),
		measure("press", func(int) error {
			return rpc(protocol.MethodPress, protocol.PressParams{Target: tab, Element: "#name", Key: "Enter"})
		}),
		measure("press, no settle", func(int) error {
			return rpc(protocol.MethodPress, protocol.PressParams{Target: tab, Element: "#name", Key: "Enter", ActionOptions: noSettle})
		}),
		measure("press, focused element", func(int) error {
			return rpc(protocol.MethodPress, protocol.PressParams{Target: tab, Key: "Shift"})
		}),
		measure("goto (load)", func(i int) error {
			url := otherURL
			if i%2 != 0 {
				url = pageURL
			}
			return rpc(protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: url})
		}),
	}
	endpoint := browsertest.DevToolsURL(ctx, b, c.proc)
	pw, err := playwrightActions(ctx, endpoint, pageURL, otherURL, runs)
	nodescript.Column(b, err) // without it, pw is empty: the rows have no Playwright figures
	for i := range rows {
		op, _, _ := strings.Cut(rows[i].op, ",")
		op, _, _ = strings.Cut(op, " ")
		if v, ok := pw[op]; ok {
			rows[i].pwMedian, rows[i].pwOp = v, op
		}
		b.ReportMetric(rows[i].median, strings.ReplaceAll(rows[i].op, " ", "")+"-ms")
	}
	b.Logf("relayed through the chain vs Playwright over a direct DevTools connection, same browser, %d runs per cell (median)\n%s", runs, actionTable(rows))
}

// actionTable formats the rows as the Actions table of docs/benchmarks.md.
func actionTable(rows []actionTime) string {
	var s strings.Builder
	s.WriteString("| operation | egohost relayed ms (median) | min | Playwright ms (median) | egohost / Playwright |\n")
	s.WriteString("|---|---:|---:|---:|---:|\n")
	for _, r := range rows {
		pw, ratio := "–", "–"
		if r.pwMedian > 0 {
			pw = fmt.Sprintf("%.1f", r.pwMedian)
			ratio = fmt.Sprintf("%.2f×", r.median/r.pwMedian)
		}
		fmt.Fprintf(&s, "| %s | %.1f | %.1f | %s | %s |\n", r.op, r.median, r.min, pw, ratio)
	}
	return s.String()
}

// playwrightActions runs bench/pw-actions.mjs against the browser at
// endpoint and returns the median ms per operation.
func playwrightActions(ctx context.Context, endpoint, pageURL, otherURL string, runs int) (map[string]float64, error) {
	res, err := pwActionMedians(ctx, endpoint, runs, pageURL, otherURL)
	if err != nil {
		return nil, err
	}
	if len(res) != 4 {
		return nil, fmt.Errorf("playwright actions: got %d results, want 4", len(res))
	}
	return res, nil
}

// listRow is one row of BenchmarkActionsList: the same operation timed
// three ways (the agent's RPC, the service's own tookMs, a CLI process)
// against Playwright's.
type listRow struct {
	op             string
	rpc, took, cli float64 // medians, ms
	pw             float64 // 0: no Playwright figure
	pwOp           string
}

// BenchmarkActionsList times the actions issue 14 sets targets for, on the
// 5,000-item list page (20,000 elements) and on the small form page, in
// one run on one browser: click by role and by css (the last item's
// button, so the resolver scans the page), with and without the settle,
// fill and press without the settle, and the interactive-only snapshot.
// Each egohost cell is timed three ways: the agent's call over the
// WebSocket (rpc), the service's own time for it (tookMs in the reply)
// and a CLI process (`egohost click … --tab N`). Playwright
// (bench/pw-actions.mjs --list) runs the same operations over a direct
// DevTools connection.
// Run: go test ./e2e -run '^$' -bench ActionsList -benchtime 7x -timeout 30m
func BenchmarkActionsList(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run: measure once, in the real run
	}
	c := startChain(b)
	srv := browsertest.Serve(b, browsertest.Pages(benchPages()))
	list := serveHandler(b, resolverbench.Handler(resolverbench.Items)) + "/list"
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	runs := benchRuns(b, 50)
	measure := func(op string, rpc func(i int) (float64, error), cli func(i int) []string) listRow {
		var t []float64
		r := timeRuns(b, op, runs, func(i int) error {
			took, err := rpc(i)
			if i >= 0 {
				t = append(t, took)
			}
			return err
		})
		row := listRow{op: op, rpc: median(r), took: median(t)}
		if cli != nil {
			row.cli = median(timeRuns(b, op+" (cli)", runs, func(i int) error {
				if out, errOut, code := c.run(cli(i)...); code != 0 {
					return fmt.Errorf("exit %d: %s%s", code, out, errOut)
				}
				return nil
			}))
		}
		return row
	}
	listTab := c.openTab(b, list)
	// The first look at the 20,000-element page pays Chrome's style and
	// layout of it (seconds): once, before anything is timed.
	if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: listTab, Interactive: true}, nil); err != nil {
		b.Fatalf("warm-up snapshot: %v", err)
	}
	action := func(method string, params any) (float64, error) {
		var res protocol.ActionResult
		err := c.agent.Call(ctx, method, params, &res)
		return res.TookMs, err
	}
	click := func(tab protocol.Target, target string, noSettle bool) func(int) (float64, error) {
		return func(int) (float64, error) {
			return action(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: target, ActionOptions: protocol.ActionOptions{NoSettle: noSettle}})
		}
	}
	cliArgs := func(tab protocol.Target, args ...string) func(int) []string {
		return func(int) []string { return append(args, "--tab", itoa(tab.Tab)) }
	}
	const role, css = `role=button[name="Button 4999"]`, `css=li:last-child > button`
	rows := []listRow{
		measure("click by role, no settle", click(listTab, role, true), cliArgs(listTab, "click", role, "--no-settle")),
		measure("click by css, no settle", click(listTab, css, true), cliArgs(listTab, "click", css, "--no-settle")),
		measure("click by role, default settle", click(listTab, role, false), cliArgs(listTab, "click", role)),
		measure("click by css, default settle", click(listTab, css, false), cliArgs(listTab, "click", css)),
	}
	// A tab in the background gets no input events: the form's tab opens
	// (in front) once the list's clicks are done.
	formTab := c.openTab(b, srv+"/page")
	rows = append(rows,
		measure("fill, no settle", func(i int) (float64, error) {
			return action(protocol.MethodFill, protocol.FillParams{Target: formTab, Element: "#name", Text: fmt.Sprintf("Ada Lovelace %d", i), ActionOptions: protocol.ActionOptions{NoSettle: true}})
		}, func(i int) []string {
			return []string{"fill", "#name", fmt.Sprintf("Ada Lovelace %d", i), "--no-settle", "--tab", itoa(formTab.Tab)}
		}),
		measure("press, no settle", func(int) (float64, error) {
			return action(protocol.MethodPress, protocol.PressParams{Target: formTab, Element: "#name", Key: "Enter", ActionOptions: protocol.ActionOptions{NoSettle: true}})
		}, cliArgs(formTab, "press", "Enter", "--target", "#name", "--no-settle")),
		measure("snapshot -i, 5,000 items", func(int) (float64, error) {
			start := time.Now()
			err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: listTab, Interactive: true}, nil)
			return ms(time.Since(start)), err // no tookMs in a snapshot's reply: the rpc time
		}, nil),
		measure("tabs (a bare call)", func(int) (float64, error) {
			start := time.Now()
			err := c.agent.Call(ctx, protocol.MethodTabsList, protocol.TabsListParams{}, nil)
			return ms(time.Since(start)), err
		}, func(int) []string { return []string{"tabs"} }),
	)
	endpoint := browsertest.DevToolsURL(ctx, b, c.proc)
	pw, err := playwrightList(ctx, endpoint, srv+"/page", list, runs)
	nodescript.Column(b, err) // without it, pw is empty: the rows have no Playwright figures
	pwOf := map[string]string{
		"click by role, no settle": "click by role", "click by role, default settle": "click by role",
		"click by css, no settle": "click by css", "click by css, default settle": "click by css",
		"fill, no settle": "fill", "press, no settle": "press", "snapshot -i, 5,000 items": "ariaSnapshot",
	}
	for i := range rows {
		if op, ok := pwOf[rows[i].op]; ok && pw[op] > 0 {
			rows[i].pw, rows[i].pwOp = pw[op], op
		}
		b.ReportMetric(rows[i].rpc, strings.NewReplacer(" ", "", ",", "").Replace(rows[i].op)+"-ms")
	}
	// Printed, not logged: go test cuts a benchmark's log after a few lines.
	fmt.Printf("actions relayed (agent → service → relay → extension → chrome.debugger) vs Playwright direct, same browser, %d runs per cell (median)\n%s\n", runs, listTable(rows))
}

// listTable formats BenchmarkActionsList's rows for docs/benchmarks.md.
func listTable(rows []listRow) string {
	var s strings.Builder
	s.WriteString("| operation | egohost rpc ms | service ms | CLI ms | Playwright ms | rpc / PW | CLI / PW |\n")
	s.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		cli, pw, ratio, cliRatio := "–", "–", "–", "–"
		if r.cli > 0 {
			cli = fmt.Sprintf("%.1f", r.cli)
		}
		if r.pw > 0 {
			pw = fmt.Sprintf("%.1f (%s)", r.pw, r.pwOp)
			ratio = fmt.Sprintf("%.2f×", r.rpc/r.pw)
			if r.cli > 0 {
				cliRatio = fmt.Sprintf("%.2f×", r.cli/r.pw)
			}
		}
		fmt.Fprintf(&s, "| %s | %.1f | %.1f | %s | %s | %s | %s |\n", r.op, r.rpc, r.took, cli, pw, ratio, cliRatio)
	}
	return strings.TrimSpace(s.String())
}

// playwrightList runs bench/pw-actions.mjs --list against the browser at
// endpoint: click by role and by css on the list page, fill and press on
// the form page, ariaSnapshot of the list page; median ms per operation.
func playwrightList(ctx context.Context, endpoint, pageURL, listURL string, runs int) (map[string]float64, error) {
	res, err := pwActionMedians(ctx, endpoint, runs, "--list", listURL, pageURL, pageURL)
	if err != nil {
		return nil, err
	}
	for _, op := range []string{"click by role", "click by css", "fill", "press", "ariaSnapshot"} {
		if res[op] <= 0 {
			return nil, fmt.Errorf("playwright list actions: no %q result", op)
		}
	}
	return res, nil
}

// pwActionMedians runs bench/pw-actions.mjs with args against the browser
// at endpoint, runs times a cell, and returns its median ms per operation.
func pwActionMedians(ctx context.Context, endpoint string, runs int, args ...string) (map[string]float64, error) {
	script, err := filepath.Abs("../bench/pw-actions.mjs")
	if err != nil {
		return nil, err
	}
	type line struct {
		Op       string  `json:"op"`
		MedianMs float64 `json:"medianMs"`
	}
	lines, err := nodescript.Lines[line](ctx, script, append([]string{"--endpoint", endpoint, "--runs", fmt.Sprint(runs)}, args...)...)
	if err != nil {
		return nil, err
	}
	res := make(map[string]float64)
	for _, l := range lines {
		res[l.Op] = l.MedianMs
	}
	return res, nil
}

// BenchmarkFillPressInterleaved times fill and press without the settle,
// egohost through the whole chain against Playwright on the same browser,
// in alternating blocks: a block is N egohost fills and presses, then N of
// Playwright's (bench/pw-actions.mjs --form, in its own tab brought to the
// front; egohost's tab is brought back before its block). On a machine
// whose load moves, the ratio within a block is what compares; the median
// of the blocks' ratios is reported.
// Run: go test ./e2e -run '^$' -bench FillPressInterleaved -benchtime 5x -timeout 30m
func BenchmarkFillPressInterleaved(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run: measure once, in the real run
	}
	c := startChain(b)
	srv := browsertest.Serve(b, browsertest.Pages(benchPages()))
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	tab := c.openTab(b, srv+"/page")
	noSettle := protocol.ActionOptions{NoSettle: true}
	interleaved(ctx, b, c, tab, "fill and press", []interleavedOp{
		{"fill, no settle", "fill", func(i int) (float64, error) {
			var r protocol.ActionResult
			err := c.agent.Call(ctx, protocol.MethodFill, protocol.FillParams{Target: tab, Element: "#name", Text: fmt.Sprintf("Ada Lovelace %d", i), ActionOptions: noSettle}, &r)
			return r.TookMs, err
		}},
		{"press, no settle", "press", func(int) (float64, error) {
			var r protocol.ActionResult
			err := c.agent.Call(ctx, protocol.MethodPress, protocol.PressParams{Target: tab, Element: "#name", Key: "Enter", ActionOptions: noSettle}, &r)
			return r.TookMs, err
		}},
	}, "--form", srv+"/page", srv+"/page")
}

// BenchmarkClickInterleaved times clicks on the last item's button of the
// 5,000-item list, by role and by css, with egohost's default settle and
// without it, against Playwright's click (which does its own waiting), in
// alternating blocks as BenchmarkFillPressInterleaved does (issue 24 item
// 3: click by role with the default settle ≤ 1.0× Playwright's click).
// Run: go test ./e2e -run '^$' -bench ClickInterleaved -benchtime 5x -timeout 30m
func BenchmarkClickInterleaved(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run: measure once, in the real run
	}
	c := startChain(b)
	list := serveHandler(b, resolverbench.Handler(resolverbench.Items)) + "/list"
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	tab := c.openTab(b, list)
	// The first look at the page pays Chrome's style and layout of it
	// (seconds): once, before anything is timed.
	if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Interactive: true}, nil); err != nil {
		b.Fatalf("warm-up snapshot: %v", err)
	}
	click := func(target string, noSettle bool) func(int) (float64, error) {
		return func(int) (float64, error) {
			var r protocol.ActionResult
			err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: tab, Element: target, ActionOptions: protocol.ActionOptions{NoSettle: noSettle}}, &r)
			return r.TookMs, err
		}
	}
	const role, css = `role=button[name="Button 4999"]`, `css=li:last-child > button`
	interleaved(ctx, b, c, tab, "clicks on the 5,000-item list", []interleavedOp{
		{"click by role, default settle", "click by role", click(role, false)},
		{"click by role, no settle", "click by role", click(role, true)},
		{"click by css, default settle", "click by css", click(css, false)},
		{"click by css, no settle", "click by css", click(css, true)},
	}, "--clicks", list, list)
}

// BenchmarkGotoManyRequests times goto (until load) of a page that loads
// 200 images of 20 KB each, uncached, against Playwright's goto on the same
// browser, in alternating blocks as BenchmarkFillPressInterleaved does.
// Every request of such a page is four to seven CDP events, which the
// extension relays (or, for those the service does not read, holds back:
// hub's quietMethods).
// Run: go test ./e2e -run '^$' -bench GotoManyRequests -benchtime 8x -timeout 30m
func BenchmarkGotoManyRequests(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run: measure once, in the real run
	}
	c := startChain(b)
	// A 1×1 PNG, padded to 20 KB (a decoder stops at its end).
	png, err := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
	if err != nil {
		b.Fatal(err)
	}
	img := append(png, make([]byte, 20_000)...)
	var page strings.Builder
	page.WriteString("<title>200 images</title>")
	for i := range 200 {
		fmt.Fprintf(&page, `<img src="/img/%d.png" width=4 height=4>`, i)
	}
	base := serveHandler(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if strings.HasPrefix(r.URL.Path, "/img/") {
			w.Header().Set("Content-Type", "image/png")
			w.Write(img)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page.String())
	}))
	pageURL, otherURL := base+"/?a", base+"/?b"
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	tab := c.openTab(b, pageURL)
	interleaved(ctx, b, c, tab, "goto of a page of 200 requests", []interleavedOp{
		{"goto (load)", "goto", func(i int) (float64, error) {
			url := otherURL
			if i%2 != 0 {
				url = pageURL
			}
			var r protocol.NavResult
			err := c.agent.Call(ctx, protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: url, Until: "load"}, &r)
			return r.TookMs, err
		}},
	}, "--goto", pageURL, otherURL)
}

// interleavedOp is one operation of an interleaved benchmark: egohost's
// call (its service-side ms) and the name of Playwright's result it is
// compared with.
type interleavedOp struct {
	name, pwOp string
	call       func(i int) (float64, error)
}

// interleaved runs blocks of egohost's ops on tab, each followed by a
// block of bench/pw-actions.mjs with pwArgs on the same browser, and
// prints each op's medians and the median of its per-block ratios.
func interleaved(ctx context.Context, b *testing.B, c *chain, tab protocol.Target, what string, ops []interleavedOp, pwArgs ...string) {
	b.Helper()
	endpoint := browsertest.DevToolsURL(ctx, b, c.proc)
	runs := benchRuns(b, 50)
	blocks := 7
	if testing.Short() {
		blocks = 1 // CI: the benchmark works; its figures need the 7
	}
	rpc, took, pw, ratio := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	for block := range blocks {
		if err := c.agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "Page.bringToFront"}, nil); err != nil {
			b.Fatal(err)
		}
		mine := map[string]float64{}
		for _, op := range ops {
			var t []float64
			r := timeRuns(b, op.name, runs, func(i int) error {
				tk, err := op.call(block*100 + i)
				if i >= 0 {
					t = append(t, tk)
				}
				return err
			})
			mine[op.name] = median(r)
			rpc[op.name] = append(rpc[op.name], median(r))
			took[op.name] = append(took[op.name], median(t))
		}
		theirs, err := pwActionMedians(ctx, endpoint, runs, pwArgs...)
		if err != nil {
			b.Fatal(err)
		}
		for _, op := range ops {
			if v := theirs[op.pwOp]; v > 0 {
				pw[op.name] = append(pw[op.name], v)
				ratio[op.name] = append(ratio[op.name], mine[op.name]/v)
			}
		}
	}
	var s strings.Builder
	s.WriteString("| operation | egohost rpc ms | service ms | Playwright ms | rpc / PW, median of the blocks (range) |\n|---|---:|---:|---:|---|\n")
	for _, op := range ops {
		rs := slices.Clone(ratio[op.name])
		if len(rs) != blocks {
			b.Fatalf("%s: %d Playwright figures for %d blocks", op.name, len(rs), blocks)
		}
		slices.Sort(rs)
		fmt.Fprintf(&s, "| %s | %.1f | %.1f | %.1f (%s) | %.2f× (%.2f–%.2f×) |\n", op.name, median(rpc[op.name]), median(took[op.name]), median(pw[op.name]), op.pwOp, median(rs), rs[0], rs[len(rs)-1])
		b.ReportMetric(median(rs), strings.NewReplacer(" ", "", ",", "").Replace(op.name)+"-ratio")
	}
	fmt.Printf("%s relayed vs Playwright direct, %d blocks of %d runs each, alternating (medians)\n%s", what, blocks, runs, s.String())
}

// BenchmarkFirstFillAfterGoto: what the first action on a new document
// waits for. Each run navigates (until load) to a form on a page that is
// busy while it loads (300 list items, two 10 ms scripts), then fills a
// field at once, then again: the first fill finds egohost's world as the
// navigation left it (docs/benchmarks.md, "The first action after a
// navigation"). Client-side wall times through the chain, medians (and of
// each run's goto and first fill together); the figures compare builds
// (EGOHOST_E2E_BIN) run one after the other.
func BenchmarkFirstFillAfterGoto(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run: measure once, in the real run
	}
	c := startChain(b)
	var list strings.Builder
	for i := range 300 {
		fmt.Fprintf(&list, `<li><a href="/x%d">item %d</a></li>`, i, i)
	}
	busy := `<script>{ const t = Date.now(); while (Date.now() - t < 10); }</script>`
	page := func(next string) string {
		return `<!doctype html><title>busy form</title>` + busy + `<label>Name <input id=name></label> <a id=next href="` + next + `">next</a><ul>` + list.String() + `</ul>` + busy
	}
	srv := browsertest.Serve(b, browsertest.Pages(map[string]string{"/a": page("/b"), "/b": page("/a")}))
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	tab := c.openTab(b, srv+"/b")
	runs := benchRuns(b, 40)
	var gotos, firsts, seconds, both, clicks, afterClick, clickBoth, snapClicks, snaps, snapBoth []float64
	timed := func(method string, params any, into *[]float64) {
		start := time.Now()
		if err := c.agent.Call(ctx, method, params, nil); err != nil {
			b.Fatalf("%s: %v", method, err)
		}
		*into = append(*into, float64(time.Since(start).Microseconds())/1000)
	}
	b.ResetTimer()
	for i := range runs {
		url := srv + "/a"
		if i%2 != 0 {
			url = srv + "/b"
		}
		timed(protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: url, Until: "load"}, &gotos)
		timed(protocol.MethodFill, protocol.FillParams{Target: tab, Element: "#name", Text: "Ada"}, &firsts)
		both = append(both, gotos[i]+firsts[i])
		timed(protocol.MethodFill, protocol.FillParams{Target: tab, Element: "#name", Text: "Lovelace"}, &seconds)
		// A click that navigates (its settle follows the new document to
		// its DOMContentLoaded and a quiet window), then a fill at once.
		timed(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#next"}, &clicks)
		timed(protocol.MethodFill, protocol.FillParams{Target: tab, Element: "#name", Text: "Ada"}, &afterClick)
		clickBoth = append(clickBoth, clicks[i]+afterClick[i])
		// The same, then an interactive snapshot at once.
		timed(protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#next"}, &snapClicks)
		timed(protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Interactive: true}, &snaps)
		snapBoth = append(snapBoth, snapClicks[i]+snaps[i])
	}
	b.StopTimer()
	b.ReportMetric(median(gotos), "goto-ms")
	b.ReportMetric(median(firsts), "firstfill-ms")
	b.ReportMetric(median(seconds), "secondfill-ms")
	b.ReportMetric(median(both), "goto+firstfill-ms")
	b.ReportMetric(median(clickBoth), "click+fill-ms")
	b.ReportMetric(median(snapBoth), "click+snapshot-ms")
	b.Logf("%d runs, medians: goto %.1f ms, first fill %.1f ms (the two %.1f ms), second fill %.1f ms; "+
		"click that navigates %.1f ms, fill %.1f ms (the two %.1f ms); click that navigates %.1f ms, snapshot -i %.1f ms (the two %.1f ms)",
		runs, median(gotos), median(firsts), median(both), median(seconds), median(clicks), median(afterClick), median(clickBoth),
		median(snapClicks), median(snaps), median(snapBoth))
}

// BenchmarkClickWhileThePageShifts clicks a button on a page that moves it
// 40 px up or down at random times (every 40–90 ms, a timer: as a page
// whose late content pushes the form down): a click whose release comes
// after such a shift lands on something else, and the page sees a press
// of the button and no click (the result's ReleasedOn). How likely that
// is depends on how long the press and the release are apart, which it
// measures on a page that does not move (the page's own clock, from the
// press's mousedown to the release's mouseup), with the click's time.
func BenchmarkClickWhileThePageShifts(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run: measure once, in the real run
	}
	c := startChain(b)
	const counted = `<button id=b onclick="window.clicks = (window.clicks || 0) + 1">Order</button>`
	srv := browsertest.Serve(b, browsertest.Pages(map[string]string{
		"/shifting": `<!doctype html><title>shifting</title><div id=shim style="height:0"></div>` + counted + `
<script>(function shift() { shim.style.height = shim.style.height === '0px' ? '40px' : '0px'; setTimeout(shift, 40 + Math.random() * 50); })();</script>`,
		"/still": `<!doctype html><title>still</title>` + counted + `
<script>window.gaps = []; let down = 0;
b.addEventListener('mousedown', () => { down = performance.now(); });
b.addEventListener('mouseup', () => { window.gaps.push(performance.now() - down); });</script>`,
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	shifting, still := c.openTab(b, srv+"/shifting"), c.openTab(b, srv+"/still")
	runs := benchRuns(b, 200)
	split := 0
	var stills []float64
	noSettle := protocol.ActionOptions{NoSettle: true}
	b.ResetTimer()
	for range runs {
		var r protocol.ActionResult
		if err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: shifting, Element: "#b", ActionOptions: noSettle}, &r); err != nil {
			b.Fatalf("click: %v", err)
		}
		if r.ReleasedOn != "" {
			split++
		}
		start := time.Now()
		if err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: still, Element: "#b", ActionOptions: noSettle}, nil); err != nil {
			b.Fatalf("click: %v", err)
		}
		stills = append(stills, float64(time.Since(start).Microseconds())/1000)
	}
	b.StopTimer()
	v, err := c.eval(ctx, shifting, "window.clicks || 0")
	if err != nil {
		b.Fatal(err)
	}
	if clicked, _ := strconv.Atoi(string(v)); clicked+split != runs {
		b.Errorf("the page counted %d clicks and %d were split, of %d: want every click either made or reported split", clicked, split, runs)
	}
	v, err = c.eval(ctx, still, "JSON.stringify(window.gaps)")
	if err != nil {
		b.Fatal(err)
	}
	var raw string
	var gaps []float64
	if err := json.Unmarshal(v, &raw); err != nil || json.Unmarshal([]byte(raw), &gaps) != nil || len(gaps) != runs {
		b.Fatalf("the still page's press-release gaps: got %s (%v), want %d", v, err, runs)
	}
	b.ReportMetric(100*float64(split)/float64(runs), "split-%")
	b.ReportMetric(median(gaps), "press-release-ms")
	b.ReportMetric(median(stills), "click-ms")
	b.Logf("%d clicks on a page that shifts every 40-90 ms: %d released elsewhere (%.1f %%); on a still page, press to release median %.2f ms (max %.2f), the click %.1f ms",
		runs, split, 100*float64(split)/float64(runs), median(gaps), slices.Max(gaps), median(stills))
}
