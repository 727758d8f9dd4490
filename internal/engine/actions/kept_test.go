package actions_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/resolver"
)

// sentSizes records the size of each Runtime.evaluate expression a page
// is sent.
type sentSizes struct {
	safeTab
	mu    sync.Mutex
	sizes []int
}

func (s *sentSizes) Call(ctx context.Context, method string, params, result any) error {
	if p, ok := params.(runtime.EvaluateParams); ok && method == runtime.CommandEvaluate {
		s.mu.Lock()
		s.sizes = append(s.sizes, len(p.Expression))
		s.mu.Unlock()
	}
	return s.safeTab.Call(ctx, method, params, result)
}

// largestSince is the largest expression sent since the n-th, and how
// many there were in all.
func (s *sentSizes) largestSince(n int) (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	most := 0
	for _, x := range s.sizes[n:] {
		most = max(most, x)
	}
	return most, len(s.sizes)
}

// Every element action runs one function in egohost's world, whatever its
// first step: the document's first action sends it, every later one, of
// any kind, only its arguments (a select after a fill sent 28 KB of its
// own before).
func TestADocumentsFirstActionSendsTheChecksForEveryKind(t *testing.T) {
	p, ctx, _ := openPage(t, browsertest.Pages(map[string]string{"/": `<!doctype html><body>
<input id=name aria-label=Name> <select id=color aria-label=Color><option>red</option><option>green</option></select>
<input type=checkbox id=agree aria-label=Agree> <button id=go>Go</button> <span id=tip title=tip>?</span>`}), "/", 60*time.Second)
	rec := &sentSizes{safeTab: safeTab{p}}
	res := resolver.New(rec, nil)
	r := actions.New(safeTab{p}, actions.FindCallers(res.Object, res.ObjectCall), actions.Options{Transient: resolver.IsTransient})
	const function = 20_000 // the checks' function is ~30 KB; a call without it a few KB

	if _, err := r.Fill(ctx, "#name", "Ada", actions.FillOptions{}); err != nil {
		t.Fatal(err)
	}
	if most, _ := rec.largestSince(0); most < function {
		t.Fatalf("the first fill sent at most %d bytes: the function was not sent?", most)
	}
	steps := []struct {
		name string
		do   func() error
	}{
		{"select", func() error {
			_, err := r.Select(ctx, "#color", actions.SelectOptions{Values: []string{"green"}})
			return err
		}},
		{"check", func() error { _, err := r.SetChecked(ctx, "#agree", true, actions.ActOptions{}); return err }},
		{"hover", func() error { _, err := r.Hover(ctx, "#tip", actions.ActOptions{}); return err }},
		{"type", func() error {
			_, err := r.Type(ctx, "!", actions.PressOptions{Target: "#name"})
			return err
		}},
		{"click", func() error { _, err := r.Click(ctx, "#go", actions.ClickOptions{}); return err }},
	}
	for _, st := range steps {
		_, n := rec.largestSince(0)
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if most, _ := rec.largestSince(n); most >= function {
			t.Errorf("%s after a fill sent %d bytes in one evaluation: a function of its own", st.name, most)
		}
	}
}
