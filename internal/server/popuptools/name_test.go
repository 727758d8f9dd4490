package popuptools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/engine/overlay"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

// describe makes the page describe every node as a button with attrs.
func describe(tab *fakeTab, attrs ...string) {
	tab.page.Reply("DOM.describeNode", map[string]any{"node": map[string]any{
		"nodeId": 0, "backendNodeId": 7, "nodeType": 1, "nodeName": "BUTTON", "localName": "button", "nodeValue": "", "attributes": attrs,
	}})
}

func TestName(t *testing.T) {
	const id cdp.BackendNodeID = 7
	picked := overlay.Picked{BackendNodeID: id, CSS: "#save", Text: "Save"}
	it := resolver.Match{BackendNodeID: id, Role: "button", Name: "Save", Box: &resolver.Box{X: 60, Y: 20, Width: 100, Height: 20}}
	other := resolver.Match{BackendNodeID: 3, Role: "button", Name: "Save all"}
	for _, tt := range []struct {
		name       string
		picked     overlay.Picked
		matches    map[string][]resolver.Match
		prev, next *snapshot.Snapshot
		url        string // the tab's ("": not known)

		locator    string
		candidates []string // locator count unique
		role, ref  string
		taken      int // full snapshots taken
	}{
		{
			name:   "the first candidate that matches it alone",
			picked: picked,
			matches: map[string][]resolver.Match{
				"css=#save": {it}, `role=button[name="Save"]`: {other, it}, `role=button[name="Save"s]`: {it}, `text="Save"`: {it}, "role=button": {other, it},
			},
			prev: snap(map[string]cdp.BackendNodeID{"4": id, "9": 3}), url: "https://example.test/form",
			locator: `role=button[name="Save"s]`, role: "button", ref: "@4",
			// title= and testid= do not resolve here: not offered.
			candidates: []string{`role=button[name="Save"] 2 false`, `role=button[name="Save"s] 1 true`, `text="Save" 1 true`, "css=#save 1 true", "role=button 2 false"},
		},
		{
			name:   "none alone: the first that matches it, with nth=",
			picked: overlay.Picked{BackendNodeID: id, Text: "Save"},
			matches: map[string][]resolver.Match{
				`text="Save"`: {other, it},
			},
			prev: snap(map[string]cdp.BackendNodeID{"4": id}),
			// Without a CSS path there is no role: text comes first.
			locator: `text="Save" >> nth=1`, ref: "@4",
			candidates: []string{`text="Save" 2 false`},
		},
		{
			name:    "a candidate that matches others only is no fallback",
			picked:  overlay.Picked{BackendNodeID: id, Text: "Save"},
			matches: map[string][]resolver.Match{`text="Save"`: {other}},
			prev:    snap(map[string]cdp.BackendNodeID{"4": id}),
			ref:     "@4", candidates: []string{`text="Save" 1 false`},
		},
		{
			name:    "no ref in the latest snapshot: a full one is taken",
			picked:  picked,
			matches: map[string][]resolver.Match{"css=#save": {it}},
			prev:    snap(map[string]cdp.BackendNodeID{"9": 3}), next: snap(map[string]cdp.BackendNodeID{"9": 3, "12": id}),
			locator: "css=#save", role: "button", ref: "@12", taken: 1,
			candidates: []string{"css=#save 1 true"},
		},
		{
			name:    "no snapshot yet: a full one is taken",
			picked:  picked,
			matches: map[string][]resolver.Match{"css=#save": {it}},
			next:    snap(map[string]cdp.BackendNodeID{"1": id}),
			locator: "css=#save", role: "button", ref: "@1", taken: 1,
			candidates: []string{"css=#save 1 true"},
		},
		{
			name:    "an element whose ref is gone gets none",
			picked:  picked,
			matches: map[string][]resolver.Match{"css=#save": {it}},
			prev:    snap(map[string]cdp.BackendNodeID{"4": 0}),
			locator: "css=#save", role: "button", taken: 1,
			candidates: []string{"css=#save 1 true"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, s := newMethods()
			s.url = tt.url
			tab := newTab(tt.matches)
			describe(tab, "id", "save", "title", "Save the form", "data-testid", "save")
			tab.snaps.prev, tab.snaps.next = tt.prev, tt.next
			var res protocol.PopupPickResult
			if err := m.Name(context.Background(), tab, tt.picked, &res); err != nil {
				t.Fatal(err)
			}
			var cands []string
			for _, c := range res.Candidates {
				cands = append(cands, fmt.Sprintf("%s %d %v", c.Locator, c.Count, c.Unique))
			}
			if diff := cmp.Diff(tt.candidates, cands); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
			if res.Locator != tt.locator || res.Role != tt.role || res.Ref != tt.ref || res.URL != tt.url {
				t.Errorf("got locator %q, role %q, ref %q, url %q; want %q, %q, %q, %q", res.Locator, res.Role, res.Ref, res.URL, tt.locator, tt.role, tt.ref, tt.url)
			}
			if tab.snaps.taken != tt.taken {
				t.Errorf("got %d full snapshots taken, want %d", tab.snaps.taken, tt.taken)
			}
			if tt.role != "" && (res.Name != "Save" || res.Box == nil || *res.Box != (protocol.Box{X: 60, Y: 20, Width: 100, Height: 20})) {
				t.Errorf("got name %q, box %+v; want the CSS path's match's", res.Name, res.Box)
			}
		})
	}
}

// The title and test id the page describes are candidates too, after
// the text.
func TestNameOffersAttributes(t *testing.T) {
	m, _ := newMethods()
	tab := newTab(map[string][]resolver.Match{`title="Save the form"`: {{BackendNodeID: 7}}, `testid="save"`: {{BackendNodeID: 7}}})
	describe(tab, "title", "Save the form", "data-testid", "save")
	var res protocol.PopupPickResult
	if err := m.Name(context.Background(), tab, overlay.Picked{BackendNodeID: 7}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Locator != `title="Save the form"` || len(res.Candidates) != 2 || res.Candidates[1].Kind != "testid" {
		t.Errorf("got locator %q and candidates %+v; want the title first, then the test id", res.Locator, res.Candidates)
	}
}

func TestNameOfANodeThePageDoesNotDescribe(t *testing.T) {
	m, _ := newMethods()
	tab := newTab(nil)
	tab.page.Fail("DOM.describeNode", "No node with given id found")
	var res protocol.PopupPickResult
	err := m.Name(context.Background(), tab, overlay.Picked{BackendNodeID: 7}, &res)
	if err == nil || !strings.HasPrefix(err.Error(), "name the picked element: DOM.describeNode: No node with given id found") {
		t.Fatalf("got %v, want the describe's error, named", err)
	}
}
