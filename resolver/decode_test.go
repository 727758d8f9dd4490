package resolver

import (
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/google/go-cmp/cmp"
)

func deepValue(s string) *runtime.DeepSerializedValue {
	return &runtime.DeepSerializedValue{Type: "array", Value: jsonv2.Value(s)}
}

func TestDecodeList(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		want    jsResult
		wantErr string
	}{
		{"matches", `[{"type":"string","value":"{\"n\":2,\"frames\":0}"},{"type":"node","value":{"backendNodeId":7}},{"type":"node","value":{"backendNodeId":9}}]`,
			jsResult{N: 2, ids: []cdp.BackendNodeID{7, 9}}, ""},
		{"no matches", `[{"type":"string","value":"{\"n\":0,\"frames\":1}"}]`, jsResult{Frames: 1}, ""},
		{"syntax error", `[{"type":"string","value":"{\"error\":\"'div[' is not a valid selector\",\"syntax\":true}"}]`,
			jsResult{Error: "'div[' is not a valid selector", Syntax: true}, ""},
		// The shape an older engine sent: the error still wins over what follows.
		{"syntax error then junk", `[{"type":"string","value":"{\"error\":\"bad\",\"syntax\":true}"},{"type":"array","value":[]}]`,
			jsResult{Error: "bad", Syntax: true}, ""},
		{"not a node", `[{"type":"string","value":"{\"n\":1}"},{"type":"array","value":[]}]`, jsResult{}, "element 0: not a node"},
		{"more nodes than matches", `[{"type":"string","value":"{\"n\":0}"},{"type":"node","value":{"backendNodeId":7}}]`, jsResult{}, "1 nodes for 0 matches"},
		{"no header", `[{"type":"node","value":{"backendNodeId":7}}]`, jsResult{}, "no header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeList(deepValue(tt.value))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(jsResult{})); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzDecodeList(f *testing.F) {
	f.Add(`[{"type":"string","value":"{\"n\":1}"},{"type":"node","value":{"backendNodeId":7}}]`)
	f.Add(`[{"type":"string","value":"{\"error\":\"bad\",\"syntax\":true}"},{"type":"array","value":[]}]`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, s string) {
		res, err := decodeList(deepValue(s))
		if err == nil && res.Error == "" && len(res.ids) > res.N {
			t.Errorf("%q: %d nodes for %d matches", s, len(res.ids), res.N)
		}
	})
}

func TestBorderBox(t *testing.T) {
	tests := []struct {
		name   string
		border []float64
		quads  []dom.Quad
		want   Box
		ok     bool
	}{
		{"block: the border quad", quad(0, 0, 38, 38), []dom.Quad{quad(0, 0, 38, 38)}, Box{X: 19, Y: 19, Width: 38, Height: 38}, true},
		{"all padding: no content, a border box", quad(10, 10, 38, 38), nil, Box{X: 29, Y: 29, Width: 38, Height: 38}, true},
		{"wrapped inline: its first line", quad(10, 37, 124, 41), []dom.Quad{quad(39, 40, 90, 17), quad(10, 58, 115, 17)}, Box{X: 84, Y: 48.5, Width: 124, Height: 41}, true},
		{"a quad of no area is not a line", quad(0, 0, 20, 10), []dom.Quad{quad(5, 5, 0, 0), quad(0, 0, 20, 10)}, Box{X: 10, Y: 5, Width: 20, Height: 10}, true},
		{"zero-sized", quad(5, 5, 0, 10), nil, Box{}, false},
		{"no box model", nil, nil, Box{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := borderBox(tt.border, tt.quads)
			if ok != tt.ok || got != tt.want {
				t.Errorf("got %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
