package actions_test

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// slowData is how long /data takes to answer: longer than the old 100 ms
// quiet window, so only a settle that waits for the action's requests sees
// what the page does with the answer.
const slowData = 400 * time.Millisecond

// settlePage has buttons whose handlers change the page later than the
// click: in a microtask, a setTimeout(0), an animation frame, a chain of
// timers, after a fetch, and a while after a fetch answered at once;
// #none changes nothing.
func settlePage() http.Handler {
	pages := browsertest.Pages(map[string]string{"/": html(`
<p id=out>-</p>
<button id=micro onclick="queueMicrotask(() => out.textContent = 'micro')">micro</button>
<button id=timeout onclick="setTimeout(() => out.textContent = 'timeout', 0)">timeout</button>
<button id=raf onclick="requestAnimationFrame(() => out.textContent = 'raf')">raf</button>
<button id=chain onclick="setTimeout(() => { out.textContent = 'one'; setTimeout(() => out.textContent = 'chain', 30) }, 0)">chain</button>
<button id=fetch onclick="fetch('/data').then(r => r.text()).then(t => out.textContent = t)">fetch</button>
<button id=save onclick="fetch('/save', {method: 'POST'}).then(r => r.text()).then(t => out.textContent = t)">save</button>
<button id=quick onclick="fetch('/quick').then(r => r.text()).then(t => setTimeout(() => out.textContent = t, 40)); const end = performance.now() + 80; while (performance.now() < end);">quick</button>
<script>
// A long poll of the server's events, renewed as soon as it answers
// (Syncthing's GUI): /save wakes it.
function events() { fetch('/events').then(r => r.text()).then(events, () => setTimeout(events, 1000)) }
events();
</script>
<button id=none>none</button>
<form action="/send" method=post target=sink><button id=framed onclick="out.textContent = 'sending'">framed</button></form>
<iframe name=sink style="display:none"></iframe>
<button id=framesrc onclick="out.textContent = 'loading'; pane.src = '/pane'">framesrc</button>
<iframe id=pane onload="if (this.src) out.textContent = 'pane'"></iframe>
<button id=crosssite onclick="out.textContent = 'loading'; other.src = location.protocol + '//localhost:' + location.port + '/pane'">crosssite</button>
<iframe id=other onload="if (this.src) out.textContent = 'other'"></iframe>`)})
	return withSlowData(pages)
}

// withSlowData serves pages, /data, which answers "fetched" after
// slowData, /quick, which answers "quick" at once, and a long poll of events: /events answers when /save (which
// answers "saved") comes, or when the page goes.
func withSlowData(pages http.Handler) http.Handler {
	mux := http.NewServeMux()
	var mu sync.Mutex
	event := make(chan struct{})
	mux.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		next := event
		mu.Unlock()
		select {
		case <-next:
		case <-r.Context().Done():
		}
		w.Write([]byte("event"))
	})
	mux.HandleFunc("/save", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		close(event)
		event = make(chan struct{})
		mu.Unlock()
		w.Write([]byte("saved"))
	})
	// /send answers a form posted into a hidden frame after slowData, with
	// a script that tells the page (Roundcube's Send).
	mux.HandleFunc("/send", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(slowData):
		case <-r.Context().Done():
		}
		w.Write([]byte(`<script>parent.document.getElementById('out').textContent = 'sent'</script>`))
	})
	// /pane is a frame's document whose image answers after slowData:
	// the frame's load event, where the page says it is ready, comes
	// after it (Roundcube's new contact form, under "Loading...").
	mux.HandleFunc("/pane", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`<!doctype html><form><input name=first></form><img src="/data">`))
	})
	mux.HandleFunc("/quick", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("quick")) })
	mux.HandleFunc("/data", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(slowData):
		case <-r.Context().Done():
		}
		w.Write([]byte("fetched"))
	})
	mux.Handle("/", pages)
	return mux
}

// TestSettleSeesTheEffect: with the default settle, what a click's handler
// does a little later (a microtask, a timer, a frame, a request) is in the
// page when the click returns, so the next snapshot sees it; a click that
// changes nothing ends after one frame.
func TestSettleSeesTheEffect(t *testing.T) {
	tb := openWith(t, settlePage(), "/", actions.Options{})
	for _, c := range []struct {
		button, want string
		waited       string // one of Settled.For
	}{
		{"micro", "micro", "dom quiet"},
		{"timeout", "timeout", "dom quiet"},
		{"raf", "raf", "dom quiet"},
		{"chain", "chain", "dom quiet"},
		{"fetch", "fetched", "network"},
		// A request answered before the settle first looks (the handler
		// keeps the page busy for 80 ms after starting it) is waited for
		// too: the page handles its answer after (here a timer of its
		// own), and the quiet window sees that.
		// On a busy machine its frame comes late, and the answer and its
		// timer's change are in the page by the settle's first look: the
		// quiet window sees them as a change then, not the network wait.
		{"quick", "quick", "network|dom quiet"},
		// A save that wakes the page's long poll, which the page renews at
		// once (Syncthing's events): the save is seen (its answer may come
		// within the first frame), the renewed poll is not waited for (it
		// held every such action to the 2 s cap).
		{"save", "saved", ""},
		// A form posted into a hidden frame (Roundcube's Send, older
		// pages' uploads): the page changes at once ("sending"), and the
		// frame's answer says how it went; the frame's load is the
		// action's, waited for as a request the action started is.
		{"framed", "sent", "network"},
		// A frame the action loads, to its load event (its image takes
		// slowData).
		{"framesrc", "pane", "network"},
		// The same from another site: a frame of another process, whose
		// requests and load the tab's session no longer hears of once
		// the frame is swapped for it (Page.frameDetached, "swap"): not
		// waited for past that, and not to the cap.
		{"crosssite", "", ""},
	} {
		t.Run(c.button, func(t *testing.T) {
			tb.eval(`out.textContent = '-'`)
			res := tb.ok(tb.r.Click(tb.ctx, "#"+c.button, actions.ClickOptions{}))
			if c.want != "" {
				tb.want("out.textContent", `"`+c.want+`"`)
			}
			found := c.waited == ""
			for _, f := range res.Settled.For {
				found = found || slices.Contains(strings.Split(c.waited, "|"), f)
			}
			if !found || res.Settled.Capped {
				t.Errorf("settled: got %+v, want it to have waited for %s, not capped", res.Settled, c.waited)
			}
		})
	}
	t.Run("nothing happens", func(t *testing.T) {
		res := tb.ok(tb.r.Click(tb.ctx, "#none", actions.ClickOptions{}))
		if len(res.Settled.For) != 1 || res.Settled.For[0] != "dom quiet" || res.Settled.Capped {
			t.Errorf("settled: got %+v, want dom quiet only", res.Settled)
		}
	})
}
