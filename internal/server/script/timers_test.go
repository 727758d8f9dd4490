package script

import (
	"encoding/json"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// rss is the process's resident memory in bytes (Linux), 0 elsewhere.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// A script's timers count against its limits: each waits on the run's
// one timer goroutine (a goroutine each would cost a stack the heap
// figure does not see: 100,000 timers took 86 MiB with a 32 MiB limit),
// and a run holds at most maxTimers at once. A script that makes 100,000
// fails with script_limit, and the process's memory stays near the limit.
func TestTimersCountAgainstTheLimits(t *testing.T) {
	const limit = 32 << 20
	scripts := map[string]string{
		"setTimeout": `for (let i = 0; i < 100000; i++) setTimeout(() => {}, 60000); await page.waitForTimeout(100)`,
		"sleep":      `const ps = []; for (let i = 0; i < 100000; i++) ps.push(page.waitForTimeout(60000)); await Promise.all(ps)`,
	}
	for name, src := range scripts {
		t.Run(name, func(t *testing.T) {
			runtime.GC()
			debug.FreeOSMemory()
			before := rss()
			var peak int64
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				for {
					peak = max(peak, rss())
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond):
					}
				}
			}()
			start := time.Now()
			_, err := run1(t, &fakeService{}, src, Options{MaxMemory: limit, Timeout: 2 * time.Minute})
			close(stop)
			<-done
			t.Logf("%s: RSS %d MiB before, peak %d MiB (+%d MiB) with limits.script_memory %d MiB, in %v; %v",
				name, before>>20, peak>>20, (peak-before)>>20, limit>>20, time.Since(start).Round(time.Millisecond), err)
			if err == nil || err.Code != protocol.CodeScriptLimit {
				t.Errorf("got %v, want script_limit", err)
			}
			if before > 0 && peak-before > 2*limit {
				t.Errorf("the process grew by %d MiB, want at most about the limit (%d MiB)", (peak-before)>>20, limit>>20)
			}
		})
	}
	t.Run("under the cap", func(t *testing.T) {
		res, err := run1(t, &fakeService{}, `let n = 0; for (let i = 0; i < 1000; i++) setTimeout(() => n++, i % 10); await page.waitForTimeout(50); n`, Options{})
		if err != nil || string(res.Value) != "1000" {
			t.Errorf("1000 timers: got %v, %v; want 1000 run", res, err)
		}
	})
}

// At most maxCallsRunning of a script's calls run at once (each waits on
// a goroutine); the others wait their turn, and all are made.
func TestCallsRunningAreCapped(t *testing.T) {
	var mu sync.Mutex
	running, most := 0, 0
	f := &fakeService{answers: map[string]func(json.RawMessage) (json.RawMessage, error){
		protocol.MethodClick: func(json.RawMessage) (json.RawMessage, error) {
			mu.Lock()
			running++
			most = max(most, running)
			mu.Unlock()
			time.Sleep(time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
			return json.RawMessage(`{}`), nil
		},
	}}
	res, err := run1(t, f, `const ps = []; for (let i = 0; i < 500; i++) ps.push(page.click('#a')); await Promise.all(ps); ps.length`, Options{Timeout: time.Minute})
	if err != nil || string(res.Value) != "500" {
		t.Fatalf("500 calls at once: got %v, %v", res, err)
	}
	if len(f.calls) != 500 || most > maxCallsRunning {
		t.Errorf("%d calls made, at most %d at once; want 500, at most %d", len(f.calls), most, maxCallsRunning)
	}
}
