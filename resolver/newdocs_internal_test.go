package resolver

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/egohost/egohost/internal/link/cdptab"
)

func created(params string) cdptab.Event {
	return cdptab.Event{Method: "Runtime.executionContextCreated", Params: jsonv2.Value(params)}
}

// Only egohost's isolated worlds are taken from Chrome's events: not the
// page's own world, not another isolated world, not one of an extension's
// origin (its content scripts' world is named after the extension, which
// may be "egohost"), not one without a frame or a unique ID; a world that
// ends (by its unique ID, or all at once) is forgotten.
func TestNewDocumentsTakeOnlyEgohostsWorlds(t *testing.T) {
	nd := &newDocs{byFrame: make(map[cdp.FrameID]newDocWorld), changed: make(chan struct{})}
	for name, ev := range map[string]string{
		"the page's world":   `{"context":{"id":1,"uniqueId":"u1","origin":"http://a.test","name":"","auxData":{"frameId":"F1","type":"default","isDefault":true}}}`,
		"another world":      `{"context":{"id":2,"uniqueId":"u2","origin":"http://a.test","name":"other","auxData":{"frameId":"F1","type":"isolated"}}}`,
		"a default egohost":  `{"context":{"id":3,"uniqueId":"u3","origin":"http://a.test","name":"egohost","auxData":{"frameId":"F1","type":"default"}}}`,
		"no frame":           `{"context":{"id":4,"uniqueId":"u4","origin":"http://a.test","name":"egohost","auxData":{"type":"isolated"}}}`,
		"no unique ID":       `{"context":{"id":5,"origin":"http://a.test","name":"egohost","auxData":{"frameId":"F1","type":"isolated"}}}`,
		"not JSON":           `{"context":`,
		"an extension's":     `{"context":{"id":9,"uniqueId":"u9","origin":"chrome-extension://abcdefghijklmnopabcdefghijklmnop","name":"egohost","auxData":{"frameId":"F1","type":"isolated"}}}`,
		"a worker's context": `{"context":{"id":6,"uniqueId":"u6","origin":"http://a.test","name":"egohost","auxData":{"frameId":"F1","type":"worker"}}}`,
	} {
		nd.add(created(ev))
		if len(nd.byFrame) != 0 {
			t.Fatalf("%s: got %v, want nothing taken", name, nd.byFrame)
		}
	}
	nd.add(created(`{"context":{"id":7,"uniqueId":"u7","origin":"http://a.test","name":"egohost","auxData":{"frameId":"F1","type":"isolated"}}}`))
	nd.add(created(`{"context":{"id":8,"uniqueId":"u8","origin":"http://b.test","name":"egohost","auxData":{"frameId":"F2","type":"isolated"}}}`))
	want := map[cdp.FrameID]newDocWorld{"F1": {id: 7, unique: "u7", origin: "http://a.test"}, "F2": {id: 8, unique: "u8", origin: "http://b.test"}}
	for f, w := range nd.byFrame {
		if w.seen.IsZero() {
			t.Errorf("%s: no time of the event", f)
		}
		w.seen = time.Time{}
		nd.byFrame[f] = w
	}
	if len(nd.byFrame) != 2 || nd.byFrame["F1"] != want["F1"] || nd.byFrame["F2"] != want["F2"] {
		t.Fatalf("got %v, want %v", nd.byFrame, want)
	}
	// A world of another process with the same context ID is not F1's.
	nd.add(cdptab.Event{Method: "Runtime.executionContextDestroyed", Params: jsonv2.Value(`{"executionContextId":7,"executionContextUniqueId":"other"}`)})
	if _, ok := nd.byFrame["F1"]; !ok {
		t.Fatal("a destroyed context of the same ID, another unique ID: F1's world was forgotten")
	}
	nd.add(cdptab.Event{Method: "Runtime.executionContextDestroyed", Params: jsonv2.Value(`{"executionContextId":7,"executionContextUniqueId":"u7"}`)})
	if _, ok := nd.byFrame["F1"]; ok {
		t.Fatal("F1's world destroyed: still known")
	}
	nd.add(cdptab.Event{Method: "Runtime.executionContextsCleared", Params: jsonv2.Value(`{}`)})
	if len(nd.byFrame) != 0 {
		t.Fatalf("after executionContextsCleared: got %v, want none", nd.byFrame)
	}
}

// world answers at once what is known; with a deadline it waits for the
// next world of the frame (not one already tried), and gives up at the
// deadline or with its context.
func TestNewDocumentsWorldWaits(t *testing.T) {
	nd := &newDocs{byFrame: make(map[cdp.FrameID]newDocWorld), changed: make(chan struct{})}
	ctx := context.Background()
	if _, ok := nd.world(ctx, "F1", time.Now(), nil); ok {
		t.Fatal("no world known, no wait: got one")
	}
	if _, ok := nd.world(ctx, "F1", time.Now().Add(30*time.Millisecond), nil); ok {
		t.Fatal("no world came before the deadline: got one")
	}
	nd.add(created(`{"context":{"id":1,"uniqueId":"old","origin":"http://a.test","name":"egohost","auxData":{"frameId":"F1","type":"isolated"}}}`))
	go func() {
		time.Sleep(20 * time.Millisecond)
		nd.add(created(`{"context":{"id":2,"uniqueId":"new","origin":"http://a.test","name":"egohost","auxData":{"frameId":"F1","type":"isolated"}}}`))
	}()
	w, ok := nd.world(ctx, "F1", time.Now().Add(10*time.Second), []string{"old"})
	if !ok || w.unique != "new" {
		t.Fatalf("waiting past a tried world: got %+v, %v; want the new one", w, ok)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, ok := nd.world(cctx, "F1", time.Now().Add(10*time.Second), []string{"new"}); ok {
		t.Fatal("a cancelled wait: got a world")
	}
}

// A preparation that waited for a world that did not come (Chrome made
// none: an agent with raw CDP removed the script, say) makes the next ones
// not wait, until Chrome tells of a world again.
func TestNewDocumentsMissedWorldStopsTheWaits(t *testing.T) {
	r := New(nil, nil)
	nd := &newDocs{byFrame: make(map[cdp.FrameID]newDocWorld), changed: make(chan struct{})}
	r.c.newDocs = nd
	ctx := context.WithValue(context.Background(), preparingKey{}, true)
	if _, _, ok := r.newDocWorldRef(ctx, ctx, &doc{frameID: "F1"}, "", ""); ok {
		t.Fatal("no world: got one")
	}
	if !nd.missed {
		t.Fatal("a preparation's wait for a world ran out: not remembered")
	}
	nd.add(created(`{"context":{"id":1,"uniqueId":"u1","origin":"http://a.test","name":"egohost","auxData":{"frameId":"F2","type":"isolated"}}}`))
	if nd.missed {
		t.Fatal("a world came: the next preparations still would not wait")
	}
	// A wait cut short by its own context is not a miss.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, ok := r.newDocWorldRef(cctx, cctx, &doc{frameID: "F1"}, "", ""); ok || nd.missed {
		t.Fatalf("a cancelled preparation: got a world %v, missed %v; want neither", ok, nd.missed)
	}
}
