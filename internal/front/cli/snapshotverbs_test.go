package cli

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/egohost/egohost/protocol"
)

func TestPrintSnapshot(t *testing.T) {
	note := "[cut: lines 3-9 of 9 not shown (90 chars, 2 refs @3-@4). Get them with start=2 (same options), or narrow with scope (a ref or locator), viewport or interactive-only]\n"
	cliNote := "[cut: lines 3-9 of 9 not shown (90 chars, 2 refs @3-@4). Get them with --start 2 (same options), or narrow with --scope (a ref or locator), --viewport or -i]\n"
	// A page may say anything, the service's words for its params too.
	page := "- heading \"maxChars and start must not be negative\" [level=1]\n- button \"Get them with start=5 (same options), or narrow with scope (a ref or locator), viewport or interactive-only\" @1\n"
	tests := []struct {
		name string
		r    protocol.SnapshotResult
		want string
	}{
		{"whole page: printed as it is", protocol.SnapshotResult{Text: page}, page},
		{"cut: only the note is reworded", protocol.SnapshotResult{Text: page + note, Truncated: &protocol.SnapshotCut{Next: 2}}, page + cliNote},
		{"cut note alone", protocol.SnapshotResult{Text: note, Truncated: &protocol.SnapshotCut{Next: 2}}, cliNote},
		{"last page of a cut: no note", protocol.SnapshotResult{Text: page, Truncated: &protocol.SnapshotCut{FirstLine: 3}}, page},
		{"no final newline gets one", protocol.SnapshotResult{Text: "- button \"a\" @1"}, "- button \"a\" @1\n"},
		{"empty", protocol.SnapshotResult{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := printSnapshot(&b, tt.r); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}

// The CLI's own cost of printing the 15,001-element page's snapshot
// (458,595 characters in docs/benchmarks.md): decode and write.
func BenchmarkPrintSnapshot(b *testing.B) {
	var text strings.Builder
	for i := range 15000 {
		text.WriteString("  - listitem:\n    - link \"Item number ")
		text.WriteString(strings.Repeat("x", i%7))
		text.WriteString("\" @")
		text.WriteString(strings.Repeat("1", 1+i%5))
		text.WriteString("\n")
	}
	raw, err := json.Marshal(protocol.SnapshotResult{Text: text.String()})
	if err != nil {
		b.Fatal(err)
	}
	print := printAs(printSnapshot)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if err := print(io.Discard, raw); err != nil {
			b.Fatal(err)
		}
	}
}
