package service

import (
	"regexp"
	"testing"
	"time"

	"github.com/egohost/egohost/confirm"
	"github.com/egohost/egohost/protocol"
)

// An ask's id is unique across the service's restarts: the first ask of a
// restarted service is not the first of the one before, so a notification
// or a CLI line of an old ask never answers a new one.
func TestConfirmIDsUniqueAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	warn := func(string, ...any) {}
	before := newConfirms(dir, warn).add(protocol.Confirm{}, time.Minute, nil).ID
	after := newConfirms(dir, warn).add(protocol.Confirm{}, time.Minute, nil).ID
	if before == after {
		t.Errorf("got the same id %q before and after a restart, want two", before)
	}
	for _, id := range []string{before, after} {
		if !regexp.MustCompile(`^c1-[0-9a-f]{8}$`).MatchString(id) {
			t.Errorf("got id %q, want c1- and 8 hex digits", id)
		}
	}
}

// The asks are listed oldest first, c9 before c10.
func TestConfirmListOrder(t *testing.T) {
	c := newConfirms(t.TempDir(), func(string, ...any) {})
	var want []string
	for range 11 {
		want = append(want, c.add(protocol.Confirm{}, time.Minute, nil).ID)
	}
	got := c.list("", false)
	if len(got) != len(want) {
		t.Fatalf("got %d asks listed, want %d", len(got), len(want))
	}
	for i, q := range got {
		if q.ID != want[i] {
			t.Fatalf("got order %v, want %v", got, want)
		}
	}
}

// An "always" answer to an ask about several kinds (a submit button named
// Place order) is kept for each of them, each on its origin; one about a
// single kind keeps that kind only.
func TestConfirmAlwaysEveryKindOfTheAsk(t *testing.T) {
	c := newConfirms(t.TempDir(), func(string, ...any) {})
	rules := []confirmAlways{{Agent: "bot", Origin: "https://shop.example", Kind: "submit"}, {Agent: "bot", Origin: "https://bank.example", Kind: "navigate_new_origin"}}
	q := c.add(protocol.Confirm{Agent: "bot", Origin: "https://shop.example", Kind: "submit"}, time.Minute, rules)
	if _, err := c.answer(q.ID, confirmAnswer{allow: true, always: true}); err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if !c.allowedAlways(r.Agent, r.Origin, confirm.Kind(r.Kind)) {
			t.Errorf("got no always answer for %+v, want one", r)
		}
	}
	if c.allowedAlways("bot", "https://shop.example", confirm.Purchase) {
		t.Errorf("got an always answer for a kind the ask was not about")
	}
}
