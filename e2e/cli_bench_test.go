package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
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
		var times []float64
		for i := -1; i < runs; i++ {
			start := time.Now()
			if err := f(); err != nil {
				b.Fatalf("%s: %v", what, err)
			}
			if i >= 0 {
				times = append(times, ms(time.Since(start)))
			}
		}
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
	var s strings.Builder
	s.WriteString("| step | median ms |\n|---|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&s, "| %s | %.2f |\n", r.what, r.ms)
	}
	fmt.Printf("CLI cost, %d runs per row (median)\n%s\n", runs, strings.TrimSpace(s.String()))
}
