package actions

import "testing"

// The navigations AboutFragment must catch (Chromium 156 crashes the
// whole browser on Page.navigate to a fragment of a tab's initial
// about:blank, issue 22), in every spelling Chrome's URL parser accepts,
// and those it must let through.
func TestSameDocumentAbout(t *testing.T) {
	tests := []struct {
		current, dest string
		want          bool
	}{
		{"about:blank", "about:blank#x", true},
		{"about:blank", "about:blank#", true},
		{"about:blank", "about:blank#%20", true},
		{"about:blank#y", "about:blank#x", true}, // after the page set its own hash
		{"about:blank", "ABOUT:blank#x", true},
		{"about:blank", " about:blank#x\n", true},
		{"about:blank", "ab\tout:bl\nank#x", true},
		{"about:blank", "\x01about:blank#x", true},
		{"about:blank", "about:blan%6B#x", true}, // errs towards yes
		{"about:blank?q", "about:blank?q#x", true},
		{"about:blank", "about:blank", false},    // no fragment: a new document
		{"about:blank", "about:blank?x", false},  // another document
		{"about:blank", "about:blank/#x", false}, // another document
		{"about:blank", "about:srcdoc#x", false},
		{"https://a.example/", "https://a.example/#x", false}, // not about: (checked below)
		{"https://a.example/", "about:blank#x", false},
	}
	for _, tt := range tests {
		got := aboutWithFragment(tt.dest) && sameDocument(tt.current, tt.dest)
		if got != tt.want {
			t.Errorf("from %q to %q: got %v, want %v", tt.current, tt.dest, got, tt.want)
		}
	}
}
