package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/rpcclient"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/cdpdirect"
	"github.com/egohost/egohost/internal/testkit/nodescript"
	"github.com/egohost/egohost/internal/testkit/resolverbench"
	"github.com/egohost/egohost/internal/testkit/snapshotbench"
	"github.com/egohost/egohost/protocol"
)

// latencies summarises a set of round trips.
type latencies []time.Duration

func (l latencies) pct(p float64) time.Duration {
	s := slices.Clone(l)
	slices.Sort(s)
	i := int(float64(len(s)-1) * p)
	return s[i]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// median is the middle one of xs (the upper middle of an even count); xs
// stays as it is.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// timeRuns calls call once to warm up (i = -1), then runs times (i = 0,
// 1, …), and returns the wall time of each measured call in ms; the first
// error ends the benchmark, named by what.
func timeRuns(b *testing.B, what string, runs int, call func(i int) error) []float64 {
	b.Helper()
	var times []float64
	for i := -1; i < runs; i++ {
		start := time.Now()
		if err := call(i); err != nil {
			b.Fatalf("%s: %v", what, err)
		}
		if i >= 0 {
			times = append(times, ms(time.Since(start)))
		}
	}
	return times
}

// benchRuns is how many measured runs a benchmark makes: b.N, at most
// most; one with -short (CI: the benchmark works; its figures need more).
func benchRuns(b *testing.B, most int) int {
	if testing.Short() {
		return 1
	}
	return min(b.N, most)
}

// directTab attaches a direct DevTools session to the tab the chain opened
// at url (the same tab the relayed calls drive).
func (c *chain) directTab(tb testing.TB, url string) *cdpdirect.Session {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return attachTab(ctx, tb, c, url).s
}

// BenchmarkRoundTrip compares one Runtime.evaluate("document.title") on the
// same tab: relayed (agent → WebSocket → service → relay → native messaging
// → extension → chrome.debugger, and back) vs a direct DevTools WebSocket.
// A third column, debug.echo, crosses the same chain without CDP: it shows
// what chrome.debugger itself costs.
// Run: go test ./e2e -run '^$' -bench RoundTrip -benchtime 2000x
func BenchmarkRoundTrip(b *testing.B) {
	c := startChain(b)
	url := serve(b, map[string]string{"/": "<title>bench</title>"}) + "/"
	tab := c.openTab(b, url)
	direct := c.directTab(b, url)
	ctx := context.Background()
	params := json.RawMessage(`{"expression":"document.title","returnByValue":true}`)
	yes := true
	relayed := func() error {
		return c.agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "Runtime.evaluate", Params: params}, nil)
	}
	viaDirect := func() error {
		_, err := cdp.Call(ctx, direct, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.title", ReturnByValue: &yes})
		return err
	}
	ping := func() error {
		return c.agent.Call(ctx, protocol.MethodDebugEcho, protocol.DebugEchoParams{Data: "x"}, nil)
	}
	// The same call over the agent socket: the CLI's transport, open to any
	// local agent of this user.
	sock, err := rpcclient.DialSocket(ctx, filepath.Join(c.svc.stateDir, protocol.AgentSocketFile), c.svc.token, rpcclient.SocketOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer sock.CloseNow()
	viaSocket := func() error {
		return sock.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "Runtime.evaluate", Params: params}, nil)
	}
	n := max(b.N, 50)
	var rel, dir, png, skt latencies
	for range 20 { // warm every path
		relayed()
		viaDirect()
		viaSocket()
	}
	b.ResetTimer()
	timed := func(call func() error, into *latencies) {
		t := time.Now()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		*into = append(*into, time.Since(t))
	}
	// Alternate the paths, so machine noise hits every column alike.
	for range n {
		timed(relayed, &rel)
		timed(viaDirect, &dir)
		timed(ping, &png)
		timed(viaSocket, &skt)
	}
	b.StopTimer()
	b.ReportMetric(ms(png.pct(0.5)), "echo-p50-ms")
	b.ReportMetric(ms(rel.pct(0.5)), "relayed-p50-ms")
	b.ReportMetric(ms(rel.pct(0.99)), "relayed-p99-ms")
	b.ReportMetric(ms(dir.pct(0.5)), "direct-p50-ms")
	b.ReportMetric(ms(dir.pct(0.99)), "direct-p99-ms")
	b.ReportMetric(ms(rel.pct(0.5)-dir.pct(0.5)), "added-p50-ms")
	b.ReportMetric(ms(skt.pct(0.5)), "socket-p50-ms")
	b.ReportMetric(ms(skt.pct(0.5)-dir.pct(0.5)), "socket-added-p50-ms")
	b.Logf("%d calls each: relayed median %.3f ms p99 %.3f ms; direct median %.3f ms p99 %.3f ms; added median %.3f ms; over the agent socket median %.3f ms p99 %.3f ms (added %.3f ms); echo through the chain without CDP: median %.3f ms p99 %.3f ms",
		n, ms(rel.pct(0.5)), ms(rel.pct(0.99)), ms(dir.pct(0.5)), ms(dir.pct(0.99)), ms(rel.pct(0.5)-dir.pct(0.5)), ms(skt.pct(0.5)), ms(skt.pct(0.99)), ms(skt.pct(0.5)-dir.pct(0.5)), ms(png.pct(0.5)), ms(png.pct(0.99)))
}

// BenchmarkSnapshotsRelayed measures full and interactive-only snapshots
// through the whole chain (the agent's snapshot method) against Playwright's
// ariaSnapshot on the same browser and pages, in one run.
// Run: go test ./e2e -run '^$' -bench SnapshotsRelayed -benchtime 5x -timeout 30m
func BenchmarkSnapshotsRelayed(b *testing.B) {
	c := startChain(b)
	srv := serveHandler(b, snapshotbench.Handler(snapshotbench.Sizes))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	endpoint := browsertest.DevToolsURL(ctx, b, c.proc)
	runs := max(b.N, 1)
	measure := func(tab protocol.Target, interactive bool) (snapshotbench.Result, error) {
		var times []float64
		var last protocol.SnapshotResult
		for i := range runs + 1 { // the first is a warm-up
			t := time.Now()
			if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Interactive: interactive}, &last); err != nil {
				return snapshotbench.Result{}, err
			}
			if i > 0 {
				times = append(times, ms(time.Since(t)))
			}
		}
		slices.Sort(times)
		return snapshotbench.Result{Runs: runs, MedianMs: times[len(times)/2], MinMs: times[0], Chars: len([]rune(last.Text)), Refs: last.Stats.Refs, Bytes: last.Stats.Bytes}, nil
	}
	var rows []snapshotbench.Row
	for _, n := range snapshotbench.SizesFor(testing.Short()) {
		url := fmt.Sprintf("%s/list/%d", srv, n)
		tab := c.openTab(b, url)
		row := snapshotbench.Row{Items: n}
		var err error
		if row.Full, err = measure(tab, false); err != nil {
			b.Fatal(err)
		}
		if row.Interactive, err = measure(tab, true); err != nil {
			b.Fatal(err)
		}
		script, _ := filepath.Abs("../bench/pw-snapshot.mjs")
		pw, err := snapshotbench.Playwright(ctx, script, endpoint, []string{url}, runs)
		if nodescript.Column(b, err) {
			row.PW, row.HavePW = pw[0], true
		}
		rows = append(rows, row)
		c.agent.Call(ctx, protocol.MethodTabsClose, protocol.TabParams{Target: tab}, nil)
		b.ReportMetric(row.Full.MedianMs, fmt.Sprintf("full-ms/%d", n))
		b.ReportMetric(row.Interactive.MedianMs, fmt.Sprintf("i-ms/%d", n))
		b.ReportMetric(row.PW.MedianMs, fmt.Sprintf("pw-ms/%d", n))
	}
	// Printed, not logged: go test cuts a benchmark's log after a few lines.
	fmt.Printf("relayed snapshots, runs per cell: %d (median)\n%s\n", runs, strings.TrimSpace(snapshotbench.Table(rows)))
}

// BenchmarkResolveRelayed resolves by role, text and css on the 5,000-item
// page through the whole chain (the agent's resolve method) and compares
// with Playwright's locator.boundingBox() on the same browser, in one run.
// Run: go test ./e2e -run '^$' -bench ResolveRelayed -benchtime 30x -timeout 20m
func BenchmarkResolveRelayed(b *testing.B) {
	c := startChain(b)
	srv := serveHandler(b, resolverbench.Handler(resolverbench.Items))
	url := srv + "/list"
	tab := c.openTab(b, url)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	endpoint := browsertest.DevToolsURL(ctx, b, c.proc)
	runs := max(b.N, 1)
	cases := resolverbench.Cases(resolverbench.Items)
	var selectors []string
	for _, cs := range cases {
		selectors = append(selectors, cs.Playwright)
	}
	script, _ := filepath.Abs("../bench/pw-resolve.mjs")
	pw, err := resolverbench.Playwright(ctx, script, endpoint, url, selectors, runs)
	havePW := nodescript.Column(b, err)
	var rows []resolverbench.Row
	for i, cs := range cases {
		var times []float64
		var last protocol.ResolveResult
		for j := range runs + 1 { // the first is a warm-up
			t := time.Now()
			if err := c.agent.Call(ctx, protocol.MethodResolve, protocol.ResolveParams{Target: tab, Element: cs.Egohost, Mode: protocol.ResolveCenter}, &last); err != nil {
				b.Fatalf("%s: %v", cs.Egohost, err)
			}
			if j > 0 {
				times = append(times, ms(time.Since(t)))
			}
		}
		if last.Center == nil {
			b.Fatalf("%s: got %d matches, want 1", cs.Egohost, last.Count)
		}
		slices.Sort(times)
		row := resolverbench.Row{Case: cs, Egohost: resolverbench.Result{Runs: runs, MedianMs: times[len(times)/2], MinMs: times[0], X: last.Center.X, Y: last.Center.Y}}
		if havePW {
			row.PW, row.HavePW = pw[i], true
			dx, dy := row.PW.X-row.Egohost.X, row.PW.Y-row.Egohost.Y
			row.SameSpot = dx*dx+dy*dy <= 1
		}
		rows = append(rows, row)
		b.ReportMetric(row.Egohost.MedianMs, cs.Name+"-ms")
		b.ReportMetric(row.PW.MedianMs, cs.Name+"-pw-ms")
	}
	fmt.Printf("relayed resolution (agent → service → relay → extension → chrome.debugger), %d runs per cell (median)\n%s\n", runs, strings.TrimSpace(resolverbench.Table(rows)))
}
