package cdptab_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
)

// On a session that sends one command at a time, a command's Then is sent
// once the command was answered, before the commands after it; not when
// the command failed or the context ended meanwhile (a dialog ends an
// action's); its own failure is a ThenError.
func TestCallSequenceThenOneByOne(t *testing.T) {
	methods := func(s *cdpfake.Session) []string {
		var got []string
		for _, c := range s.Calls() {
			got = append(got, c.Method)
		}
		return got
	}
	seq := []cdptab.Command{{Method: "A.press", Then: &cdptab.Command{Method: "A.release"}}, {Method: "B.after"}}
	for _, tt := range []struct {
		name   string
		fail   string // the method that fails
		cancel bool   // the context ends
		want   []string
		then   bool // the error is a ThenError
	}{
		{name: "both answered", want: []string{"A.press", "A.release", "B.after"}},
		{name: "the command fails", fail: "A.press", want: []string{"A.press"}},
		{name: "the then fails", fail: "A.release", want: []string{"A.press", "A.release"}, then: true},
		{name: "the context ended", cancel: true, want: []string{"A.press"}}, // cdpfake answers whatever the context
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := cdpfake.New()
			for _, m := range []string{"A.press", "A.release", "B.after"} {
				s.Reply(m, struct{}{})
			}
			if tt.fail != "" {
				s.Fail(tt.fail, "no")
			}
			ctx, cancel := context.WithCancel(context.Background())
			if tt.cancel {
				cancel()
			}
			defer cancel()
			err := cdptab.CallSequence(ctx, s, seq)
			if got := methods(s); !slices.Equal(got, tt.want) {
				t.Errorf("sent %v, want %v", got, tt.want)
			}
			var then *cdptab.ThenError
			if (tt.fail != "" || tt.cancel) != (err != nil) || errors.As(err, &then) != tt.then {
				t.Errorf("got error %v, want one: %v, a ThenError: %v", err, tt.fail != "" || tt.cancel, tt.then)
			}
		})
	}
}
