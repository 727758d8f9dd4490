package cdperr

import (
	"context"
	"errors"
	"fmt"
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

func TestMatchers(t *testing.T) {
	tests := []struct {
		name string
		err  error
		is   func(error) bool
		want bool
	}{
		{"context gone, wrapped", fmt.Errorf("evaluate: %w", errors.New("Cannot find context with specified id (-32000)")), ContextGone, true},
		{"navigated", errors.New("Inspected target navigated or closed"), ContextGone, true},
		{"object gone", errors.New("Could not find object with given id"), ObjectGone, true},
		{"node gone", errors.New("No node with given id found"), NodeGone, true},
		{"node gone is not context gone", errors.New("No node with given id found"), ContextGone, false},
		{"no box", errors.New("Could not compute box model."), NoBox, true},
		{"nil", nil, ContextGone, false},
		{"a deadline", context.DeadlineExceeded, ContextGone, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.is(tt.err); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestExceptionText(t *testing.T) {
	tests := []struct {
		name string
		d    runtime.ExceptionDetails
		want string
	}{
		{"the description's first line", runtime.ExceptionDetails{Text: "Uncaught", Exception: &runtime.RemoteObject{Description: "TypeError: x is not a function\n    at <anonymous>:1:1"}}, "TypeError: x is not a function"},
		{"a thrown value", runtime.ExceptionDetails{Text: "Uncaught", Exception: &runtime.RemoteObject{Value: jsonv2.Value(`"boom"`)}}, `Uncaught "boom"`},
		{"the text alone", runtime.ExceptionDetails{Text: "Uncaught SyntaxError"}, "Uncaught SyntaxError"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExceptionText(&tt.d); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
