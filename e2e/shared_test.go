package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/internal/testkit/cdpdirect"
	"github.com/egohost/egohost/protocol"
)

// sharedChain is one chain (service, browser, extension) that the tests
// needing no state of their own take turns on, so that the package does
// not start Chromium and the service once per test (4–5 s of CPU each,
// most of it Chromium's). The suite owns it: started by the first test
// that asks, ended by TestMain. There is one per config (sharedChains):
// the tests that need a config of their own — agents with origin rules —
// share the chain of that config.
//
// A test on it gets a fresh owner agent (its own connection: its own
// subscriptions and notifications); when it ends, the tabs it opened are
// closed and the agents it paired revoked (their requests still waiting
// denied), so the next test may pair the same names (pairDirect
// approves with replace there). Audit lines of an
// earlier test's agent of the same name stay in the log: read the log
// from the view's since. A test that fails retires the chain: the next
// test starts a new one, so one test's failure does not leave the next
// with a broken chain.
//
// Use startChain for a test that stops, kills or restarts any part, needs
// its own state dir, or counts agents, spaces or audit lines of every
// agent: its chain is its own.
type sharedChain struct {
	config string   // the config.yaml of its state dir ("": none)
	c      *chain   // nil until the first test asks, and after a test failed
	ends   []func() // ends of c's parts, run last first
}

// sharedChains are the suite's shared chains by config. Tests that use
// them must not run in parallel.
type sharedChains struct {
	mu     sync.Mutex
	chains map[string]*sharedChain
}

// useSharedChain returns a view of the suite's shared chain for t: see
// sharedChain.
func useSharedChain(t *testing.T) *chain {
	t.Helper()
	return useSharedChainWith(t, "")
}

// sharedFiles, in a shared chain's config, stands for the chain's folder
// for files (chain.files: made when the chain starts, outside its state
// dir), for paths of the chain's own.
const sharedFiles = "{files}"

// useSharedChainWith is useSharedChain on the shared chain whose service
// reads config (a config.yaml's text; see sharedFiles).
func useSharedChainWith(t *testing.T, config string) *chain {
	t.Helper()
	requireBrowser(t)
	all := &theSuite.shared
	all.mu.Lock()
	defer all.mu.Unlock()
	if all.chains == nil {
		all.chains = map[string]*sharedChain{}
	}
	s := all.chains[config]
	if s == nil {
		s = &sharedChain{config: config}
		all.chains[config] = s
	}
	if s.c == nil {
		s.start(t)
	}
	base := s.c
	view := *base
	view.agent = base.svc.dial(t)
	view.since = time.Now()
	view.waitLink(t)
	before := pageTargets(t, base.direct)
	t.Cleanup(func() {
		all.mu.Lock()
		defer all.mu.Unlock()
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
		forgetAgents(t, view.agent, base.svc.stateDir)
	})
	return &view
}

// forgetAgents revokes every paired agent, denies every request waiting,
// closes every space and deletes the agents' token files in stateDir, so
// that the next test on the chain may pair the same names afresh (the
// chain has none of its own: each test's are forgotten when it ends).
func forgetAgents(t testing.TB, owner *client.Client, stateDir string) {
	t.Helper()
	tokens, _ := filepath.Glob(filepath.Join(stateDir, "agents", "*.token"))
	for _, f := range tokens {
		if err := os.Remove(f); err != nil {
			t.Errorf("forget the agents: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var l protocol.AgentsListResult
	if err := owner.Call(ctx, protocol.MethodAgentsList, nil, &l); err != nil {
		t.Errorf("agents.list after the test: %v", err)
		return
	}
	for _, r := range l.Pending {
		// It may have gone with its connection meanwhile.
		owner.Call(ctx, protocol.MethodAgentsDeny, protocol.AgentNameParams{Name: r.Name}, nil)
	}
	for _, a := range l.Agents {
		if a.Revoked {
			continue
		}
		if err := owner.Call(ctx, protocol.MethodAgentsRevoke, protocol.AgentNameParams{Name: a.Name}, nil); err != nil {
			t.Errorf("revoke %s after the test: %v", a.Name, err)
		}
	}
	// Every space too: a revoked agent's end with it (the service does
	// that), but a test's named connections of the owner's token ("carol")
	// keep theirs, which a later test's connection of the same name would
	// find its own.
	var sl protocol.SpacesListResult
	if err := owner.Call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{All: true}, &sl); err != nil {
		t.Errorf("spaces.list after the test: %v", err)
		return
	}
	for _, sp := range sl.Spaces {
		if err := owner.Call(ctx, protocol.MethodSpacesClose, protocol.SpaceParams{Space: sp.ID}, nil); err != nil {
			t.Errorf("close space %s (%s) after the test: %v", sp.ID, sp.Agent, err)
		}
	}
}

// pairedAgents is agents.list's agents that are not revoked: on a shared
// chain, the agents of the tests before are revoked, not gone.
func pairedAgents(ctx context.Context, t *testing.T, owner *client.Client) []protocol.PairedAgent {
	t.Helper()
	var l protocol.AgentsListResult
	if err := owner.Call(ctx, protocol.MethodAgentsList, nil, &l); err != nil {
		t.Fatalf("agents.list: %v", err)
	}
	return slices.DeleteFunc(l.Agents, func(a protocol.PairedAgent) bool { return a.Revoked })
}

// start starts the shared chain in a folder of its own: its state dir,
// and its files (chain.files) beside it; if it fails, what was started is
// ended at once.
func (s *sharedChain) start(t *testing.T) {
	t.Helper()
	root, err := os.MkdirTemp("", "egohost-e2e-shared-")
	if err != nil {
		t.Fatal(err)
	}
	s.ends = []func(){func() { os.RemoveAll(root) }}
	dir, files := filepath.Join(root, "state"), filepath.Join(root, "files")
	for _, d := range []string{dir, files} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if s.config != "" {
		config := strings.ReplaceAll(s.config, sharedFiles, files)
		if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	started := false
	defer func() {
		if !started {
			if races := s.closeLocked(); races != "" {
				t.Errorf("the shared chain's service or relay reported a data race:\n%s", races)
			}
		}
	}()
	s.c = startChainUntil(t, dir, func(f func()) { s.ends = append(s.ends, f) })
	s.c.files = files
	started = true
}

// close ends the shared chains (TestMain, after the tests) and returns
// the data races their services and relays reported, if any.
func (all *sharedChains) close() string {
	all.mu.Lock()
	defer all.mu.Unlock()
	var races string
	for _, s := range all.chains {
		races += s.closeLocked()
	}
	return races
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
		// A page that closed itself meanwhile (a popup losing its focus)
		// is no error.
		if _, err := cdp.Call(ctx, direct.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: id}); err != nil && pageTargets(t, direct)[id] {
			t.Errorf("close the test's page %s: %v", id, err)
		}
	}
}

// endSharedChain ends the shared chains that are up, for a test that looks
// at every browser running on the machine (egohost doctor finds the
// shared chain's Chromium and its extension); the next test that asks for
// the shared chain starts a new one.
func endSharedChain(t *testing.T) {
	t.Helper()
	if races := theSuite.shared.close(); races != "" {
		t.Errorf("the shared chain's service or relay reported a data race:\n%s", races)
	}
}
