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
	mux := slowDataMux("fetched result")
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

// TestSnapshotAfterANewDocumentThenAct: through the whole chain, a click
// that loads a new document returns once what that document's load
// handler fetches is on it, so the snapshot taken right after shows it;
// and an action by the snapshot's ref works on the new document (the
// snapshot ends the document's preparation beside it; the action then
// makes what it needs itself).
func TestSnapshotAfterANewDocumentThenAct(t *testing.T) {
	c := useSharedChain(t)
	mux := slowDataMux("fetched greeting")
	mux.Handle("/", browsertest.Pages(map[string]string{
		"/start": `<!doctype html><title>start</title><a id=go href="/next">next</a>`,
		"/next": `<!doctype html><title>next</title><p id=out>loading</p><label>Name <input id=name></label>
<script>onload = () => fetch('/data').then(r => r.text()).then(t => out.textContent = t)</script>`,
	}))
	tab := c.openTab(t, serveHandler(t, mux)+"/start")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for i := range 3 {
		if i > 0 {
			if err := c.agent.Call(ctx, protocol.MethodBack, protocol.NavParams{Target: tab}, nil); err != nil {
				t.Fatal(err)
			}
		}
		var res protocol.ActionResult
		if err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "#go"}, &res); err != nil {
			t.Fatal(err)
		}
		var snap protocol.SnapshotResult
		if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Interactive: true}, &snap); err != nil {
			t.Fatal(err)
		}
		var full protocol.SnapshotResult
		if err := c.agent.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab}, &full); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(full.Text, "fetched greeting") {
			t.Errorf("run %d: snapshot after the click (settled %+v): got\n%s\nwant the fetched text", i, res.Settled, full.Text)
		}
		ref := ""
		for _, line := range strings.Split(snap.Text, "\n") {
			if strings.Contains(line, `textbox "Name"`) {
				if at := strings.LastIndex(line, "@"); at >= 0 {
					ref = strings.Fields(line[at:])[0]
				}
			}
		}
		if ref == "" {
			t.Fatalf("run %d: no textbox Name in the snapshot:\n%s", i, snap.Text)
		}
		var fill protocol.ActionResult
		if err := c.agent.Call(ctx, protocol.MethodFill, protocol.FillParams{Target: tab, Element: ref, Text: "Ada"}, &fill); err != nil {
			t.Fatalf("run %d: fill %s: %v", i, ref, err)
		}
		if fill.Value == nil || *fill.Value != "Ada" {
			t.Errorf("run %d: fill's value: got %v, want Ada", i, fill.Value)
		}
	}
}

// slowDataMux serves /data, which answers body after 400 ms: longer than
// the settle's 100 ms quiet window, so only a settle that waits for the
// requests sees what the page does with the answer.
func slowDataMux(body string) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(400 * time.Millisecond):
		case <-r.Context().Done():
		}
		w.Write([]byte(body))
	})
	return mux
}
