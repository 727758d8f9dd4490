package snapshot_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/setup/browser"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/nodescript"
	"github.com/egohost/egohost/internal/testkit/snapshotbench"
)

// BenchmarkSnapshots measures egohost's full and interactive-only snapshots
// over a direct DevTools session and Playwright's ariaSnapshot on the same
// browser and pages, and logs the table of docs/benchmarks.md. Each
// column's figure is the median of b.N snapshots (run with -benchtime Nx).
func BenchmarkSnapshots(b *testing.B) {
	srv := browsertest.Serve(b, snapshotbench.Handler(snapshotbench.Sizes))
	br := browsertest.Launch(b, browser.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	endpoint := browsertest.DevToolsURL(ctx, b, br.Process)
	runs := b.N
	var rows []snapshotbench.Row
	for _, n := range snapshotbench.SizesFor(testing.Short()) {
		url := fmt.Sprintf("%s/list/%d", srv, n)
		row := snapshotbench.Row{Items: n}
		s := br.NewPage(b, url)
		p, err := cdptab.Open(ctx, s)
		if err != nil {
			b.Fatal(err)
		}
		if row.Full, err = snapshotbench.Measure(ctx, p, snapshot.Options{}, runs); err != nil {
			b.Fatal(err)
		}
		if row.Interactive, err = snapshotbench.Measure(ctx, p, snapshot.Options{Interactive: true}, runs); err != nil {
			b.Fatal(err)
		}
		p.Close()
		script, _ := filepath.Abs("../../../bench/pw-snapshot.mjs")
		pw, err := snapshotbench.Playwright(ctx, script, endpoint, []string{url}, runs)
		if nodescript.Column(b, err) {
			row.PW, row.HavePW = pw[0], true
		}
		rows = append(rows, row)
		b.ReportMetric(row.Full.MedianMs, fmt.Sprintf("full-ms/%d", n))
		b.ReportMetric(row.Interactive.MedianMs, fmt.Sprintf("i-ms/%d", n))
		b.ReportMetric(row.PW.MedianMs, fmt.Sprintf("pw-ms/%d", n))
	}
	b.Logf("runs per cell: %d (median)\n%s", runs, snapshotbench.Table(rows))
}
