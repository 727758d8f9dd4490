package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

// procStatusKiB reads one kB field (VmRSS, VmHWM) of a process's
// /proc status (Linux).
func procStatusKiB(pid int, field string) (int, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// 8 named agents, each in its own space, pipeline 500 calls each (all in
// flight at once on the agent's connection) with no tab named: every call
// must be answered (0 lost) from the agent's own tab (0 misrouted: the
// answer carries the page's title, which is the agent's name). Half are
// cdp.send, half the eval method (the actions' path). It reports the
// latency p50/p99 of a call as its agent saw it, and the service's RSS.
func TestSpacesLoad(t *testing.T) {
	const agents, perAgent = 8, 500
	c := startChain(t)
	base := spacePages(t)
	ctx := ctxT(t, 5*time.Minute)
	pid := c.svc.cmd.Process.Pid
	rssBefore, err := procStatusKiB(pid, "VmRSS")
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		lost, misrouted int
		lat             []time.Duration
	}
	results := make([]result, agents)
	names := make([]string, agents)
	clients := make([]*client.Client, agents)
	for a := range agents {
		names[a] = fmt.Sprintf("agent%d", a)
		clients[a] = dialAgent(t, c.svc, names[a])
		if err := clients[a].Call(ctx, protocol.MethodSpacesNew, protocol.SpacesNewParams{URL: base + "/p?who=" + names[a]}, nil); err != nil {
			t.Fatalf("%s: spaces.new: %v", names[a], err)
		}
	}
	start := time.Now()
	var ready sync.WaitGroup
	for a, cl := range clients {
		ready.Add(1)
		go func() {
			defer ready.Done()
			r := &results[a]
			var mu sync.Mutex
			var wg sync.WaitGroup
			for i := range perAgent {
				wg.Add(1)
				go func() {
					defer wg.Done()
					expr := fmt.Sprintf("document.title + ':' + %d", i)
					want := fmt.Sprintf("%s:%d", names[a], i)
					start := time.Now()
					var got string
					var err error
					if i%2 == 0 {
						var res struct {
							Result struct {
								Value string `json:"value"`
							} `json:"result"`
						}
						params, _ := json.Marshal(map[string]any{"expression": expr, "returnByValue": true})
						err = cl.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Method: cdpruntime.CommandEvaluate, Params: params}, &res)
						got = res.Result.Value
					} else {
						var res protocol.EvalResult
						err = cl.Call(ctx, protocol.MethodEval, protocol.EvalParams{Expression: expr}, &res)
						got, _ = res.Value.(string)
					}
					took := time.Since(start)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err != nil:
						r.lost++
						if r.lost <= 3 {
							t.Errorf("%s call %d: %v", names[a], i, err)
						}
					case got != want:
						r.misrouted++
						if r.misrouted <= 3 {
							t.Errorf("%s call %d: got %q, want %q", names[a], i, got, want)
						}
					default:
						r.lat = append(r.lat, took)
					}
				}()
			}
			wg.Wait()
		}()
	}
	ready.Wait()
	took := time.Since(start)
	var lost, misrouted int
	var all []time.Duration
	for _, r := range results {
		lost += r.lost
		misrouted += r.misrouted
		all = append(all, r.lat...)
	}
	if lost != 0 || misrouted != 0 {
		t.Fatalf("%d lost, %d misrouted of %d calls", lost, misrouted, agents*perAgent)
	}
	slices.Sort(all)
	pct := func(p float64) time.Duration { return all[int(p*float64(len(all)-1))] }
	rss, _ := procStatusKiB(pid, "VmRSS")
	hwm, _ := procStatusKiB(pid, "VmHWM")
	t.Logf("%d agents × %d pipelined calls, each agent in its own space: 0 lost, 0 misrouted; %v in all (%.0f calls/s); latency p50 %v, p99 %v, max %v; service RSS %d MiB before, %d MiB after, peak %d MiB",
		agents, perAgent, took.Round(time.Millisecond), float64(agents*perAgent)/took.Seconds(),
		pct(0.50).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), all[len(all)-1].Round(time.Millisecond),
		rssBefore/1024, rss/1024, hwm/1024)
}
