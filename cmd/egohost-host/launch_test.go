package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/egohost/egohost/protocol"
)

// launch reports the browser it started, not whichever connected first.
func TestLaunched(t *testing.T) {
	old := protocol.Browser{ID: "b1", ExtensionID: "x", RelayPID: 10}
	ours := protocol.Browser{ID: "b2", ExtensionID: "x", RelayPID: 20}
	hello := protocol.Browser{ID: "b3", RelayPID: 30} // no hello yet
	byMark := func(pid int) (bool, bool) { return pid == 20, true }
	noMarks := func(int) (bool, bool) { return false, false }
	tests := []struct {
		name     string
		browsers []protocol.Browser
		started  func(int) (bool, bool)
		before   map[string]bool
		want     string // "" = none yet
	}{
		{"by its mark, after an older one", []protocol.Browser{old, ours}, byMark, nil, "b2"},
		{"not an older one even if new to the list", []protocol.Browser{old}, byMark, nil, ""},
		{"without marks: the one not there before", []protocol.Browser{old, ours}, noMarks, map[string]bool{"b1": true}, "b2"},
		{"without marks: none new yet", []protocol.Browser{old}, noMarks, map[string]bool{"b1": true}, ""},
		{"not before its hello", []protocol.Browser{hello}, func(int) (bool, bool) { return true, true }, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ok := launched(tt.browsers, tt.started, tt.before)
			if got := map[bool]string{true: b.ID}[ok]; got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// The browser's stderr stays out of the terminal unless --verbose, and
// its last lines that are not noise explain an early exit.
func TestBrowserStderr(t *testing.T) {
	var shown strings.Builder
	quiet, verbose := &browserStderr{}, &browserStderr{w: &shown}
	for _, b := range []*browserStderr{quiet, verbose} {
		fmt.Fprint(b, "[1:1:ERROR:bus.cc(407)] Failed to connect to the bus: no dbus\n")
		for i := range 12 {
			fmt.Fprintf(b, "line %d\n", i)
		}
		fmt.Fprint(b, "[26469:26469:1201/091520.870322:ERROR:ui/ozone/platform/x11/ozone_platform_x11.cc:257] Missing X server or $DISPLAY")
	}
	want := "line 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\nline 11\nMissing X server or $DISPLAY"
	if got := quiet.Tail(); got != want {
		t.Errorf("tail: got %q, want %q", got, want)
	}
	if !strings.Contains(shown.String(), "Failed to connect to the bus") || !strings.HasSuffix(shown.String(), "$DISPLAY") {
		t.Errorf("--verbose: got %q, want every line", shown.String())
	}
}
