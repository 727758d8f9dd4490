package browserlink

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/link/cdptab"
)

// worldsLink is a link over a pipe whose extension sends, before it
// answers each request, the events queued for it; a Page.createIsolatedWorld
// (alone, or as a command's then) is answered with context 11 in the tab's
// own session and 4 in a child's.
func worldsLink(t *testing.T) (*Link, chan<- []string) {
	t.Helper()
	events := make(chan []string, 16)
	l, _ := pipeLinkWith(t, Options{}, func(req request) []string {
		var frames []string
		select {
		case frames = <-events:
		default:
		}
		result := `{}`
		world := `{"executionContextId":11}`
		if req.SessionID != "" {
			world = `{"executionContextId":4}`
		}
		switch {
		case req.Method == page.CommandCreateIsolatedWorld:
			result = world
		case req.Then != nil && req.Then.Method == page.CommandCreateIsolatedWorld:
			result = `{"result":{},"then":` + world + `}`
		}
		return append(frames, fmt.Sprintf(`{"id":%d,"result":%s}`, req.ID, result))
	})
	return l, events
}

// cdpEvent is a CDP event of tab 3 as the extension sends it.
func cdpEvent(session, method, params string) string {
	return fmt.Sprintf(`{"event":"cdp","tabId":3,"sessionId":%q,"method":%q,"params":%s}`, session, method, params)
}

// The link remembers egohost's own worlds: those the service made through
// a Session (every one it makes), and those Chrome reports under egohost's
// name; it forgets them when Chrome says they are gone, their session
// detaches or their tab closes, not at a debugger's detach (the page's
// worlds outlive it).
// afterEvents returns a function that makes a round trip on l, after its
// extension sent the events given (handled in order, before the reply).
func afterEvents(t *testing.T, ctx context.Context, l *Link, events chan<- []string) func(evs ...string) {
	return func(evs ...string) {
		t.Helper()
		events <- evs
		// On another tab: a tab.removed fails tab 3's calls.
		if err := l.Session(5).Call(ctx, "Runtime.runIfWaitingForDebugger", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOwnWorlds(t *testing.T) {
	l, events := worldsLink(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	call := afterEvents(t, ctx, l, events)
	type ctxAt struct {
		tab     int
		session string
		id      int64
	}
	check := func(when string, want map[ctxAt]bool, uniques map[string]bool) {
		t.Helper()
		for c, w := range want {
			if got := l.OwnContext(c.tab, c.session, c.id); got != w {
				t.Errorf("%s: context %d of tab %d session %q: got own %v, want %v", when, c.id, c.tab, c.session, got, w)
			}
		}
		for u, w := range uniques {
			if got := l.OwnUniqueContext(u); got != w {
				t.Errorf("%s: unique context %s: got own %v, want %v", when, u, got, w)
			}
		}
	}

	no := false
	for _, s := range []cdp.Session{l.Session(3), l.Session(3).Child("C1")} {
		if _, err := cdp.Call(ctx, s, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: "MAIN", WorldName: "egohost", GrantUniveralAccess: &no}); err != nil {
			t.Fatal(err)
		}
	}
	// One made in a sequence, as another command's Then (context 4 of C2).
	made := page.CreateIsolatedWorldParams{FrameID: "F2", WorldName: "egohost"}
	seq := []cdptab.Command{{Method: "Page.enable", Then: &cdptab.Command{Method: page.CommandCreateIsolatedWorld, Params: made}}}
	if err := l.Session(3).Child("C2").(*Session).CallSequence(ctx, seq); err != nil {
		t.Fatal(err)
	}
	call(cdpEvent("", "Runtime.executionContextCreated", `{"context":{"id":30,"origin":"https://a.example","name":"egohost","uniqueId":"u-30","auxData":{"type":"isolated"}}}`),
		cdpEvent("", "Runtime.executionContextCreated", `{"context":{"id":31,"origin":"https://a.example","name":"mine","uniqueId":"u-31"}}`),
		cdpEvent("", "Runtime.executionContextCreated", `{"context":{"id":1,"origin":"https://a.example","name":"","uniqueId":"u-1"}}`))
	check("made", map[ctxAt]bool{
		{3, "", 11}: true, {3, "C1", 4}: true, {3, "C2", 4}: true, {3, "", 4}: false, {3, "C1", 11}: false, {4, "", 11}: false,
		{3, "", 30}: true, {3, "", 31}: false, {3, "", 1}: false,
	}, map[string]bool{"u-30": true, "u-31": false, "u-1": false})

	call(cdpEvent("", "Runtime.executionContextDestroyed", `{"executionContextId":30,"executionContextUniqueId":"u-30"}`))
	check("one destroyed", map[ctxAt]bool{{3, "", 30}: false, {3, "", 11}: true}, map[string]bool{"u-30": false})

	call(`{"event":"detached","tabId":3,"reason":"target_closed"}`)
	check("after a detach", map[ctxAt]bool{{3, "", 11}: true, {3, "C1", 4}: true}, nil)

	call(cdpEvent("", "Runtime.executionContextsCleared", `{}`))
	check("the tab's session cleared", map[ctxAt]bool{{3, "", 11}: false, {3, "C1", 4}: true}, nil)

	call(cdpEvent("", target.DetachedFromTarget.Method, `{"sessionId":"C1","targetId":"F1"}`))
	check("the child detached", map[ctxAt]bool{{3, "C1", 4}: false}, nil)

	call(cdpEvent("", "Runtime.executionContextCreated", `{"context":{"id":40,"origin":"https://a.example","name":"egohost-overlay","uniqueId":"u-40"}}`))
	check("the overlay's", map[ctxAt]bool{{3, "", 40}: true}, map[string]bool{"u-40": true})
	call(`{"event":"tab.removed","tabId":3}`)
	check("the tab closed", map[ctxAt]bool{{3, "", 40}: false}, map[string]bool{"u-40": false})
}

// Past maxOwnWorlds in a tab, the oldest world is forgotten first.
func TestOwnWorldsBound(t *testing.T) {
	var w ownWorlds
	for i := range maxOwnWorlds + 1 {
		w.add(3, "", int64(i+1), fmt.Sprint("u-", i+1))
	}
	if w.has(3, "", 1) || w.hasUnique("u-1") {
		t.Error("the oldest world is still remembered past the bound")
	}
	if !w.has(3, "", 2) || !w.has(3, "", maxOwnWorlds+1) || w.counts[3] != maxOwnWorlds {
		t.Errorf("got %d worlds (2nd %v, newest %v), want %d, the newest kept", w.counts[3], w.has(3, "", 2), w.has(3, "", maxOwnWorlds+1), maxOwnWorlds)
	}
}
