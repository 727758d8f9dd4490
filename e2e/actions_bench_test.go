package e2e

import (
	"context"
	"fmt"
	"github.com/egohost/egohost/internal/nodescript"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/browsertest"
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
	runs := min(b.N, 50)
	measure := func(op string, call func(i int) error) actionTime {
		var times []float64
		for i := -1; i < runs; i++ { // -1 is a warm-up
			start := time.Now()
			if err := call(i); err != nil {
				b.Fatalf("%s: %v", op, err)
			}
			if i >= 0 {
				times = append(times, float64(time.Since(start).Microseconds())/1000)
			}
		}
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
		measure("goto (load)", func(i int) error {
			url := otherURL
			if i%2 != 0 {
				url = pageURL
			}
			return rpc(protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: url})
		}),
	}
	endpoint, err := c.proc.DevToolsURL(ctx)
	if err != nil {
		b.Fatal(err)
	}
	pw, err := playwrightActions(ctx, endpoint, pageURL, otherURL, runs)
	switch {
	case err != nil && os.Getenv("CI") != "true":
		b.Logf("no Playwright column: %v", err)
	case err != nil:
		b.Fatal(err)
	}
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
	script, err := filepath.Abs("../bench/pw-actions.mjs")
	if err != nil {
		return nil, err
	}
	type line struct {
		Op       string  `json:"op"`
		MedianMs float64 `json:"medianMs"`
	}
	lines, err := nodescript.Lines[line](ctx, script, "--endpoint", endpoint, "--runs", fmt.Sprint(runs), pageURL, otherURL)
	if err != nil {
		return nil, err
	}
	res := make(map[string]float64)
	for _, l := range lines {
		res[l.Op] = l.MedianMs
	}
	if len(res) != 4 {
		return nil, fmt.Errorf("playwright actions: got %d results, want 4", len(res))
	}
	return res, nil
}
