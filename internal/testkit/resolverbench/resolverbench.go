// Package resolverbench measures egohost's resolver against Playwright on
// the same page of the same browser in one run: resolve-to-centre by role,
// by text and by css on a page of 5,000 list items (each a link, a button
// and a span), over any resolver.Tab (a direct DevTools session or the
// extension relay), and Playwright's locator.boundingBox() through
// bench/pw-resolve.mjs run by node against the same browser's DevTools
// endpoint.
package resolverbench

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/nodescript"
	"github.com/egohost/egohost/internal/testkit/snapshotbench"
	"github.com/egohost/egohost/resolver"
)

// Items is the size of the benchmark page.
const Items = 5000

// ItemsFor is Items, or a tenth of it when short (go test -short: the
// benchmark runs once in CI for its correctness, not its figures).
func ItemsFor(short bool) int {
	if short {
		return Items / 10
	}
	return Items
}

// Handler serves snapshotbench.ListPage(items) at /list.
func Handler(items int) http.Handler {
	// the same page as the snapshot benchmark
	return browsertest.Pages(map[string]string{"/list": snapshotbench.ListPage(items)})
}

// Case is one row: the same element found by egohost's locator and by
// Playwright's selector (getByRole / getByText semantics).
type Case struct {
	Name       string
	Egohost    string
	Playwright string
}

// Cases are the benchmark's rows on a page of items. They target the last
// item, so both engines scan the whole page.
func Cases(items int) []Case {
	last := items - 1
	return []Case{
		{"role", fmt.Sprintf(`role=button[name="Button %d"]`, last), fmt.Sprintf(`internal:role=button[name="Button %d"i]`, last)},
		{"text", fmt.Sprintf(`text=Span %d`, last), fmt.Sprintf(`internal:text="Span %d"i`, last)},
		{"css", fmt.Sprintf(`css=a[href="/item/%d"]`, last), fmt.Sprintf(`css=a[href="/item/%d"]`, last)},
	}
}

// Result is one measured cell.
type Result struct {
	Runs     int
	MedianMs float64
	MinMs    float64
	X, Y     float64 // the centre found
	Bytes    int     // CDP bytes per resolution (egohost only; 0 unknown)
	Calls    int     // CDP calls per resolution (egohost only)
}

// Counter wraps a tab's sessions and counts the calls and result bytes
// that cross them.
type Counter struct {
	cdptab.Sessions
	calls, bytes atomic.Int64
}

// Call counts one call and its result's size.
func (c *Counter) Call(ctx context.Context, method string, params, result any) error {
	return count(ctx, c, c.Sessions, method, params, result)
}

// Child returns the counted child session.
func (c *Counter) Child(id target.SessionID) cdp.Session {
	return &counted{Session: c.Sessions.Child(id), c: c}
}

type counted struct {
	cdp.Session
	c *Counter
}

func (s *counted) Call(ctx context.Context, method string, params, result any) error {
	return count(ctx, s.c, s.Session, method, params, result)
}

func count(ctx context.Context, c *Counter, s cdp.Session, method string, params, result any) error {
	var raw jsonv2.Value
	err := s.Call(ctx, method, params, &raw)
	c.calls.Add(1)
	c.bytes.Add(int64(len(raw)))
	if err != nil || result == nil || len(raw) == 0 {
		return err
	}
	return jsonv2.Unmarshal(raw, result)
}

// Reset zeroes the counts and returns the previous ones.
func (c *Counter) Reset() (calls, bytes int) {
	return int(c.calls.Swap(0)), int(c.bytes.Swap(0))
}

// Measure resolves locator to a centre runs times (after one warm-up) and
// returns the median and minimum. counter, when not nil, counts the CDP
// traffic of the resolver's tab.
func Measure(ctx context.Context, r *resolver.Resolver, counter *Counter, locator string, runs int) (Result, error) {
	if _, err := r.Center(ctx, locator); err != nil {
		return Result{}, err
	}
	if counter != nil {
		counter.Reset()
	}
	times := make([]float64, 0, runs)
	var pt resolver.Point
	for range runs {
		start := time.Now()
		var err error
		if pt, err = r.Center(ctx, locator); err != nil {
			return Result{}, err
		}
		times = append(times, float64(time.Since(start).Microseconds())/1000)
	}
	res := Result{Runs: runs, MedianMs: snapshotbench.Median(times), MinMs: slices.Min(times), X: pt.X, Y: pt.Y}
	if counter != nil {
		calls, bytes := counter.Reset()
		res.Calls, res.Bytes = calls/runs, bytes/runs
	}
	return res, nil
}

// Playwright runs script (bench/pw-resolve.mjs) against the browser at
// endpoint on url: each selector resolved with locator.boundingBox() runs
// times after a warm-up. The results follow the selectors' order; X and Y
// are the bounding box's centre.
func Playwright(ctx context.Context, script, endpoint, url string, selectors []string, runs int) ([]Result, error) {
	type line struct {
		Selector string   `json:"selector"`
		Error    string   `json:"error"`
		Runs     int      `json:"runs"`
		MedianMs float64  `json:"medianMs"`
		MinMs    float64  `json:"minMs"`
		Box      *pwBoxes `json:"box"`
	}
	args := append([]string{"--endpoint", endpoint, "--url", url, "--runs", fmt.Sprint(runs), "--timeout", "60000"}, selectors...)
	lines, err := nodescript.Lines[line](ctx, script, args...)
	if err != nil {
		return nil, err
	}
	var res []Result
	for _, l := range lines {
		if l.Error != "" {
			return nil, fmt.Errorf("pw-resolve %s: %s", l.Selector, l.Error)
		}
		r := Result{Runs: l.Runs, MedianMs: l.MedianMs, MinMs: l.MinMs}
		if l.Box != nil {
			r.X, r.Y = l.Box.X+l.Box.Width/2, l.Box.Y+l.Box.Height/2
		}
		res = append(res, r)
	}
	if len(res) != len(selectors) {
		return nil, fmt.Errorf("pw-resolve: %d results for %d selectors", len(res), len(selectors))
	}
	return res, nil
}

type pwBoxes struct {
	X, Y, Width, Height float64
}

// Row is one line of the table: a case, egohost's cell and Playwright's.
type Row struct {
	Case     Case
	Egohost  Result
	PW       Result
	HavePW   bool
	SameSpot bool // both found the same centre (within a pixel)
}

// Table renders rows as the Markdown table of docs/benchmarks.md.
func Table(rows []Row) string {
	var b strings.Builder
	b.WriteString("| locator | egohost median (min) | CDP calls, bytes | Playwright `boundingBox()` median (min) | ratio | same element |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, r := range rows {
		pw, ratio, same := "n/a", "n/a", "n/a"
		if r.HavePW {
			pw = fmt.Sprintf("%.2f ms (%.2f)", r.PW.MedianMs, r.PW.MinMs)
			if r.PW.MedianMs > 0 {
				ratio = fmt.Sprintf("%.2f×", r.Egohost.MedianMs/r.PW.MedianMs)
			}
			same = "no"
			if r.SameSpot {
				same = "yes"
			}
		}
		fmt.Fprintf(&b, "| %s `%s` | %.2f ms (%.2f) | %d, %d B | %s | %s | %s |\n",
			r.Case.Name, r.Case.Egohost, r.Egohost.MedianMs, r.Egohost.MinMs, r.Egohost.Calls, r.Egohost.Bytes, pw, ratio, same)
	}
	return b.String()
}
