package e2e

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

// rssKiB reads a process's resident set size from /proc (Linux).
func rssKiB(pid int) (int, error) { return procStatusKiB(pid, "VmRSS") }

// BenchmarkServiceMemory measures the RSS of the `egohost serve` process
// while 8 agents run b.N evals each (the eval method: a watch, a Runtime
// evaluate and the settle-free path) on one tab, and after it idles. Run:
//
//	go test ./e2e -run '^$' -bench ServiceMemory -benchtime 100x
func BenchmarkServiceMemory(b *testing.B) {
	c := startChain(b)
	base := serve(b, map[string]string{"/": `<title>memory</title><p id=p>Hello</p>`})
	tab := c.openTab(b, base+"/")
	pid := c.svc.cmd.Process.Pid
	const agents = 8
	clients := make([]*protocolCaller, agents)
	for i := range clients {
		clients[i] = &protocolCaller{c: c.svc.dial(b)}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	// One warm-up eval per agent opens the tab's page (ref map, resolver).
	for _, a := range clients {
		if err := a.eval(ctx, tab); err != nil {
			b.Fatal(err)
		}
	}
	before, err := rssKiB(pid)
	if err != nil {
		b.Fatal(err)
	}
	peak := before
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() { // sample the RSS while the agents run
		defer close(sampled)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if v, err := rssKiB(pid); err == nil && v > peak {
					peak = v
				}
			}
		}
	}()
	b.ResetTimer()
	var wg sync.WaitGroup
	errs := make(chan error, agents)
	for _, a := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range b.N {
				if err := a.eval(ctx, tab); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	close(stop)
	<-sampled
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	after, _ := rssKiB(pid)
	// Idle: the Go runtime gives freed memory back to the OS gradually.
	var idle int
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		time.Sleep(5 * time.Second)
		if idle, err = rssKiB(pid); err != nil {
			b.Fatal(err)
		}
		if idle <= 30*1024 {
			break
		}
	}
	b.ReportMetric(float64(before)/1024, "MiB-before")
	b.ReportMetric(float64(peak)/1024, "MiB-peak")
	b.ReportMetric(float64(after)/1024, "MiB-after")
	b.ReportMetric(float64(idle)/1024, "MiB-idle")
	b.Logf("serve RSS: before %d KiB, peak %d KiB, right after %d×%d evals %d KiB, idle %d KiB", before, peak, agents, b.N, after, idle)
}

// protocolCaller is one agent of the memory benchmark.
type protocolCaller struct{ c *client.Client }

func (p *protocolCaller) eval(ctx context.Context, tab protocol.Target) error {
	var r protocol.EvalResult
	return p.c.Call(ctx, protocol.MethodEval, protocol.EvalParams{Target: tab, Expression: "document.title.length"}, &r)
}
