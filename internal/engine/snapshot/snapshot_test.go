package snapshot_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/refmap"
)

// open opens url in a new tab of b and returns its page.
func open(t *testing.T, b *browsertest.Browser, url string) (*cdptab.Page, context.Context) {
	t.Helper()
	return b.OpenTab(t, url)
}

// snap takes a snapshot of tab with opts; an error ends the test.
func snap(t *testing.T, ctx context.Context, tab *snapshot.Tab, opts snapshot.Options) *snapshot.Snapshot {
	t.Helper()
	s, err := tab.Snapshot(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func entry(t *testing.T, s *snapshot.Snapshot, role, name string) refmap.Entry {
	t.Helper()
	for _, e := range s.Entries {
		if e.Role == role && e.Name == name {
			return e
		}
	}
	t.Fatalf("no %s %q in snapshot:\n%s", role, name, s.Text)
	return refmap.Entry{}
}

const form = `<!doctype html><title>form</title><h1>Sign in</h1>
<label>User <input name=u></label><button id=go>Go</button>
<div id=more></div>`

func TestRebuildOnEverySnapshot(t *testing.T) {
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": form}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/")
	tab := snapshot.NewTab(p)
	s1 := snap(t, ctx, tab, snapshot.Options{})
	gen := tab.Refs().Generation()
	goRef := entry(t, s1, "button", "Go").Ref
	if _, err := cdp.Call(ctx, p, runtimeEvaluate, evalParams(`document.getElementById('go').remove();
		document.getElementById('more').innerHTML = '<button>New</button>'`)); err != nil {
		t.Fatal(err)
	}
	s2 := snap(t, ctx, tab, snapshot.Options{})
	if tab.Refs().Generation() == gen {
		t.Errorf("the map was not rebuilt")
	}
	if got, want := tab.Refs().Size(), len(s2.Entries); got != want {
		t.Errorf("map size: got %d, want %d (the new snapshot's refs)", got, want)
	}
	newRef := entry(t, s2, "button", "New").Ref
	if newRef == goRef {
		t.Errorf("the new button reuses the removed button's ref @%s", goRef)
	}
	if entry(t, s2, "textbox", "User").Ref != entry(t, s1, "textbox", "User").Ref {
		t.Errorf("the same textbox got a new ref")
	}
	if _, err := tab.Lookup(ctx, "@"+goRef); !errors.Is(err, snapshot.ErrStaleRef) {
		t.Errorf("lookup of the removed button's ref: got %v, want ErrStaleRef", err)
	}
	if _, err := tab.Lookup(ctx, "@"+newRef); err != nil {
		t.Errorf("lookup @%s: %v", newRef, err)
	}
}

func TestLazySnapshotTwentyCallers(t *testing.T) {
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": form}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/")
	// Count the snapshots by counting the frame tree fetches that start one.
	c := &countingTarget{Page: p}
	tab := snapshot.NewTab(c)
	var wg sync.WaitGroup
	errs := make([]error, 20)
	entries := make([]refmap.Entry, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			entries[i], errs[i] = tab.Lookup(ctx, "@2")
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
		if entries[i].BackendNodeID == 0 || entries[i].Role != "button" {
			t.Errorf("caller %d: got %+v, want the Go button", i, entries[i])
		}
	}
	if got := c.frameTrees.Load(); got != 1 {
		t.Errorf("snapshots taken: got %d, want 1", got)
	}
	// A populated map, or an input that is not a ref: no snapshot.
	if _, err := tab.Lookup(ctx, "@1"); err != nil {
		t.Error(err)
	}
	if _, err := tab.Lookup(ctx, "button"); !errors.Is(err, snapshot.ErrNotRef) {
		t.Errorf("lookup of a non-ref: got %v, want ErrNotRef", err)
	}
	if got := c.frameTrees.Load(); got != 1 {
		t.Errorf("snapshots after: got %d, want 1", got)
	}
}

// countingTarget counts Page.getFrameTree calls (one per snapshot),
// Page.createIsolatedWorld calls and Runtime.evaluate calls.
type countingTarget struct {
	*cdptab.Page
	frameTrees, worlds, evals atomic.Int64
}

func (c *countingTarget) Call(ctx context.Context, method string, params, result any) error {
	switch method {
	case page.CommandGetFrameTree:
		c.frameTrees.Add(1)
	case page.CommandCreateIsolatedWorld:
		c.worlds.Add(1)
	case runtime.CommandEvaluate:
		c.evals.Add(1)
	}
	return c.Page.Call(ctx, method, params, result)
}

func TestStaleAfterNavigation(t *testing.T) {
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": form, "/next": form}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/")
	tab := snapshot.NewTab(p)
	s := snap(t, ctx, tab, snapshot.Options{})
	ref := entry(t, s, "button", "Go").Ref
	if _, err := tab.Lookup(ctx, "@"+ref); err != nil {
		t.Fatal(err)
	}
	if _, err := cdp.Call(ctx, p, page.Navigate, page.NavigateParams{URL: srv + "/next"}); err != nil {
		t.Fatal(err)
	}
	if err := browsertest.WaitLoaded(ctx, p); err != nil {
		t.Fatal(err)
	}
	// The same page at another URL has a Go button too: the ref must not
	// resolve to it.
	_, err := tab.Lookup(ctx, "@"+ref)
	if !errors.Is(err, snapshot.ErrStaleRef) {
		t.Fatalf("lookup after navigation: got %v, want ErrStaleRef", err)
	}
	if want := fmt.Sprintf("stale ref @%s: the page navigated; take a new snapshot", ref); err.Error() != want {
		t.Errorf("error: got %q, want %q", err, want)
	}
	s2 := snap(t, ctx, tab, snapshot.Options{})
	if r := entry(t, s2, "button", "Go").Ref; r == ref {
		t.Errorf("the new document's button reuses ref @%s", ref)
	}
	if _, err := tab.Lookup(ctx, "@"+ref); !errors.Is(err, snapshot.ErrStaleRef) {
		t.Errorf("old ref after a new snapshot: got %v, want ErrStaleRef", err)
	}
	_, err = tab.Lookup(ctx, "@9999")
	if !errors.Is(err, snapshot.ErrUnknownRef) || !strings.Contains(err.Error(), "@9999") || !strings.Contains(err.Error(), fmt.Sprintf("%d refs", len(s2.Entries))) {
		t.Errorf("unknown ref: got %v, want ErrUnknownRef naming @9999 and %d refs", err, len(s2.Entries))
	}
}

func TestFramesAndShadowRoots(t *testing.T) {
	other := browsertest.Serve(t, browsertest.Pages(map[string]string{"/x": `<button>Cross</button>`}))
	oop := strings.Replace(other, "127.0.0.1", "localhost", 1)
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/": `<!doctype html><button>Top</button>
<iframe src="/same" title="Same"></iframe>
<iframe src="` + other + `/x" title="Cross port"></iframe>
<iframe src="` + oop + `/x" title="Other site"></iframe>
<div id=host></div><script>
const r = document.getElementById('host').attachShadow({mode: 'open'});
r.innerHTML = '<button>Shadow</button>';
</script>`,
		"/same": `<button>Same</button>`,
	}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/")
	for ctx.Err() == nil && len(p.Children()) == 0 { // the out-of-process frame attaches
		time.Sleep(20 * time.Millisecond)
	}
	tab := snapshot.NewTab(p)
	var s *snapshot.Snapshot
	for ctx.Err() == nil { // wait until every frame has loaded
		var err error
		if s, err = tab.Snapshot(ctx, snapshot.Options{}); err != nil {
			t.Fatal(err)
		}
		if len(s.Entries) == 5 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("snapshot:\n%s", s.Text)
	want := map[string]int{"Top": 1, "Same": 1, "Cross": 2, "Shadow": 1}
	seen := map[string]bool{}
	sessions := map[string]bool{}
	for _, e := range s.Entries {
		want[e.Name]--
		if seen[e.Ref] {
			t.Errorf("ref @%s twice", e.Ref)
		}
		seen[e.Ref] = true
		r, err := tab.Lookup(ctx, "@"+e.Ref)
		if err != nil {
			t.Errorf("lookup @%s (%s): %v", e.Ref, e.Name, err)
			continue
		}
		if r.BackendNodeID == 0 || r.FrameID == "" || r.LoaderID == "" {
			t.Errorf("@%s: incomplete entry %+v", e.Ref, r)
		}
		sessions[string(e.SessionID)] = true
	}
	for name, n := range want {
		if n != 0 {
			t.Errorf("button %q: %d missing", name, n)
		}
	}
	if len(sessions) != 2 {
		t.Errorf("sessions of the refs: got %d, want 2 (main and the out-of-process frame)", len(sessions))
	}
	for _, frag := range []string{`iframe "Same"`, `iframe "Cross port"`, `iframe "Other site"`} {
		if !strings.Contains(s.Text, frag) {
			t.Errorf("text lacks %s", frag)
		}
	}
}

// A snapshot with a Reach shows a refused frame as its iframe's line,
// marked withheld, with nothing of it and no refs inside; a refused main
// frame is a WithheldError.
func TestReachWithholdsFrames(t *testing.T) {
	other := browsertest.Serve(t, browsertest.Pages(map[string]string{"/x": `<button>Cross</button><p>secret text</p>`}))
	oop := strings.Replace(other, "127.0.0.1", "localhost", 1)
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/": `<!doctype html><button>Top</button>
<iframe src="` + other + `/x" title="Cross port"></iframe>
<iframe src="` + oop + `/x" title="Other site"></iframe>`,
	}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/")
	tab := snapshot.NewTab(p)
	for ctx.Err() == nil { // wait until every frame has loaded
		s := snap(t, ctx, tab, snapshot.Options{})
		if len(s.Entries) == 3 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	noLocalhost := func(url, origin string) (bool, string) {
		if strings.Contains(url, "//localhost") || strings.Contains(origin, "//localhost") {
			return false, "deny localhost"
		}
		return true, ""
	}
	for _, interactive := range []bool{false, true} {
		s := snap(t, ctx, tab, snapshot.Options{Reach: noLocalhost, Interactive: interactive})
		t.Logf("snapshot:\n%s", s.Text)
		if want := `iframe "Other site" [content withheld: ` + oop + `, deny localhost]`; !strings.Contains(s.Text, want) {
			t.Errorf("interactive %v: text lacks %q", interactive, want)
		}
		if strings.Count(s.Text, `button "Cross"`) != 1 || strings.Count(s.Text, "secret text") > 1 {
			t.Errorf("interactive %v: the withheld frame's content is in the text", interactive)
		}
		for _, e := range s.Entries {
			if e.Name == "Cross" && e.SessionID != "" {
				if r, err := tab.Lookup(ctx, "@"+e.Ref); err == nil && strings.Contains(r.Name, "localhost") {
					t.Errorf("a ref into the withheld frame: %+v", r)
				}
			}
		}
		if len(s.Entries) != 2 || s.Stats.Withheld != 1 {
			t.Errorf("interactive %v: got %d refs and %d withheld frames, want 2 and 1", interactive, len(s.Entries), s.Stats.Withheld)
		}
	}
	// The same for a frame in the page's own process (another port of
	// the same host: the same site).
	noOtherPort := func(url, origin string) (bool, string) {
		if strings.HasPrefix(url, other) || origin == other {
			return false, "deny the other port"
		}
		return true, ""
	}
	s := snap(t, ctx, tab, snapshot.Options{Reach: noOtherPort})
	if want := `iframe "Cross port" [content withheld: ` + other + `, deny the other port]`; !strings.Contains(s.Text, want) || strings.Count(s.Text, "secret text") != 1 {
		t.Errorf("in-process frame: text lacks %q or shows its content:\n%s", want, s.Text)
	}
	if strings.Count(s.Text, `button "Cross"`) != 1 {
		t.Errorf("in-process frame: want only the other site's Cross button:\n%s", s.Text)
	}
	_, err := tab.Snapshot(ctx, snapshot.Options{Reach: func(string, string) (bool, string) { return false, "deny *" }})
	var we *cdptab.WithheldError
	if !errors.As(err, &we) || we.Frame {
		t.Errorf("main frame refused: got %v, want a *cdptab.WithheldError of the main frame", err)
	}
}

func TestHiddenElementsGetNoRef(t *testing.T) {
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": `<!doctype html>
<button>Shown</button><button style="display:none">DisplayNone</button>
<div hidden><button>HiddenAttr</button></div><div aria-hidden="true"><a href="/">AriaHidden</a></div>
<button style="visibility:hidden">Invisible</button><div inert><button>Inert</button></div>
<template><button>Template</button></template>`}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/")
	s := snap(t, ctx, snapshot.NewTab(p), snapshot.Options{})
	if len(s.Entries) != 1 || s.Entries[0].Name != "Shown" {
		t.Errorf("entries: got %+v, want only the shown button", s.Entries)
	}
	for _, hidden := range []string{"DisplayNone", "HiddenAttr", "AriaHidden", "Invisible", "Inert", "Template"} {
		if strings.Contains(s.Text, hidden) {
			t.Errorf("text shows %s:\n%s", hidden, s.Text)
		}
	}
}

func TestLargePageCompletes(t *testing.T) {
	var page strings.Builder
	page.WriteString("<!doctype html><ul>")
	for i := range 5000 { // 15,000 elements in the items, plus the list items
		fmt.Fprintf(&page, `<li><a href="/i/%d">L%d</a><button>B%d</button><span>S%d</span></li>`, i, i, i, i)
	}
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": page.String()}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/")
	s := snap(t, ctx, snapshot.NewTab(p), snapshot.Options{MaxChars: 20000})
	if s.Stats.Elements < 15000 || len(s.Entries) != 10000 {
		t.Errorf("got %d elements, %d refs; want ≥ 15000 and 10000", s.Stats.Elements, len(s.Entries))
	}
	if !s.Truncated.Cut || !strings.Contains(s.Text, "[cut: ") || len(s.Text) > 20000 {
		t.Errorf("cut: got %+v, %d chars", s.Truncated, len(s.Text))
	}
}

func TestTabsAreIsolated(t *testing.T) {
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/a": `<button>A1</button><button>A2</button><button>A3</button>`,
		"/b": `<p>no buttons</p>`,
	}))
	b := snapshot.SharedBrowsers.Launch(t)
	pa, ctx := open(t, b, srv+"/a")
	pb, _ := open(t, b, srv+"/b")
	ta, tb := snapshot.NewTab(pa), snapshot.NewTab(pb)
	s := snap(t, ctx, ta, snapshot.Options{})
	ref := entry(t, s, "button", "A3").Ref
	if _, err := ta.Lookup(ctx, "@"+ref); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Lookup(ctx, "@"+ref); !errors.Is(err, snapshot.ErrUnknownRef) {
		t.Errorf("tab A's ref on tab B: got %v, want ErrUnknownRef", err)
	}
}

func TestOptions(t *testing.T) {
	var items strings.Builder
	for i := range 60 {
		fmt.Fprintf(&items, `<li><button>Item %d</button></li>`, i)
	}
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": `<!doctype html>
<nav><a href="/home">Home</a></nav><ul id=list>` + items.String() + `</ul><p>Footer text</p>`}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/")
	tab := snapshot.NewTab(p)

	full := snap(t, ctx, tab, snapshot.Options{})
	i := snap(t, ctx, tab, snapshot.Options{Interactive: true})
	if strings.Contains(i.Text, "Footer text") || !strings.Contains(i.Text, `button "Item 59"`) || len(i.Text) >= len(full.Text) {
		t.Errorf("interactive:\n%s", i.Text)
	}

	v := snap(t, ctx, tab, snapshot.Options{Viewport: true})
	if !strings.Contains(v.Text, `button "Item 0"`) || strings.Contains(v.Text, `button "Item 59"`) {
		t.Errorf("viewport: want the first items only:\n%s", v.Text)
	}

	node := browsertest.QuerySelector(ctx, t, p, "nav")
	d, err := cdp.Call(ctx, p, dom.DescribeNode, dom.DescribeNodeParams{NodeID: node})
	if err != nil {
		t.Fatal(err)
	}
	sc := snap(t, ctx, tab, snapshot.Options{ScopeNode: d.Node.BackendNodeID, URLs: true})
	if want := "navigation\n link \"Home\" [url=/home] @1\n"; sc.Text != want {
		t.Errorf("scope node: got %q, want %q", sc.Text, want)
	}
	sr := snap(t, ctx, tab, snapshot.Options{Scope: "@1"})
	if want := "link \"Home\" @1\n"; sr.Text != want { // no URLs unless asked
		t.Errorf("scope ref: got %q, want %q", sr.Text, want)
	}

	base := snap(t, ctx, tab, snapshot.Options{})
	// An interactive snapshot in between: the full diff below must still
	// compare with the full snapshot, not report the plain text as removed.
	if _, err := tab.Snapshot(ctx, snapshot.Options{Interactive: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := cdp.Call(ctx, p, runtimeEvaluate, evalParams(`document.querySelector('#list li:nth-child(30) button').textContent = 'Changed'`)); err != nil {
		t.Fatal(err)
	}
	diff := snap(t, ctx, tab, snapshot.Options{DiffPrevious: true})
	if !strings.Contains(diff.Text, "1 added, 1 removed") || !strings.Contains(diff.Text, `+ - button "Changed"`) || !strings.Contains(diff.Text, `- - button "Item 29"`) || !strings.Contains(diff.Text, "unchanged lines") || len(diff.Text) > len(base.Text)/4 {
		t.Errorf("diff:\n%s", diff.Text)
	}
	idiff := snap(t, ctx, tab, snapshot.Options{Interactive: true, DiffPrevious: true})
	if !strings.Contains(idiff.Text, "1 added, 1 removed") {
		t.Errorf("interactive diff against the earlier interactive snapshot:\n%s", idiff.Text)
	}
	// No earlier interactive viewport snapshot: say so, then the whole
	// snapshot.
	vdiff := snap(t, ctx, tab, snapshot.Options{Interactive: true, Viewport: true, DiffPrevious: true})
	if want := "[diff: no earlier interactive (-i), viewport snapshot of this tab to compare with (a diff compares like with like); the whole snapshot follows]\n"; !strings.HasPrefix(vdiff.Text, want) || !strings.Contains(vdiff.Text, "@") {
		t.Errorf("viewport diff with nothing to compare: got\n%s\nwant it to start with %q", vdiff.Text, want)
	}
}

// A document's world is made by its first snapshot only: later snapshots
// of it walk in the same world (one round trip less each); a new document
// gets a world of its own.
func TestSnapshotsOfOneDocumentShareItsWorld(t *testing.T) {
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": form, "/next": form}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/")
	c := &countingTarget{Page: p}
	tab := snapshot.NewTab(c)
	for i := range 3 {
		if _, err := tab.Snapshot(ctx, snapshot.Options{Interactive: i == 1}); err != nil {
			t.Fatal(err)
		}
	}
	if got := c.worlds.Load(); got != 1 {
		t.Errorf("worlds made by three snapshots of one document: got %d, want 1", got)
	}
	if _, err := cdp.Call(ctx, p, page.Navigate, page.NavigateParams{URL: srv + "/next"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := tab.Snapshot(ctx, snapshot.Options{})
		if err == nil && strings.Contains(s.URL, "/next") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no snapshot of /next: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := c.worlds.Load(); got < 2 {
		t.Errorf("worlds made after a navigation: got %d in all, want a new one", got)
	}
}

// A snapshot with Parsed of a document still being parsed fails with
// ErrLoading (the check rides on the walk); without it, it shows what has
// arrived; once the document is parsed, Parsed changes nothing.
func TestSnapshotParsedOfALoadingDocument(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	done := func() { once.Do(func() { close(release) }) }
	t.Cleanup(done)
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>slow</title><button>Early</button>`+strings.Repeat(" ", 4096))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
		fmt.Fprint(w, `<button>Late</button>`)
	})
	mux.Handle("/", browsertest.Pages(map[string]string{"/": form}))
	srv := browsertest.Serve(t, mux)
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/")
	tab := snapshot.NewTab(p)
	if _, err := cdp.Call(ctx, p, page.Navigate, page.NavigateParams{URL: srv + "/slow"}); err != nil {
		t.Fatal(err)
	}
	var early *snapshot.Snapshot
	for deadline := time.Now().Add(10 * time.Second); ; {
		s, err := tab.Snapshot(ctx, snapshot.Options{})
		if err == nil && strings.Contains(s.Text, "Early") {
			early = s
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no snapshot of the document's first part: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if strings.Contains(early.Text, "Late") {
		t.Fatalf("the document's tail arrived before it was released:\n%s", early.Text)
	}
	if _, err := tab.Snapshot(ctx, snapshot.Options{Parsed: true}); !errors.Is(err, snapshot.ErrLoading) {
		t.Errorf("Parsed, while the document is parsed: got %v, want ErrLoading", err)
	}
	scope := "@" + entry(t, early, "button", "Early").Ref
	if _, err := tab.Snapshot(ctx, snapshot.Options{Parsed: true, Scope: scope}); !errors.Is(err, snapshot.ErrLoading) {
		t.Errorf("Parsed, scoped to %s, while the document is parsed: got %v, want ErrLoading", scope, err)
	}
	d, err := cdp.Call(ctx, p, dom.DescribeNode, dom.DescribeNodeParams{NodeID: browsertest.QuerySelector(ctx, t, p, "button")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tab.Snapshot(ctx, snapshot.Options{Parsed: true, ScopeNode: d.Node.BackendNodeID}); !errors.Is(err, snapshot.ErrLoading) {
		t.Errorf("Parsed, scoped to a node, while the document is parsed: got %v, want ErrLoading", err)
	}
	done()
	for deadline := time.Now().Add(10 * time.Second); ; {
		s, err := tab.Snapshot(ctx, snapshot.Options{Parsed: true})
		if err == nil && strings.Contains(s.Text, "Late") {
			break
		}
		if time.Now().After(deadline) || err != nil && !errors.Is(err, snapshot.ErrLoading) {
			t.Fatalf("Parsed, once the document is parsed: got %v, want the whole page", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSnapshotOfLoneSurrogates: a page's text may hold a lone UTF-16
// surrogate, which Chrome writes on a DevTools connection as a lone escape
// that strict JSON decoders refuse: the snapshot failed as a whole
// (cdpdirect.WellFormed). It shows U+FFFD in its place.
func TestSnapshotOfLoneSurrogates(t *testing.T) {
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": `<button id=b>x</button><p id=p>y</p><script>document.getElementById('b').textContent = 'A\uD800B'; document.getElementById('p').textContent = 'C\uDC00D \uD83D\uDE00'</script>`}))
	p, ctx := open(t, snapshot.SharedBrowsers.Launch(t), srv+"/")
	s := snap(t, ctx, snapshot.NewTab(p), snapshot.Options{})
	if want := "button \"A\uFFFDB\" @1\nC\uFFFDD 😀\n"; s.Text != want {
		t.Errorf("got %q, want %q", s.Text, want)
	}
}

// A file input shows its chosen files by name, and nothing before any is
// chosen (Chrome's own words for that are localised).
func TestFileInputShowsItsFiles(t *testing.T) {
	srv := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": `<!doctype html><input type=file aria-label=CV multiple>`}))
	b := snapshot.SharedBrowsers.Launch(t)
	p, ctx := open(t, b, srv+"/")
	st := snapshot.NewTab(p)
	s := snap(t, ctx, st, snapshot.Options{Interactive: true})
	if want := "button \"CV\" @1\n"; s.Text != want {
		t.Errorf("before: got %q, want %q", s.Text, want)
	}
	dir := t.TempDir()
	var files []string
	for _, n := range []string{"notes.sql", "cv.pdf"} {
		f := filepath.Join(dir, n)
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	in, err := cdp.Call(ctx, p, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.querySelector('input')", ReturnByValue: new(bool)})
	if err != nil || in.Result.ObjectID == "" {
		t.Fatalf("the input: %v", err)
	}
	if _, err := cdp.Call(ctx, p, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: files, ObjectID: in.Result.ObjectID}); err != nil {
		t.Fatal(err)
	}
	if s, err = st.Snapshot(ctx, snapshot.Options{Interactive: true}); err != nil {
		t.Fatal(err)
	}
	if want := "button \"CV\" @1: notes.sql, cv.pdf\n"; s.Text != want {
		t.Errorf("after: got %q, want %q", s.Text, want)
	}
}
