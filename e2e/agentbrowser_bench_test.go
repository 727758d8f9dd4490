package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// agentBrowserSteps returns the checkout done step by step with
// agent-browser's CLI (its native binary: agentBrowserBinary), its daemon
// attached over CDP to the chain's browser: the calls egohost's steps make
// in BenchmarkScriptCheckout (open, snapshot -i, fill ×4, select, click,
// snapshot), each a new process as an agent's tool call is, in its own tab
// brought to the front before each run (as egohost's is). nil when the
// binary is not installed.
func agentBrowserSteps(b *testing.B, c *chain, shop string) func() taskRun {
	bin := agentBrowserBinary()
	if bin == "" {
		b.Logf("agent-browser's binary is not in bench/node_modules (scripts/setup.sh installs it): no agent-browser column")
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	endpoint, err := c.proc.DevToolsURL(ctx)
	if err != nil {
		b.Fatal(err)
	}
	home := b.TempDir() // its daemon's socket and state: this run's own
	run := func(r *taskRun, args ...string) string {
		b.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "HOME="+home)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		start := time.Now()
		err := cmd.Run()
		if r != nil {
			r.wall += time.Since(start)
			r.steps = append(r.steps, time.Since(start))
			r.calls++
			r.chars += out.Len()
		}
		if err != nil {
			b.Fatalf("agent-browser %s: %v: %s%s", strings.Join(args, " "), err, out.String(), errOut.String())
		}
		return out.String()
	}
	b.Cleanup(func() {
		// Its daemon outlives each call: end it by its pid file.
		if pid, err := os.ReadFile(filepath.Join(home, ".agent-browser", "default.pid")); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(pid))); err == nil {
				if p, err := os.FindProcess(n); err == nil {
					p.Kill()
				}
			}
		}
	})
	run(nil, "connect", endpoint)
	mine := shop + "?by=agent-browser"
	run(nil, "open", mine)
	var list protocol.TabsListResult
	if err := c.agent.Call(ctx, protocol.MethodTabsList, protocol.TabsListParams{}, &list); err != nil {
		b.Fatal(err)
	}
	tab := 0
	for _, t := range list.Tabs {
		if t.URL == mine {
			tab = t.ID
		}
	}
	if tab == 0 {
		b.Fatalf("agent-browser's tab (%s) is not in the tabs: %+v", mine, list.Tabs)
	}
	refs := regexp.MustCompile(`(\w+) "([^"]*)".*\bref=(\w+)\]`)
	return func() taskRun {
		if err := c.agent.Call(context.Background(), protocol.MethodTabsSelect, protocol.TabParams{Target: protocol.Target{Tab: tab}}, nil); err != nil {
			b.Fatal(err)
		}
		var r taskRun
		run(&r, "open", mine)
		snap := run(&r, "snapshot", "-i")
		checkoutByRefs(b, "agent-browser", refs, snap, func(args ...string) string { return run(&r, args...) })
		return r
	}
}
