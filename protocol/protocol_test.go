package protocol

import (
	"errors"
	"fmt"
	"testing"
)

// A code with no name reads as its number (every published code has one:
// TestEveryCodeIsNamedAndDocumented).
func TestUnknownCodeName(t *testing.T) {
	if got := Code(4242).Name(); got != "code_4242" {
		t.Errorf("unknown code: got %q, want code_4242", got)
	}
}

func TestErrorCarriesItsCode(t *testing.T) {
	e := Errorf(CodeStaleRef, "stale ref @%d", 3).With("kind", "permanent")
	wrapped := fmt.Errorf("click: %w", e)
	if CodeOf(wrapped) != CodeStaleRef || CodeOf(errors.New("x")) != CodeInternal {
		t.Errorf("CodeOf: got %v and %v", CodeOf(wrapped), CodeOf(errors.New("x")))
	}
	if got, want := e.Error(), "stale ref @3 (stale_ref 1102)"; got != want {
		t.Errorf("Error(): got %q, want %q", got, want)
	}
	if e.Data["name"] != "stale_ref" || e.Data["kind"] != "permanent" {
		t.Errorf("data: got %v", e.Data)
	}
}

func TestPermanent(t *testing.T) {
	for _, c := range []Code{CodeTabNotFound, CodeDetached, CodeBrowserGone, CodeNoBrowser} {
		if !(&Error{Code: c}).Permanent() {
			t.Errorf("%s: got transient, want permanent", c.Name())
		}
	}
	for _, c := range []Code{CodeCDP, CodeTimeout, CodeNotFound} {
		if (&Error{Code: c}).Permanent() {
			t.Errorf("%s: got permanent, want it left to the caller", c.Name())
		}
	}
}

func TestProof(t *testing.T) {
	a, b := Proof("token-a", "challenge"), Proof("token-b", "challenge")
	if len(a) != 64 || a == b || a != Proof("token-a", "challenge") || a == Proof("token-a", "other") {
		t.Errorf("Proof: got %q and %q; want 64 hex characters, keyed by the token and the challenge", a, b)
	}
}

func TestSelectedText(t *testing.T) {
	tests := []struct {
		name string
		r    ActionResult
		want string
	}{
		{"values only", ActionResult{Selected: []string{"one", "three"}}, "one, three"},
		{"a label that differs", ActionResult{Selected: []string{"2"}, SelectedLabels: []string{"Games"}}, `"Games" (2)`},
		{"some differ", ActionResult{Selected: []string{"a", "b"}, SelectedLabels: []string{"a", "Bee"}}, `a, "Bee" (b)`},
		{"fewer labels than values", ActionResult{Selected: []string{"a", "b"}, SelectedLabels: []string{"A"}}, `"A" (a), b`},
		{"none", ActionResult{Selected: []string{}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.SelectedText(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSettledEndNote(t *testing.T) {
	tests := []struct {
		name, ended, want string
	}{
		{"nothing ended it", "", ""},
		{"the page closed its tab", CodeTabNotFound.Name(), "then the page closed its tab"},
		{"the debugger detached", CodeDetached.Name(), "then the call ended: detached"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Settled{Ended: tc.ended}
			if got := s.EndNote(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if got, want := s.TabClosed(), tc.ended == CodeTabNotFound.Name(); got != want {
				t.Errorf("TabClosed: got %v, want %v", got, want)
			}
		})
	}
}
