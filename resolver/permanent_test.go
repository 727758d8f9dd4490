package resolver

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/refmap"
)

type goneError struct{}

func (goneError) Error() string   { return "tab 7 was closed" }
func (goneError) Permanent() bool { return true }

// A transport error that says it is permanent (the tab closed) stops a wait
// at once instead of polling until the timeout.
func TestClassifyKeepsPermanentTransportErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want Kind
	}{
		{"page navigating", errors.New("Execution context was destroyed"), Transient},
		{"tab closed", goneError{}, Permanent},
		{"wrapped tab closed", errors.Join(errors.New("evaluate"), goneError{}), Permanent},
		{"deadline", context.DeadlineExceeded, Permanent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e *Error
			if !errors.As(classify("resolve", "#x", tt.err), &e) || e.Kind != tt.want {
				t.Errorf("got %v, want kind %v", e, tt.want)
			}
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	calls := 0
	_, err := Wait(ctx, func(context.Context) (int, error) {
		calls++
		return 0, classify("resolve", "#x", goneError{})
	})
	if calls != 1 || !errors.As(err, new(goneError)) {
		t.Errorf("Wait: got %d calls and %v, want 1 call ending with the tab-closed error", calls, err)
	}
}

// Another tool's ref fails at once, says what refs look like here, and is
// never read as our ref of the same number.
func TestParseForeignRef(t *testing.T) {
	for _, in := range []string{"@e12", "e12", "ref=e5", "[ref=e5]"} {
		_, err := parse(in)
		var e *Error
		if !errors.As(err, &e) || e.Kind != Permanent || !errors.Is(err, refmap.ErrForeignRef) {
			t.Errorf("parse(%q): got %v, want a permanent error matching refmap.ErrForeignRef", in, err)
			continue
		}
		if want := "refs here are @N (see `egohost snapshot`)"; !strings.Contains(err.Error(), want) {
			t.Errorf("parse(%q): got %q, want it to say %q", in, err, want)
		}
	}
}
