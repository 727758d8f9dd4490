package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	browserdomain "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/extensions"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/extension"
	"github.com/egohost/egohost/internal/setup/browser"
	"github.com/egohost/egohost/internal/setup/launcher"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/cdpdirect"
	"github.com/egohost/egohost/protocol"
)

// How the chain comes back by itself (docs/recovery.md), in real Chromium.

// recoverBound is how long the tests wait for the chain to come back after
// a fault: a hang bound, not the speed the chain is held to. The chain is
// back in 0.5–2 s here (issue 18's target; BenchmarkChainRecovery measures
// it, docs/recovery.md gives the figures); before the fixes it stayed down
// for 35 s and more (until some tab event), or never came back, so a bound
// of 10 s still tells the two apart on a loaded machine, where a 2 s
// deadline failed about one run in eight.
const recoverBound = 10 * time.Second

// workerTarget finds the extension's service worker among the browser's
// targets through the test's direct DevTools connection; a browser without
// one ends the test.
func workerTarget(ctx context.Context, t testing.TB, direct *cdpdirect.Conn) target.ID {
	t.Helper()
	res, err := cdp.Call(ctx, direct.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatalf("Target.getTargets: %v", err)
	}
	for _, ti := range res.TargetInfos {
		if ti.Type == "service_worker" && strings.HasPrefix(ti.URL, "chrome-extension://"+extension.ID+"/") {
			return ti.TargetID
		}
	}
	t.Fatal("no service worker target for the extension")
	return ""
}

// waitNoBrowser waits until the service lists no browser: the link dropped.
func (c *chain) waitNoBrowser(t testing.TB, why string) {
	t.Helper()
	ctx := ctxT(t, 10*time.Second)
	for {
		var bl protocol.BrowsersListResult
		if err := c.agent.Call(ctx, protocol.MethodBrowsersList, nil, &bl); err == nil && len(bl.Browsers) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: the browser link is still up after 10 s\nservice log:\n%s", why, c.svc.logs)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Chrome stops the extension's service worker with no tab attached
// (Target.closeTarget on it, then ServiceWorker.stopAllWorkers): the
// native port closes with it and the relay exits. Without touching the
// browser, `tabs` works again, with the same browser ID: the wake alarm
// restarts the worker, and the service holds the call while the known
// browser reconnects. How soon is logged (and measured by
// BenchmarkChainRecovery); the test waits at most recoverBound.
func TestChainRecoversWhenChromeStopsTheWorker(t *testing.T) {
	c := startChain(t)
	before := c.waitLink(t)
	ctx := ctxT(t, 60*time.Second)
	for round := range 2 {
		down, answered, tabs := stopWorkerAndList(ctx, t, c, round)
		t.Logf("round %d: link down %v after the stop; tabs.list answered %v after it", round, down.Round(time.Millisecond), answered.Round(time.Millisecond))
		if len(tabs.Tabs) == 0 || tabs.Tabs[0].Browser != before.ID {
			t.Fatalf("round %d: tabs.list after the worker restart: got %+v, want tabs of browser %s (the same ID)", round, tabs.Tabs, before.ID)
		}
	}
}

// tabsWhenBack asks tabs.list until it lists tabs (it answers at once
// while the browser is reconnecting, with none).
func tabsWhenBack(ctx context.Context, c *chain) (protocol.TabsListResult, error) {
	for {
		var tabs protocol.TabsListResult
		err := c.agent.Call(ctx, protocol.MethodTabsList, nil, &tabs)
		if err == nil && len(tabs.Tabs) > 0 {
			return tabs, nil
		}
		select {
		case <-ctx.Done():
			return tabs, fmt.Errorf("no tabs listed (last answer %+v, %v): %w", tabs, err, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// stopWorkerAndList stops the extension's worker (round 0: Target.closeTarget
// on it; other rounds: ServiceWorker.stopAllWorkers), waits for the link to
// drop, then calls tabs.list without touching the browser, for at most
// recoverBound. It returns how long after the stop the link dropped and
// the call answered, and the answer.
func stopWorkerAndList(ctx context.Context, tb testing.TB, c *chain, round int) (down, answered time.Duration, tabs protocol.TabsListResult) {
	tb.Helper()
	id := workerTarget(ctx, tb, c.direct)
	stopped := time.Now()
	if round == 0 {
		if _, err := cdp.Call(ctx, c.direct.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: id}); err != nil {
			tb.Fatalf("Target.closeTarget on the worker: %v", err)
		}
	} else {
		stopAllWorkers(ctx, tb, c.direct)
	}
	c.waitNoBrowser(tb, "worker stopped")
	down = time.Since(stopped)
	callCtx, cancel := context.WithDeadline(ctx, stopped.Add(recoverBound))
	defer cancel()
	// tabs.list answers at once with what is connected (the browser
	// listed as reconnecting meanwhile): ask until it lists the tabs.
	tabs, err := tabsWhenBack(callCtx, c)
	if err != nil {
		tb.Fatalf("round %d: tabs.list after the worker's stop (waited %v): %v\nservice log:\n%s\nbrowser stderr:\n%s", round, recoverBound, err, c.svc.logs, c.stderr)
	}
	return down, time.Since(stopped), tabs
}

// BenchmarkChainRecovery measures what TestChainRecoversWhenChromeStopsTheWorker
// only bounds: how soon after Chrome stops the extension's worker `tabs`
// answers again (each iteration one stop, alternating the two ways), as
// the median and the slowest, and the share within issue 18's 2 s.
// Run: go test ./e2e -run '^$' -bench ChainRecovery -benchtime 20x
func BenchmarkChainRecovery(b *testing.B) {
	c := startChain(b)
	c.waitLink(b)
	var took []time.Duration
	for i := 0; b.Loop(); i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, answered, _ := stopWorkerAndList(ctx, b, c, i%2)
		cancel()
		took = append(took, answered)
	}
	slices.Sort(took)
	within := 0
	for _, d := range took {
		if d <= 2*time.Second {
			within++
		}
	}
	b.ReportMetric(took[len(took)/2].Seconds(), "s-median")
	b.ReportMetric(took[len(took)-1].Seconds(), "s-max")
	b.ReportMetric(100*float64(within)/float64(len(took)), "%-within-2s")
}

// stopAllWorkers stops every service worker with ServiceWorker.stopAllWorkers
// through a page session of the direct DevTools connection.
func stopAllWorkers(ctx context.Context, t testing.TB, direct *cdpdirect.Conn) {
	t.Helper()
	res, err := cdp.Call(ctx, direct.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatalf("Target.getTargets: %v", err)
	}
	for _, ti := range res.TargetInfos {
		if ti.Type != "page" {
			continue
		}
		page, err := direct.Attach(ctx, ti.TargetID)
		if err != nil {
			t.Fatalf("attach to page %s: %v", ti.URL, err)
		}
		defer cdp.Call(ctx, direct.Browser(), target.DetachFromTarget, target.DetachFromTargetParams{SessionID: page.ID()})
		if _, err := cdp.Call(ctx, page, serviceworker.Enable, cdp.Empty{}); err != nil {
			t.Fatalf("ServiceWorker.enable: %v", err)
		}
		if _, err := cdp.Call(ctx, page, serviceworker.StopAllWorkers, cdp.Empty{}); err != nil {
			t.Fatalf("ServiceWorker.stopAllWorkers: %v", err)
		}
		return
	}
	t.Fatal("no page target to run ServiceWorker.stopAllWorkers on")
}

// launchProfile starts a headless browser on a kept profile with no
// --load-extension, and a direct DevTools connection.
func launchProfile(t testing.TB, c *chain, udd string, args ...string) *browser.Process {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	proc, err := launcher.Launch(ctx, launcher.Options{
		Browser:      requireBrowser(t),
		Host:         theSuite.host,
		HostName:     "com.egohost.host",
		ExtensionIDs: []string{extension.ID},
		UserDataDir:  udd,
		Headless:     true,
		Env:          chainEnv(c.svc.stateDir),
		Args:         append(browsertest.Flags(), args...),
		Stderr:       c.stderr,
		// A throwaway test profile: the direct connection is the test's
		// oracle and its way to stop the worker.
		DevToolsPortForTests: true,
	})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	t.Cleanup(func() { proc.Close() })
	return proc
}

// After a browser restart, an extension installed into the profile (Load
// unpacked; no --load-extension flag) connects with no window and no tab
// event (in 0.5–1 s here: logged; the test waits at most recoverBound).
func TestChainConnectsAfterBrowserRestartWithNoWindow(t *testing.T) {
	requireBrowser(t)
	stateDir := t.TempDir()
	c := &chain{svc: startService(t, stateDir), stderr: &logBuffer{}}
	c.agent = c.svc.dial(t)
	udd := filepath.Join(t.TempDir(), "profile")
	extDir, err := extension.WriteTo(filepath.Join(stateDir, "extension"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t, 60*time.Second)

	// Install it once. Extensions.loadUnpacked runs the installer of
	// chrome://extensions' "Load unpacked" (UnpackedInstaller) and needs
	// --enable-unsafe-extension-debugging.
	first := launchProfile(t, c, udd, "--enable-unsafe-extension-debugging")
	url, err := first.DevToolsURL(ctx)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := cdpdirect.Dial(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := cdp.Call(ctx, direct.Browser(), extensions.LoadUnpacked, extensions.LoadUnpackedParams{Path: extDir})
	if err != nil {
		t.Fatalf("Extensions.loadUnpacked: %v", err)
	}
	if loaded.ID != extension.ID {
		t.Fatalf("Extensions.loadUnpacked: got ID %s, want %s", loaded.ID, extension.ID)
	}
	installed := c.waitLink(t)
	if _, err := cdp.Call(ctx, direct.Browser(), browserdomain.Close, cdp.Empty{}); err != nil {
		t.Logf("Browser.close: %v", err) // the connection may drop before the answer
	}
	select {
	case <-first.Done():
	case <-ctx.Done():
		t.Fatal("the browser did not exit after Browser.close")
	}
	direct.Close()
	first.Close()
	c.waitNoBrowser(t, "browser closed")
	keepInstalled(t, udd, extension.ID)

	// Restart it: no --load-extension, no window, no tab. The clock starts
	// when the browser is up (its DevTools endpoint is written): how long
	// Chromium itself takes to start on a loaded machine is not ours.
	launched := time.Now()
	second := launchProfile(t, c, udd, "--no-startup-window")
	if _, err := second.DevToolsURL(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	t.Logf("the browser was up %v after its launch", start.Sub(launched).Round(time.Millisecond))
	linkCtx, cancel := context.WithDeadline(ctx, start.Add(recoverBound))
	defer cancel()
	for {
		var bl protocol.BrowsersListResult
		err := c.agent.Call(linkCtx, protocol.MethodBrowsersList, nil, &bl)
		if err == nil && len(bl.Browsers) == 1 {
			t.Logf("connected %v after the browser was up, as %s", time.Since(start).Round(time.Millisecond), bl.Browsers[0].ID)
			if bl.Browsers[0].ID != installed.ID {
				t.Errorf("after the restart: browser ID %s, want %s (the same profile)", bl.Browsers[0].ID, installed.ID)
			}
			break
		}
		select {
		case <-linkCtx.Done():
			t.Fatalf("no browser link within %v of the restart\nservice log:\n%s\nbrowser stderr:\n%s", recoverBound, c.svc.logs, c.stderr)
		case <-second.Done():
			t.Fatalf("the browser exited at start\nbrowser stderr:\n%s", c.stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
	var tabs protocol.TabsListResult
	if err := c.agent.Call(ctx, protocol.MethodTabsList, nil, &tabs); err != nil {
		t.Fatalf("tabs.list after the restart: %v", err)
	}
}

// keepInstalled turns the install Extensions.loadUnpacked made into the one
// chrome://extensions makes. Measured in Chromium 156: the CDP install
// carries creation flag 1<<15, and an extension with it is not loaded at
// the next start and is dropped from the profile a few seconds later; with
// the flag cleared it loads like any unpacked extension. The flag's
// preference MAC is dropped with it (Linux Chromium does not enforce MACs:
// a missing one is accepted, a wrong one resets the entry).
func keepInstalled(t testing.TB, udd, id string) {
	t.Helper()
	path := filepath.Join(udd, "Default", "Preferences")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var prefs map[string]any
	if err := json.Unmarshal(b, &prefs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	dig := func(m map[string]any, keys ...string) map[string]any {
		for _, k := range keys {
			next, _ := m[k].(map[string]any)
			if next == nil {
				return nil
			}
			m = next
		}
		return m
	}
	entry := dig(prefs, "extensions", "settings", id)
	if entry == nil {
		t.Fatalf("%s: the extension is not installed in the profile", path)
	}
	const cdpInstallFlag = 1 << 15
	flags, _ := entry["creation_flags"].(float64)
	entry["creation_flags"] = int(flags) &^ cdpInstallFlag
	// A person turns on Developer mode before "Load unpacked"; without it
	// Chrome disables unpacked extensions at start.
	ui := dig(prefs, "extensions")
	if dig(ui, "ui") == nil {
		ui["ui"] = map[string]any{}
	}
	dig(ui, "ui")["developer_mode"] = true
	if macs := dig(prefs, "protection", "macs", "extensions"); macs != nil {
		for _, k := range []string{"settings", "settings_encrypted_hash"} {
			if m, ok := macs[k].(map[string]any); ok {
				delete(m, id)
			}
		}
		if m := dig(macs, "ui"); m != nil {
			delete(m, "developer_mode")
			delete(m, "developer_mode_encrypted_hash")
		}
	}
	if b, err = json.Marshal(prefs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// detachBehindTheRelay ends the extension's debugger session on a tab the
// way nothing in egohost does: chrome.debugger.detach called in the
// extension's worker by someone else (a test-only direct DevTools session
// on the worker). Chrome sends no onDetach for it, so the extension only
// learns it when it next asks Chrome.
func detachBehindTheRelay(ctx context.Context, t testing.TB, c *chain, tabID int) {
	t.Helper()
	id := workerTarget(ctx, t, c.direct)
	yes := true
	att, err := cdp.Call(ctx, c.direct.Browser(), target.AttachToTarget, target.AttachToTargetParams{TargetID: id, Flatten: &yes})
	if err != nil {
		t.Fatalf("attach to the worker: %v", err)
	}
	defer cdp.Call(ctx, c.direct.Browser(), target.DetachFromTarget, target.DetachFromTargetParams{SessionID: att.SessionID}) //lint:ignore S1016 the two types only happen to share their fields
	res, err := cdp.Call(ctx, c.direct.Session(att.SessionID), cdpruntime.Evaluate, cdpruntime.EvaluateParams{
		Expression:    fmt.Sprintf(`chrome.debugger.detach({tabId: %d}).then(() => "detached", (e) => e.message)`, tabID),
		AwaitPromise:  &yes,
		ReturnByValue: &yes,
	})
	if err != nil || string(res.Result.Value) != `"detached"` {
		t.Fatalf("chrome.debugger.detach in the worker: got %s, %v", res.Result.Value, err)
	}
}

// waitTabDetached waits for the tab.detached notification of subscription sub.
func waitTabDetached(ctx context.Context, t testing.TB, c *chain, sub string) protocol.TabDetached {
	t.Helper()
	for {
		select {
		case <-ctx.Done():
			t.Fatalf("no tab.detached for subscription %s\nservice log:\n%s", sub, c.svc.logs)
		case m := <-c.agent.Notifications():
			if m.Method != protocol.NotifyTabDetached {
				continue
			}
			var d protocol.TabDetached
			if err := json.Unmarshal(m.Params, &d); err != nil {
				t.Fatalf("tab.detached params %s: %v", m.Params, err)
			}
			if d.Subscription == sub {
				return d
			}
		}
	}
}

// tabOpen reports whether tabs.list, asked by the owner, lists the tab.
func tabOpen(ctx context.Context, t testing.TB, c *chain, tabID int) bool {
	t.Helper()
	var tabs protocol.TabsListResult
	if err := c.agent.Call(ctx, protocol.MethodTabsList, nil, &tabs); err != nil {
		t.Fatalf("tabs.list: %v", err)
	}
	return slices.ContainsFunc(tabs.Tabs, func(tb protocol.Tab) bool { return tb.ID == tabID })
}

// tabAttached reports what tabs.list says of the tab's debugger.
func tabAttached(ctx context.Context, t testing.TB, c *chain, tabID int) bool {
	t.Helper()
	var tabs protocol.TabsListResult
	if err := c.agent.Call(ctx, protocol.MethodTabsList, nil, &tabs); err != nil {
		t.Fatalf("tabs.list: %v", err)
	}
	for _, tb := range tabs.Tabs {
		if tb.ID == tabID {
			return tb.Attached
		}
	}
	t.Fatalf("tabs.list: no tab %d in %+v", tabID, tabs.Tabs)
	return false
}

// A debugger session ended by someone else reaches the service like every
// other detach: cdp.subscribe subscribers get tab.detached, `tabs` shows
// the tab detached, and the next command attaches again. Both ways the
// extension can learn it: listing the tabs, and a command that finds the
// session gone (Chrome refuses it; it runs again on a new session).
func TestChainReportsADetachItDidNotCause(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": `<title>detach</title>`})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 30*time.Second)
	var sub protocol.CDPSubscribeResult
	if err := c.agent.Call(ctx, protocol.MethodCDPSubscribe, protocol.CDPSubscribeParams{Target: tab}, &sub); err != nil {
		t.Fatal(err)
	}

	// Found by listing the tabs.
	detachBehindTheRelay(ctx, t, c, tab.Tab)
	if tabAttached(ctx, t, c, tab.Tab) {
		t.Error("tabs.list after the detach: the tab still shows attached")
	}
	if d := waitTabDetached(ctx, t, c, sub.Subscription); d.Tab != tab.Tab || d.Reason != "not_attached" {
		t.Errorf("tab.detached: got %+v, want tab %d reason not_attached", d, tab.Tab)
	}

	// Found by a command.
	if _, err := c.eval(ctx, tab, "1"); err != nil {
		t.Fatalf("a command after the detach (attaches again): %v", err)
	}
	if !tabAttached(ctx, t, c, tab.Tab) {
		t.Fatal("the command did not attach again")
	}
	detachBehindTheRelay(ctx, t, c, tab.Tab)
	if v, err := c.eval(ctx, tab, "6*7"); err != nil || string(v) != "42" {
		t.Errorf("the command that found the session gone: got %s, %v; want 42 (run again, attached again)", v, err)
	}
	if d := waitTabDetached(ctx, t, c, sub.Subscription); d.Reason != "not_attached" {
		t.Errorf("tab.detached after the command: got %+v, want reason not_attached", d)
	}
	if !tabAttached(ctx, t, c, tab.Tab) {
		t.Error("tabs.list after the command: the tab is not attached again")
	}
}

// The same browser keeps its ID when its relay is killed and when the
// service restarts, and an agent that named it is served across the blip.
// What the link knew of a page the agent's script ran in lasts through
// the relay's restart and the service's, a service killed (SIGKILL) with
// its link up included: the take over still says to reload it.
func TestChainBrowserIDSurvivesRelayAndServiceRestarts(t *testing.T) {
	c := startChain(t)
	b := c.waitLink(t)
	base := serve(t, map[string]string{"/": `<title>ids</title>`})
	tab := c.openTab(t, base+"/")
	ctx := ctxT(t, 60*time.Second)
	bot := dialToken(t, c, pairDirect(t, c, "restart-bot", "space"))
	var scripted protocol.TabResult
	if err := bot.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: base + "/"}, &scripted); err != nil {
		t.Fatal(err)
	}
	if err := bot.Call(ctx, protocol.MethodEval, protocol.EvalParams{Target: protocol.Target{Tab: scripted.Tab.ID}, Expression: "1"}, nil); err != nil {
		t.Fatal(err)
	}

	killed := time.Now()
	killRelay(t, b)
	// Named, once the service has seen the link go (a request written
	// just before that may be lost with the relay: browser_gone): the
	// service waits for the known browser.
	c.waitNoBrowser(t, "relay killed")
	if _, err := c.eval(ctx, protocol.Target{Browser: b.ID, Tab: tab.Tab}, "1"); err != nil {
		t.Fatalf("cdp.send naming %s just after its relay was killed: %v\nservice log:\n%s", b.ID, err, c.svc.logs)
	}
	t.Logf("relay killed: cdp.send answered %v after the kill", time.Since(killed).Round(time.Millisecond))
	after := c.waitLink(t)
	if after.ID != b.ID || after.RelayPID == b.RelayPID {
		t.Fatalf("after the relay was killed: got browser %s (relay %d), want %s with a new relay", after.ID, after.RelayPID, b.ID)
	}
	var taken protocol.SpaceResult
	if err := c.agent.Call(ctx, protocol.MethodSpacesTakeOver, protocol.SpaceParams{Space: scripted.Tab.Space}, &taken); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(taken.Space.Scripted, []int{scripted.Tab.ID}) {
		t.Errorf("take over after the relay's restart: scripted %v, want [%d]", taken.Space.Scripted, scripted.Tab.ID)
	}

	// Killed: its link never ends, so only what it wrote of the marks as
	// it made and took them is left.
	if err := c.svc.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-c.svc.done
	c.svc = startService(t, c.svc.stateDir)
	c.agent = c.svc.dial(t)
	restarted := time.Now()
	if _, err := c.eval(ctx, protocol.Target{Browser: b.ID, Tab: tab.Tab}, "1"); err != nil {
		t.Fatalf("cdp.send naming %s just after a service restart: %v\nservice log:\n%s", b.ID, err, c.svc.logs)
	}
	t.Logf("service restarted: cdp.send answered %v after the new service was up", time.Since(restarted).Round(time.Millisecond))
	if again := c.waitLink(t); again.ID != b.ID {
		t.Fatalf("after a service restart: got browser %s, want %s", again.ID, b.ID)
	}
	var list protocol.SpacesListResult
	if err := c.agent.Call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Spaces) != 1 || !slices.Equal(list.Spaces[0].Scripted, []int{scripted.Tab.ID}) {
		t.Errorf("spaces.list after the service was killed and started again: %+v, want its one space with scripted [%d]", list.Spaces, scripted.Tab.ID)
	}
}
