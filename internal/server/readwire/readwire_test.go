package readwire

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/engine/overlay"
	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
	"github.com/egohost/egohost/resolver"
)

func TestSnapshot(t *testing.T) {
	stats := snapshot.Stats{Elements: 40, Refs: 3, Frames: 2, Withheld: 1, Lines: 9, Chars: 120, Bytes: 900, Took: 2500 * time.Microsecond, FrameErrors: []string{"frame 2: gone"}}
	wireStats := protocol.SnapshotStats{Elements: 40, Refs: 3, Frames: 2, Chars: 120, Bytes: 900, TookMs: 2.5, FrameErrors: []string{"frame 2: gone"}}
	tests := []struct {
		name string
		p    protocol.SnapshotParams
		snap snapshot.Snapshot
		want protocol.SnapshotResult
	}{
		{"whole", protocol.SnapshotParams{}, snapshot.Snapshot{Text: "- button \"Buy\" [ref=1]\n", URL: "https://a.example/", Title: "A", Stats: stats},
			protocol.SnapshotResult{Text: "- button \"Buy\" [ref=1]\n", URL: "https://a.example/", Title: "A", Tab: 4, Stats: wireStats}},
		{"cut", protocol.SnapshotParams{MaxChars: 10}, snapshot.Snapshot{Text: "- a\n", URL: "https://a.example/", Truncated: snapshot.Truncation{Cut: true, FirstLine: 0, ShownLines: 1, TotalLines: 9, Next: 1, HiddenRefs: 2}},
			protocol.SnapshotResult{Text: "- a\n", URL: "https://a.example/", Tab: 4, Truncated: &protocol.SnapshotCut{ShownLines: 1, TotalLines: 9, Next: 1, HiddenRefs: 2}}},
		{"nothing to show", protocol.SnapshotParams{Interactive: true}, snapshot.Snapshot{Text: " \n", URL: "about:blank"},
			protocol.SnapshotResult{Text: "(no interactive elements: about:blank)\n", URL: "about:blank", Tab: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Snapshot(4, tt.p, &tt.snap)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The words e2e/open_test.go and PROTOCOL.md rely on.
func TestEmptyText(t *testing.T) {
	tests := []struct {
		name string
		p    protocol.SnapshotParams
		want string
	}{
		{"page", protocol.SnapshotParams{}, "(empty page: about:blank)\n"},
		{"scope first", protocol.SnapshotParams{Scope: "#main", Interactive: true, Viewport: true}, "(nothing to show in #main: about:blank)\n"},
		{"interactive in the viewport", protocol.SnapshotParams{Interactive: true, Viewport: true}, "(no interactive elements in the viewport: about:blank)\n"},
		{"interactive", protocol.SnapshotParams{Interactive: true, Start: 3}, "(no interactive elements: about:blank)\n"},
		{"viewport", protocol.SnapshotParams{Viewport: true}, "(nothing in the viewport: about:blank)\n"},
		{"from a line", protocol.SnapshotParams{Start: 3}, "(nothing from line 3 on: about:blank)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EmptyText(tt.p, "about:blank"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRefs(t *testing.T) {
	tests := []struct {
		name string
		in   []refmap.Entry
		want []protocol.Ref
	}{
		{"none", nil, nil},
		{"in a frame", []refmap.Entry{{Ref: "3", BackendNodeID: 42, Role: "link", Name: "More", Nth: 1, Selector: "#m", FrameID: "F", SessionID: "S", LoaderID: "L"}},
			[]protocol.Ref{{Ref: "3", BackendNodeID: 42, Role: "link", Name: "More", Nth: 1, FrameID: "F", SessionID: "S"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Refs(tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveResults(t *testing.T) {
	box := &resolver.Box{X: 50, Y: 20, Width: 100, Height: 40}
	wireBox := &protocol.Box{X: 50, Y: 20, Width: 100, Height: 40}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"no box", Box(nil), (*protocol.Box)(nil)},
		{"box", Box(box), wireBox},
		{"no match", Matches(nil, time.Millisecond), protocol.ResolveResult{Matches: []protocol.Match{}, TookMs: 1}},
		{"one match has a centre", Matches([]resolver.Match{{BackendNodeID: 7, Role: "button", Name: "Buy", FrameID: "F", SessionID: "S", Box: box}}, 1500*time.Microsecond),
			protocol.ResolveResult{Count: 1, Matches: []protocol.Match{{BackendNodeID: 7, Role: "button", Name: "Buy", FrameID: "F", SessionID: "S", Box: wireBox}}, Center: &protocol.Point{X: 50, Y: 20, SessionID: "S"}, TookMs: 1.5}},
		{"one match without a box has none", Matches([]resolver.Match{{BackendNodeID: 7, Role: "none"}}, 0),
			protocol.ResolveResult{Count: 1, Matches: []protocol.Match{{BackendNodeID: 7, Role: "none"}}}},
		{"several have none", Matches([]resolver.Match{{BackendNodeID: 7, Box: box}, {BackendNodeID: 8}}, 0),
			protocol.ResolveResult{Count: 2, Matches: []protocol.Match{{BackendNodeID: 7, Box: wireBox}, {BackendNodeID: 8}}}},
		{"centre", Center(resolver.Point{X: 1, Y: 2, SessionID: "S"}), &protocol.Point{X: 1, Y: 2, SessionID: "S"}},
		{"object", Object(resolver.Object{ObjectID: "O", SessionID: "S"}), &protocol.Object{ObjectID: "O", SessionID: "S"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestHighlight(t *testing.T) {
	m := resolver.Match{Role: "button", Name: "Save", Box: &resolver.Box{X: 50, Y: 20, Width: 100, Height: 40}}
	tests := []struct {
		name    string
		target  string
		i, n    int
		m       resolver.Match
		want    protocol.PopupHighlight
		wantBox *overlay.Box
	}{
		{"drawn from the top-left", "@12", 0, 1, m,
			protocol.PopupHighlight{Target: "@12", Role: "button", Name: "Save", Box: &protocol.Box{X: 50, Y: 20, Width: 100, Height: 40}},
			&overlay.Box{X: 0, Y: 0, Width: 100, Height: 40, Label: `@12 button "Save"`}},
		{"one of several", "role=button", 1, 3, m,
			protocol.PopupHighlight{Target: "role=button", Role: "button", Name: "Save", Box: &protocol.Box{X: 50, Y: 20, Width: 100, Height: 40}},
			&overlay.Box{X: 0, Y: 0, Width: 100, Height: 40, Label: "2/3"}},
		{"no box: listed, not drawn", "#x", 0, 1, resolver.Match{Role: "none"}, protocol.PopupHighlight{Target: "#x", Role: "none"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, box := Highlight(tt.target, tt.i, tt.n, tt.m)
			if diff := cmp.Diff(tt.want, h); diff != "" {
				t.Errorf("highlight (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantBox, box); diff != "" {
				t.Errorf("box (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBoxLabel(t *testing.T) {
	long := strings.Repeat("x", 50)
	tests := []struct {
		name, target string
		i, n         int
		m            resolver.Match
		want         string
	}{
		{"a ref", "@12", 0, 1, resolver.Match{Role: "button", Name: "Save"}, `@12 button "Save"`},
		{"one match of a locator", "#save", 0, 1, resolver.Match{Role: "button", Name: "Save"}, `button "Save"`},
		{"one of several", "role=link", 1, 3, resolver.Match{Role: "link", Name: "More"}, "2/3"},
		{"no name", "#x", 0, 1, resolver.Match{Role: "generic"}, "generic"},
		{"a long name is cut", "#x", 0, 1, resolver.Match{Role: "heading", Name: long}, `heading "` + long[:40] + `…"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := boxLabel(tt.target, tt.i, tt.n, tt.m); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestAttrs(t *testing.T) {
	tests := []struct {
		name string
		flat []string
		want map[string]string
	}{
		{"none", nil, map[string]string{}},
		{"pairs", []string{"id", "q", "type", "text"}, map[string]string{"id": "q", "type": "text"}},
		{"a name without a value is left out", []string{"id", "q", "hidden"}, map[string]string{"id": "q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Attrs(tt.flat)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLocators(t *testing.T) {
	tests := []struct {
		name  string
		named protocol.PopupPickResult
		want  protocol.LocatorsResult
	}{
		{"no candidates is an empty list", protocol.PopupPickResult{Locator: "#q", Role: "textbox"},
			protocol.LocatorsResult{Tab: 2, Locator: "#q", Role: "textbox", Candidates: []protocol.PickCandidate{}}},
		{"named", protocol.PopupPickResult{Tab: 9, Locator: `role=button[name="Buy"]`, Ref: "@3", Role: "button", Name: "Buy", URL: "https://a.example/", At: 5,
			Candidates: []protocol.PickCandidate{{Kind: "role", Locator: `role=button[name="Buy"]`, Count: 1, Unique: true}}},
			protocol.LocatorsResult{Tab: 2, Locator: `role=button[name="Buy"]`, Ref: "@3", Role: "button", Name: "Buy",
				Candidates: []protocol.PickCandidate{{Kind: "role", Locator: `role=button[name="Buy"]`, Count: 1, Unique: true}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Locators(2, tt.named)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
