package snapshot_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"

	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// A walk result packed in the page (Options.Pack) reads back as the same
// text, refs and frames, whole or scoped, in ASCII or not, at a fraction of
// the bytes that cross.
func TestPackedWalkReadsTheSame(t *testing.T) {
	var page strings.Builder
	page.WriteString(`<!doctype html><title>pack ✓</title><h1>Ünïcode — 日本語 😀</h1><iframe title=inner src="/inner"></iframe><ul id=list>`)
	for i := range 1500 {
		fmt.Fprintf(&page, `<li><a href="/i/%d">Link %d — é</a> <button>Button %d</button> <span>Span %d 😀</span></li>`, i, i, i, i)
	}
	page.WriteString(`</ul><p id=odd></p><script>document.getElementById('odd').textContent = 'lone \uD800 surrogate'</script>`)
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": page.String(), "/inner": `<button>In frame</button>`}))
	p, ctx := open(t, snapshot.SharedBrowsers.Launch(t), srv+"/")
	doc, err := cdp.Call(ctx, p, dom.GetDocument, dom.GetDocumentParams{})
	if err != nil {
		t.Fatal(err)
	}
	list, err := cdp.Call(ctx, p, dom.QuerySelector, dom.QuerySelectorParams{NodeID: doc.Root.NodeID, Selector: "#list"})
	if err != nil {
		t.Fatal(err)
	}
	node, err := cdp.Call(ctx, p, dom.DescribeNode, dom.DescribeNodeParams{NodeID: list.NodeID})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []struct {
		name string
		opts snapshot.Options
	}{
		{"full", snapshot.Options{}},
		{"interactive", snapshot.Options{Interactive: true}},
		{"scoped to a node", snapshot.Options{ScopeNode: node.Node.BackendNodeID}},
	} {
		t.Run(o.name, func(t *testing.T) {
			take := func(pack int) *snapshot.Snapshot {
				t.Helper()
				opts := o.opts
				opts.Pack = pack
				s, err := snapshot.NewTab(p).Snapshot(ctx, opts) // numbered afresh: the same refs
				if err != nil {
					t.Fatalf("pack %d: %v", pack, err)
				}
				return s
			}
			plain, packed, small := take(0), take(snapshot.PackRelayed), take(1<<30)
			tab := snapshot.NewTab(p)
			tab.PackOver(snapshot.PackRelayed) // a call that names no Pack takes the tab's
			byTab, err := tab.Snapshot(ctx, o.opts)
			if err != nil {
				t.Fatal(err)
			}
			if byTab.Text != plain.Text || byTab.Stats.Bytes*3 > plain.Stats.Bytes {
				t.Errorf("the tab's packing: %d bytes crossed of %d, want under a third, and the same text", byTab.Stats.Bytes, plain.Stats.Bytes)
			}
			if packed.Text != plain.Text || small.Text != plain.Text {
				t.Errorf("packed text differs:\n%.300s\nwant:\n%.300s", packed.Text, plain.Text)
			}
			if len(packed.Entries) != len(plain.Entries) || packed.Stats.Frames != plain.Stats.Frames {
				t.Errorf("packed: %d refs, %d frames; want %d, %d", len(packed.Entries), packed.Stats.Frames, len(plain.Entries), plain.Stats.Frames)
			}
			// (the header's milliseconds may take a digit more or less)
			if d := small.Stats.Bytes - plain.Stats.Bytes; packed.Stats.Bytes*3 > plain.Stats.Bytes || d < -8 || d > 8 {
				t.Errorf("bytes that crossed: packed %d, below the threshold %d, plain %d; want packed under a third of plain, the other as plain", packed.Stats.Bytes, small.Stats.Bytes, plain.Stats.Bytes)
			}
		})
	}
	s := snap(t, ctx, snapshot.NewTab(p), snapshot.Options{Pack: snapshot.PackRelayed})
	for _, want := range []string{`heading "Ünïcode — 日本語 😀"`, `button "In frame"`, "lone \uFFFD surrogate", `link "Link 1499 — é"`} {
		if !strings.Contains(s.Text, want) {
			t.Errorf("the packed snapshot lacks %q", want)
		}
	}
}
