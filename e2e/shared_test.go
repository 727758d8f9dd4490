package e2e

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/cdpdirect"
)

// sharedChain is one chain (service, browser, extension) that the tests
// needing no state of their own take turns on, so that the package does
// not start Chromium and the service once per test. The suite owns it:
// started by the first test that asks, ended by TestMain.
//
// A test on it gets a fresh owner agent (its own connection: its own
// subscriptions and notifications) and the tabs it opened are closed when
// it ends. A test that fails retires the chain: the next test starts a new
// one, so one test's failure does not leave the next with a broken chain.
//
// Use startChain for a test that stops, kills or restarts any part, needs
// its own config or state dir, pairs agents, or counts tabs, agents,
// spaces or audit lines: its chain is its own.
type sharedChain struct {
	mu   sync.Mutex
	c    *chain   // nil until the first test asks, and after a test failed
	ends []func() // ends of c's parts, run last first
}

// useSharedChain returns a view of the suite's shared chain for t: see
// sharedChain. Tests that use it must not run in parallel.
func useSharedChain(t *testing.T) *chain {
	t.Helper()
	requireBrowser(t)
	s := &theSuite.shared
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c == nil {
		s.start(t)
	}
	base := s.c
	view := *base
	view.agent = base.svc.dial(t)
	view.waitLink(t)
	before := pageTargets(t, base.direct)
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.c != base {
			return
		}
		if t.Failed() {
			t.Logf("this test failed: the shared chain is retired")
			if races := s.closeLocked(); races != "" {
				t.Errorf("the shared chain's service or relay reported a data race:\n%s", races)
			}
			return
		}
		closeNewPages(t, base.direct, before)
	})
	return &view
}

// start starts the shared chain in a state dir of its own; if it fails,
// what was started is ended at once.
func (s *sharedChain) start(t *testing.T) {
	t.Helper()
	dir, err := os.MkdirTemp("", "egohost-e2e-shared-")
	if err != nil {
		t.Fatal(err)
	}
	s.ends = []func(){func() { os.RemoveAll(dir) }}
	started := false
	defer func() {
		if !started {
			if races := s.closeLocked(); races != "" {
				t.Errorf("the shared chain's service or relay reported a data race:\n%s", races)
			}
		}
	}()
	s.c = startChainUntil(t, dir, func(f func()) { s.ends = append(s.ends, f) })
	started = true
}

// close ends the shared chain (TestMain, after the tests) and returns
// the data races its service and relay reported, if any.
func (s *sharedChain) close() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closeLocked()
}

func (s *sharedChain) closeLocked() string {
	for i := len(s.ends) - 1; i >= 0; i-- {
		s.ends[i]()
	}
	var races string
	if s.c != nil {
		races = raceReport(s.c.stderr) + raceReport(s.c.svc.logs)
	}
	s.c, s.ends = nil, nil
	return races
}

// pageTargets lists the browser's pages (tabs and extension pages).
func pageTargets(t testing.TB, direct *cdpdirect.Conn) map[target.ID]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cdp.Call(ctx, direct.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatalf("Target.getTargets: %v", err)
	}
	pages := map[target.ID]bool{}
	for _, ti := range res.TargetInfos {
		if ti.Type == "page" {
			pages[ti.TargetID] = true
		}
	}
	return pages
}

// closeNewPages closes the pages that are not in before: the ones the test
// opened.
func closeNewPages(t testing.TB, direct *cdpdirect.Conn, before map[target.ID]bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for id := range pageTargets(t, direct) {
		if before[id] {
			continue
		}
		if _, err := cdp.Call(ctx, direct.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: id}); err != nil {
			t.Errorf("close the test's page %s: %v", id, err)
		}
	}
}

// endSharedChain ends the shared chain if it is up, for a test that looks
// at every browser running on the machine (egohost doctor finds the
// shared chain's Chromium and its extension); the next test that asks for
// the shared chain starts a new one.
func endSharedChain(t *testing.T) {
	t.Helper()
	if races := theSuite.shared.close(); races != "" {
		t.Errorf("the shared chain's service or relay reported a data race:\n%s", races)
	}
}
