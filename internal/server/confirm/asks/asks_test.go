package asks

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/protocol"
)

// An ask's id is unique across the service's restarts: the first ask of a
// restarted service is not the first of the one before, so a notification
// or a CLI line of an old ask never answers a new one.
func TestConfirmIDsUniqueAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	warn := func(string, ...any) {}
	before := Load(dir, warn).Add(protocol.Confirm{}, time.Minute, nil).ID
	after := Load(dir, warn).Add(protocol.Confirm{}, time.Minute, nil).ID
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
	c := Load(t.TempDir(), func(string, ...any) {})
	var want []string
	for range 11 {
		want = append(want, c.Add(protocol.Confirm{}, time.Minute, nil).ID)
	}
	got := c.List("", false)
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
	c := Load(t.TempDir(), func(string, ...any) {})
	rules := []Always{{Agent: "bot", Origin: "https://shop.example", Kind: "submit"}, {Agent: "bot", Origin: "https://bank.example", Kind: "navigate_new_origin"}}
	q := c.Add(protocol.Confirm{Agent: "bot", Origin: "https://shop.example", Kind: "submit"}, time.Minute, rules)
	if _, err := c.Answer(q.ID, Answer{Allow: true, Always: true}); err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if !c.AllowedAlways(r.Agent, r.Origin, confirm.Kind(r.Kind)) {
			t.Errorf("got no always answer for %+v, want one", r)
		}
	}
	if c.AllowedAlways("bot", "https://shop.example", confirm.Purchase) {
		t.Errorf("got an always answer for a kind the ask was not about")
	}
}

// An ask is answered once; an unknown id is an invalid_params error; an
// "always" yes is written and read back by the next service.
func TestConfirmAnswerOnceAndAlwaysKept(t *testing.T) {
	dir := t.TempDir()
	c := Load(dir, func(string, ...any) {})
	q := c.Add(protocol.Confirm{Agent: "bot", Origin: "https://shop.example", Kind: "submit"}, time.Minute, nil)
	for _, tc := range []struct {
		id      string
		wantErr bool
	}{
		{"c99-00000000", true},
		{q.ID, false},
		{q.ID, true}, // answered already
	} {
		_, err := c.Answer(tc.id, Answer{Allow: true, Always: true, Who: "owner"})
		if got := err != nil; got != tc.wantErr {
			t.Fatalf("Answer(%s): got error %v, want error %v", tc.id, err, tc.wantErr)
		}
		var pe *protocol.Error
		if err != nil && (!errors.As(err, &pe) || pe.Code != protocol.CodeInvalidParams) {
			t.Errorf("Answer(%s): got %v, want invalid_params", tc.id, err)
		}
	}
	if decision, who, err := q.Wait(context.Background(), time.Minute); decision != "always" || who != "owner" || err != nil {
		t.Errorf("got answer %s by %s, %v, want the owner's always", decision, who, err)
	}
	if !Load(dir, t.Fatalf).AllowedAlways("bot", "https://shop.example", confirm.Submit) {
		t.Errorf("a restarted store has no always answer, want the one given")
	}
}

// A wait ends with the person's answer, no answer in time, or the call's
// end, each in the audit log's words and with the call's error.
func TestWait(t *testing.T) {
	c := Load(t.TempDir(), func(string, ...any) {})
	q := protocol.Confirm{Agent: "bot", Origin: "https://shop.example", Kind: "submit", Action: "click button 'Pay'"}
	cancelled, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("the call ended"))
	tests := []struct {
		name     string
		ctx      context.Context
		answer   *Answer
		decision string
		who      string
		code     protocol.Code
	}{
		{"allowed", context.Background(), &Answer{Allow: true, Who: "person"}, "allowed", "person", 0},
		{"always", context.Background(), &Answer{Allow: true, Always: true, Who: "owner"}, "always", "owner", 0},
		{"denied", context.Background(), &Answer{Who: "person"}, "denied", "person", protocol.CodeDeniedByPerson},
		{"nobody in time", context.Background(), nil, "confirm_timeout", "nobody", protocol.CodeConfirmTimeout},
		{"the call ended", cancelled, nil, "cancelled", "nobody", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := c.Add(q, time.Minute, nil)
			wait := time.Minute
			if tt.answer != nil {
				if _, err := c.Answer(a.ID, *tt.answer); err != nil {
					t.Fatal(err)
				}
			} else if tt.ctx.Err() == nil {
				wait = time.Millisecond
			}
			decision, who, err := a.Wait(tt.ctx, wait)
			if decision != tt.decision || who != tt.who {
				t.Errorf("got %s by %s, want %s by %s", decision, who, tt.decision, tt.who)
			}
			switch {
			case tt.ctx.Err() != nil:
				if err == nil || err.Error() != "the call ended" {
					t.Errorf("got error %v, want the call's cause", err)
				}
			case tt.code == 0 && err != nil:
				t.Errorf("got error %v, want none", err)
			case tt.code != 0 && protocol.CodeOf(err) != tt.code:
				t.Errorf("got error %v, want %s", err, tt.code.Name())
			}
		})
	}
}
