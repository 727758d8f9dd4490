package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/internal/rpcclient"
	"github.com/egohost/egohost/internal/testkit/snapshotbench"
	"github.com/egohost/egohost/protocol"
)

// BenchmarkCLICost splits what one CLI call (`egohost tabs`) costs:
// the floor of any process (/bin/true), the process start (`egohost
// help`: no configuration, no connection),
// the start with the configuration read (an unknown verb: it loads the
// configuration, then fails), and in the benchmark's own process the
// token read, the service's proof, the WebSocket handshake and the call.
// Run: go test ./e2e -run '^$' -bench CLICost -benchtime 30x
func BenchmarkCLICost(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run: measure once, in the real run
	}
	c := startChain(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	runs := min(b.N, 200)
	type row struct {
		what string
		ms   float64
	}
	var rows []row
	measure := func(what string, f func() error) {
		times := timeRuns(b, what, runs, func(int) error { return f() })
		slices.Sort(times)
		rows = append(rows, row{what, times[len(times)/2]})
		b.ReportMetric(times[len(times)/2], strings.NewReplacer(" ", "", "`", "", ",", "", "(", "", ")", "").Replace(what)+"-ms")
	}
	exit := func(want int, args ...string) func() error {
		return func() error {
			if out, errOut, code := c.run(args...); code != want {
				return fmt.Errorf("exit %d, want %d: %s%s", code, want, out, errOut)
			}
			return nil
		}
	}
	measure("exec of /bin/true (the floor of any process)", func() error { return exec.Command("/bin/true").Run() })
	// Pair by pair, alternating: egohost's start against agent-browser's
	// native binary (bench/node_modules, from npm: scripts/setup.sh).
	if ab := agentBrowserBinary(); ab != "" {
		// Wall time moves with the machine's load; CPU time (user +
		// system, of the child) much less, so both are given.
		run := func(name string, args ...string) (wall, cpu time.Duration) {
			cmd := exec.Command(name, args...)
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatalf("%s %v: %v", name, args, err)
			}
			return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		var oursW, oursC, theirsW, theirsC, ratioW, ratioC []float64
		for i := -1; i < runs; i++ {
			w1, c1 := run(theSuite.bin, "--version")
			w2, c2 := run(ab, "--version")
			if i >= 0 {
				oursW, oursC, theirsW, theirsC = append(oursW, ms(w1)), append(oursC, ms(c1)), append(theirsW, ms(w2)), append(theirsC, ms(c2))
				ratioW, ratioC = append(ratioW, float64(w1)/float64(w2)), append(ratioC, float64(c1)/float64(max(c2, time.Microsecond)))
			}
		}
		med := func(l []float64) float64 { slices.Sort(l); return l[len(l)/2] }
		rows = append(rows,
			row{"`egohost --version`, alternating: wall", med(oursW)}, row{"agent-browser's native `--version`, alternating: wall", med(theirsW)},
			row{"ratio egohost / agent-browser, wall, median of pairs (×)", med(ratioW)},
			row{"`egohost --version`: CPU (user + system)", med(oursC)}, row{"agent-browser's `--version`: CPU (user + system)", med(theirsC)},
			row{"ratio egohost / agent-browser, CPU, median of pairs (×)", med(ratioC)})
		b.ReportMetric(med(ratioW), "version-wall-ratio")
	} else {
		b.Logf("agent-browser's binary is not in bench/node_modules (scripts/setup.sh installs it): no pairs")
	}
	measure("process start (`egohost help`)", exit(0, "help"))
	measure("start + configuration (an unknown verb)", exit(2, "no-such-verb"))
	measure("a whole call (`egohost tabs`)", exit(0, "tabs"))
	tokenFile := filepath.Join(c.svc.stateDir, "token")
	measure("in process: read the token", func() error {
		_, err := client.ReadToken(tokenFile)
		return err
	})
	dial := func(o client.Options, call bool) func() error {
		return func() error {
			cl, err := client.Dial(ctx, c.svc.addr, c.svc.token, o)
			if err != nil {
				return err
			}
			defer cl.Close()
			if call {
				return cl.Call(ctx, protocol.MethodTabsList, protocol.TabsListParams{}, nil)
			}
			return nil
		}
	}
	measure("in process: proof + WebSocket handshake", dial(client.Options{}, false))
	measure("in process: WebSocket handshake only (no proof)", dial(client.Options{SkipProof: true}, false))
	measure("in process: dial with proof + tabs.list", dial(client.Options{}, true))
	// The CLI's transport: the agent socket in the state dir.
	sock := filepath.Join(c.svc.stateDir, protocol.AgentSocketFile)
	dialSocket := func(call bool) func() error {
		return func() error {
			cl, err := rpcclient.DialSocket(ctx, sock, c.svc.token, rpcclient.SocketOptions{})
			if err != nil {
				return err
			}
			defer cl.CloseNow()
			if call {
				return cl.Call(ctx, protocol.MethodTabsList, protocol.TabsListParams{}, nil)
			}
			return nil
		}
	}
	measure("in process: proof + agent socket handshake (the CLI's)", dialSocket(false))
	measure("in process: agent socket dial with proof + tabs.list", dialSocket(true))
	// The service's own time, as an agent holding a connection sees it:
	// what a CLI call costs over this is the CLI's.
	measure("in process: tabs.list on one open connection", func() error {
		return c.agent.Call(ctx, protocol.MethodTabsList, protocol.TabsListParams{}, nil)
	})
	measure("in process: eval 1 on one open connection", func() error {
		return c.agent.Call(ctx, protocol.MethodEval, protocol.EvalParams{Expression: "1"}, nil)
	})
	measure("a whole call (`egohost eval 1`)", exit(0, "eval", "1"))
	// CPU (user + system) of whole calls: it moves less with the load.
	for _, args := range [][]string{{"--version"}, {"tabs"}, {"eval", "1"}} {
		var cpu []float64
		for i := -1; i < runs; i++ {
			cmd := exec.Command(theSuite.bin, args...)
			cmd.Env = chainEnv(c.svc.stateDir)
			if err := cmd.Run(); err != nil {
				b.Fatalf("egohost %v: %v", args, err)
			}
			if i >= 0 {
				cpu = append(cpu, ms(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()))
			}
		}
		slices.Sort(cpu)
		rows = append(rows, row{"`egohost " + strings.Join(args, " ") + "`: CPU (user + system)", cpu[len(cpu)/2]})
	}
	var s strings.Builder
	s.WriteString("| step | median ms |\n|---|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&s, "| %s | %.2f |\n", r.what, r.ms)
	}
	fmt.Printf("CLI cost, %d runs per row (median)\n%s\n", runs, strings.TrimSpace(s.String()))
}

// agentBrowserBinary is agent-browser's native binary: $AGENT_BROWSER, else
// the one for this machine in bench/node_modules; "" when there is none.
func agentBrowserBinary() string {
	if f := os.Getenv("AGENT_BROWSER"); f != "" {
		return f
	}
	if goruntime.GOOS != "linux" || goruntime.GOARCH != "amd64" {
		return ""
	}
	f, err := filepath.Abs(filepath.Join("..", "bench", "node_modules", "agent-browser", "bin", "agent-browser-linux-x64"))
	if err != nil {
		return ""
	}
	if st, err := os.Stat(f); err != nil || st.Mode()&0o111 == 0 {
		return ""
	}
	return f
}

// BenchmarkSnapshotThroughCLI: a full snapshot of the 15,001-element page
// (5,000 list items) over one open agent connection against the same
// snapshot printed by `egohost snapshot` (a new CLI process each time,
// as an agent's tool call runs it), alternating pair by pair on one tab.
// What the CLI adds is its start, its connection, and moving and printing
// the text (issue 24: ≤ 15 % over the connection).
//
//	go test ./e2e -run '^$' -bench SnapshotThroughCLI -benchtime 10x
func BenchmarkSnapshotThroughCLI(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run: measure once, in the real run
	}
	c := startChain(b)
	items := 5000
	if testing.Short() {
		items = 250
	}
	srv := serveHandler(b, snapshotbench.Handler([]int{items}))
	tab := c.openTab(b, fmt.Sprintf("%s/list/%d", srv, items))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	runs := min(b.N, 50)
	var conn, cli, ratio []float64
	var chars int
	for i := -1; i < runs; i++ { // the first pair warms up
		start := time.Now()
		var res protocol.SnapshotResult
		if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab}, &res); err != nil {
			b.Fatal(err)
		}
		tConn := time.Since(start)
		start = time.Now()
		out, errOut, code := c.cli(tab, "snapshot")
		tCLI := time.Since(start)
		if code != 0 {
			b.Fatalf("egohost snapshot: exit %d: %s", code, errOut)
		}
		if res.Truncated != nil || len(out) != len(res.Text) {
			b.Fatalf("the CLI printed %d bytes, the connection got %d (cut: %v)", len(out), len(res.Text), res.Truncated)
		}
		if i >= 0 {
			conn, cli, ratio = append(conn, ms(tConn)), append(cli, ms(tCLI)), append(ratio, float64(tCLI)/float64(tConn))
		}
		chars = len([]rune(res.Text))
	}
	med := func(l []float64) float64 { slices.Sort(l); return l[len(l)/2] }
	b.ReportMetric(med(conn), "conn-ms")
	b.ReportMetric(med(cli), "cli-ms")
	b.ReportMetric(med(ratio), "cli/conn")
	fmt.Printf("full snapshot of %d items (%d characters), %d pairs (median)\n| over one connection ms | `egohost snapshot` ms | CLI / connection, median of pairs |\n|---:|---:|---:|\n| %.1f | %.1f | %.2f× |\n",
		items, chars, runs, med(conn), med(cli), med(ratio))
}
