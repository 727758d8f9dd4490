package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/protocol"
)

// TestSnapshotAfterClickSeesTheEffect: through the whole chain, a click
// with the default settle returns only once what its handler does a
// little later is in the page (a microtask, a setTimeout(0), an animation
// frame, a fetch slower than the old 100 ms quiet window), so the snapshot
// taken right after it shows the effect.
func TestSnapshotAfterClickSeesTheEffect(t *testing.T) {
	c := useSharedChain(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(400 * time.Millisecond):
		case <-r.Context().Done():
		}
		w.Write([]byte("fetched result"))
	})
	mux.Handle("/", browsertest.Pages(map[string]string{"/page": `<!doctype html><title>settle</title><body>
<p id=out>nothing yet</p>
<button id=micro onclick="queueMicrotask(() => out.textContent = 'microtask result')">micro</button>
<button id=timeout onclick="setTimeout(() => out.textContent = 'timeout result', 0)">timeout</button>
<button id=raf onclick="requestAnimationFrame(() => out.textContent = 'frame result')">raf</button>
<button id=fetch onclick="fetch('/data').then(r => r.text()).then(t => out.textContent = t)">fetch</button>`}))
	srv := serveHandler(t, mux)
	tab := c.openTab(t, srv+"/page")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, tc := range []struct{ button, want string }{
		{"micro", "microtask result"},
		{"timeout", "timeout result"},
		{"raf", "frame result"},
		{"fetch", "fetched result"},
	} {
		t.Run(tc.button, func(t *testing.T) {
			if _, err := c.eval(ctx, tab, `out.textContent = 'nothing yet'`); err != nil {
				t.Fatal(err)
			}
			var res protocol.ActionResult
			if err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#" + tc.button}, &res); err != nil {
				t.Fatal(err)
			}
			var snap protocol.SnapshotResult
			if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab}, &snap); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(snap.Text, tc.want) {
				t.Errorf("snapshot right after the click (settled %+v): got\n%s\nwant it to contain %q", res.Settled, snap.Text, tc.want)
			}
		})
	}
}
