package actions_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/resolverbench"
	"github.com/egohost/egohost/resolver"
)

// recorder is the Runner's tab with every CDP call of the main session
// recorded: the step it belongs to, when it started and how long it took.
type recorder struct {
	safeTab
	mu    sync.Mutex
	start time.Time
	calls []recorded
}

type recorded struct {
	step     string
	at, took time.Duration
}

func (r *recorder) Call(ctx context.Context, method string, params, result any) error {
	begin := time.Now()
	err := r.safeTab.Call(ctx, method, params, result)
	r.mu.Lock()
	r.calls = append(r.calls, recorded{step: step(method, params), at: begin.Sub(r.start), took: time.Since(begin)})
	r.mu.Unlock()
	return err
}

// CallSequence records each command of a sequence with the sequence's
// time (they share one round trip).
func (r *recorder) CallSequence(ctx context.Context, cmds []cdptab.Command) error {
	begin := time.Now()
	err := r.safeTab.CallSequence(ctx, cmds)
	r.mu.Lock()
	for _, c := range cmds {
		r.calls = append(r.calls, recorded{step: step(c.Method, c.Params) + " (in one sequence)", at: begin.Sub(r.start), took: time.Since(begin)})
	}
	r.mu.Unlock()
	return err
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.start, r.calls = time.Now(), nil
	r.mu.Unlock()
}

// step names the step of an action a CDP call belongs to.
func step(method string, params any) string {
	switch p := params.(type) {
	case cdpruntime.CallFunctionOnParams:
		for _, s := range []struct{ marker, step string }{
			{"// check measures", "actionability (scroll, visible, stable, enabled, hit-test)"},
			{"// intercepted removes", "guard read back"},
			{"// intercept guards", "guard"},
			{"// settle waits", "settle"},
			{"// value returns", "value read back"},
		} {
			if strings.Contains(p.FunctionDeclaration, s.marker) {
				return s.step + ": " + method
			}
		}
		if strings.Contains(p.FunctionDeclaration, "__egohostA") {
			// The resolver's call on the element it found (the checks),
			// once the world keeps them: named, not sent.
			return "actionability (scroll, visible, stable, enabled, hit-test): " + method
		}
	case cdpruntime.EvaluateParams:
		if strings.Contains(p.Expression, "quietMs") {
			return "settle (dom quiet): " + method
		}
		if strings.Contains(p.Expression, "// check measures") {
			return "resolve + actionability: " + method
		}
		return "resolve: " + method
	}
	switch method {
	case "Input.dispatchMouseEvent", "Input.dispatchKeyEvent", "Input.insertText":
		return "dispatch: " + method
	case "Runtime.releaseObject":
		return "release: " + method
	case "Accessibility.getPartialAXTree", "DOM.describeNode":
		return "resolve: " + method
	}
	return "setup: " + method
}

// BenchmarkClickSteps instruments one click on the 5,000-item list page
// (500 under -short) over a direct DevTools connection: every CDP call the
// Runner makes, by step, with its count and time, for a click by css and by role, with and
// without the settle. The first click on the tab (the per-tab setup) is
// left out. Over the extension relay each call costs ~1.5 ms more.
// Run: go test ./internal/engine/actions -run '^$' -bench ClickSteps -benchtime 10x
func BenchmarkClickSteps(b *testing.B) {
	bb := browsers.Launch(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	open := func(url string) (*recorder, *actions.Runner) {
		p, err := cdptab.Open(ctx, bb.NewPage(b, url))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(p.Close)
		rec := &recorder{safeTab: safeTab{p}}
		res := resolver.New(rec, nil)
		find := actions.FindCallers(res.Object, res.ObjectCall)
		return rec, actions.New(rec, find, actions.Options{Transient: resolver.IsTransient, Timeout: time.Minute})
	}
	items := resolverbench.ItemsFor(testing.Short())
	list, lr := open(browsertest.Serve(b, resolverbench.Handler(items)) + "/list")
	if _, err := lr.Click(ctx, "css=li:first-child > button", actions.ClickOptions{}); err != nil {
		b.Fatal(err) // the per-tab setup, and Chrome's first layout of the page
	}
	form, fr := open(browsertest.Serve(b, browsertest.Pages(map[string]string{
		"/form": `<!doctype html><title>form</title><input id=name aria-label="Name"><p>Some text.</p>`,
	})) + "/form")
	if _, err := fr.Fill(ctx, "#name", "warm-up", actions.FillOptions{}); err != nil {
		b.Fatal(err)
	}
	off := &actions.Settle{Off: true}
	click := func(target string, noSettle bool) func(r *actions.Runner) error {
		return func(r *actions.Runner) error {
			o := actions.ClickOptions{}
			if noSettle {
				o.Settle = off
			}
			_, err := r.Click(ctx, target, o)
			return err
		}
	}
	runs := max(b.N, 1)
	var out strings.Builder
	for _, c := range []struct {
		name string
		rec  *recorder
		r    *actions.Runner
		do   func(r *actions.Runner) error
	}{
		{"click by css, no settle", list, lr, click(`css=li:last-child > button`, true)},
		{"click by role, no settle", list, lr, click(fmt.Sprintf(`role=button[name="Button %d"]`, items-1), true)},
		{"click by css, default settle", list, lr, click(`css=li:last-child > button`, false)},
		{"click by role, default settle", list, lr, click(fmt.Sprintf(`role=button[name="Button %d"]`, items-1), false)},
		{"fill, no settle", form, fr, func(r *actions.Runner) error {
			_, err := r.Fill(ctx, "#name", "Ada Lovelace", actions.FillOptions{ActOptions: actions.ActOptions{Settle: off}})
			return err
		}},
		{"press, no settle", form, fr, func(r *actions.Runner) error {
			_, err := r.Press(ctx, "Enter", actions.PressOptions{Target: "#name", ActOptions: actions.ActOptions{Settle: off}})
			return err
		}},
	} {
		rec, r := c.rec, c.r
		// Only the tab in front gets input events.
		if _, err := cdp.Call(ctx, rec, page.BringToFront, cdp.Empty{}); err != nil {
			b.Fatal(err)
		}
		type agg struct {
			n    int
			took time.Duration
		}
		steps := map[string]*agg{}
		var total []time.Duration
		var last []recorded
		for range runs {
			rec.reset()
			start := time.Now()
			if err := c.do(r); err != nil {
				b.Fatal(err)
			}
			total = append(total, time.Since(start))
			time.Sleep(20 * time.Millisecond) // the release after the reply
			rec.mu.Lock()
			last = append([]recorded(nil), rec.calls...)
			for _, call := range rec.calls {
				a := steps[call.step]
				if a == nil {
					a = &agg{}
					steps[call.step] = a
				}
				a.n++
				a.took += call.took
			}
			rec.mu.Unlock()
		}
		sort.Slice(total, func(i, j int) bool { return total[i] < total[j] })
		fmt.Fprintf(&out, "\n%s: median %.1f ms over %d clicks, direct connection\n", c.name, ms(total[len(total)/2]), runs)
		fmt.Fprintf(&out, "| step: CDP method | calls per click | ms per click |\n|---|---:|---:|\n")
		names := make([]string, 0, len(steps))
		for k := range steps {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			fmt.Fprintf(&out, "| %s | %.1f | %.1f |\n", k, float64(steps[k].n)/float64(runs), ms(steps[k].took)/float64(runs))
		}
		fmt.Fprintf(&out, "last click's calls (start ms, took ms):\n")
		for _, call := range last {
			fmt.Fprintf(&out, "  %6.1f %6.1f %s\n", ms(call.at), ms(call.took), call.step)
		}
		b.ReportMetric(ms(total[len(total)/2]), strings.NewReplacer(" ", "", ",", "").Replace(c.name)+"-ms")
	}
	fmt.Println(out.String())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
