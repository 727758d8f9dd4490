// Package snapshotbench measures egohost's snapshots against Playwright's
// aria snapshot on the same pages of the same browser in one run: pages of
// N list items (each a link, a button and a span), egohost's full and
// interactive-only snapshots over any Target (a direct DevTools session or
// the extension relay), and bench/pw-snapshot.mjs run by node against the
// same browser's DevTools endpoint.
package snapshotbench

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/nodescript"
)

// Sizes are the item counts of the benchmark pages.
var Sizes = []int{250, 1250, 5000}

// SizesFor is Sizes, or only the smallest when short (go test -short: the
// benchmark runs once in CI for its correctness, not its figures).
func SizesFor(short bool) []int {
	if short {
		return Sizes[:1]
	}
	return Sizes
}

// ListPage returns a page of n list items, each a link, a button and a span.
func ListPage(n int) string {
	var b strings.Builder
	b.WriteString("<!doctype html><title>list ")
	fmt.Fprint(&b, n)
	b.WriteString("</title><ul>")
	for i := range n {
		fmt.Fprintf(&b, `<li><a href="/item/%d">Link %d</a> <button>Button %d</button> <span>Span %d</span></li>`, i, i, i, i)
	}
	b.WriteString("</ul>")
	return b.String()
}

// Handler serves ListPage(n) at /list/N for every N in sizes.
func Handler(sizes []int) http.Handler {
	pages := make(map[string]string, len(sizes))
	for _, n := range sizes {
		pages[fmt.Sprintf("/list/%d", n)] = ListPage(n)
	}
	return browsertest.Pages(pages)
}

// Result is one measured column cell.
type Result struct {
	Items    int
	Runs     int
	MedianMs float64
	MinMs    float64
	Chars    int
	Refs     int // egohost only
	Bytes    int // egohost only: bytes of tree the page sent
}

// Measure takes runs snapshots of t with opts (after one warm-up) and
// returns the median time and the size of the text.
func Measure(ctx context.Context, t cdptab.Tab, opts snapshot.Options, runs int) (Result, error) {
	if runs < 1 {
		runs = 1
	}
	tab := snapshot.NewTab(t)
	if _, err := tab.Snapshot(ctx, opts); err != nil {
		return Result{}, fmt.Errorf("measure: warm-up: %w", err)
	}
	var times []float64
	var last *snapshot.Snapshot
	for range runs {
		start := time.Now()
		s, err := tab.Snapshot(ctx, opts)
		if err != nil {
			return Result{}, fmt.Errorf("measure: %w", err)
		}
		times = append(times, float64(time.Since(start).Microseconds())/1000)
		last = s
	}
	return Result{
		Runs: runs, MedianMs: Median(times), MinMs: slices.Min(times),
		Chars: len([]rune(last.Text)), Refs: last.Stats.Refs, Bytes: last.Stats.Bytes,
	}, nil
}

// Median returns the median of xs (not empty).
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Playwright runs script (bench/pw-snapshot.mjs) with node against the
// browser at endpoint (its DevTools WebSocket URL) on urls, and returns a
// result per URL. Without node or playwright-core the error matches
// nodescript.ErrNoNode.
func Playwright(ctx context.Context, script, endpoint string, urls []string, runs int) ([]Result, error) {
	type line struct {
		URL      string  `json:"url"`
		Runs     int     `json:"runs"`
		MedianMs float64 `json:"medianMs"`
		MinMs    float64 `json:"minMs"`
		Chars    int     `json:"chars"`
	}
	lines, err := nodescript.Lines[line](ctx, script, append([]string{"--endpoint", endpoint, "--runs", fmt.Sprint(runs)}, urls...)...)
	if err != nil {
		return nil, err
	}
	if len(lines) != len(urls) {
		return nil, fmt.Errorf("playwright bench: got %d results for %d pages", len(lines), len(urls))
	}
	res := make([]Result, len(lines))
	for i, r := range lines {
		res[i] = Result{Runs: r.Runs, MedianMs: r.MedianMs, MinMs: r.MinMs, Chars: r.Chars}
	}
	return res, nil
}

// Row is one page size's results.
type Row struct {
	Items                 int
	Full, Interactive, PW Result
	HavePW                bool
}

// Table formats rows as the markdown table of docs/benchmarks.md.
func Table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| items | egohost full ms | chars | egohost -i ms | chars | Playwright ariaSnapshot ms | chars | full / PW time | -i / PW time | full / PW chars | -i / PW chars |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		pw := func(x float64) string {
			if !r.HavePW || x == 0 {
				return "–"
			}
			return fmt.Sprintf("%.2f×", x)
		}
		ratio := func(a, b float64) float64 {
			if b == 0 {
				return 0
			}
			return a / b
		}
		fmt.Fprintf(&b, "| %d | %.0f | %d | %.0f | %d | %s | %s | %s | %s | %s | %s |\n",
			r.Items, r.Full.MedianMs, r.Full.Chars, r.Interactive.MedianMs, r.Interactive.Chars,
			cond(r.HavePW, fmt.Sprintf("%.0f", r.PW.MedianMs)), cond(r.HavePW, fmt.Sprint(r.PW.Chars)),
			pw(ratio(r.Full.MedianMs, r.PW.MedianMs)), pw(ratio(r.Interactive.MedianMs, r.PW.MedianMs)),
			pw(ratio(float64(r.Full.Chars), float64(r.PW.Chars))), pw(ratio(float64(r.Interactive.Chars), float64(r.PW.Chars))))
	}
	return b.String()
}

func cond(ok bool, s string) string {
	if ok {
		return s
	}
	return "–"
}
