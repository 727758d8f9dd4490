package wireerr

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

// TestClassify pins the wire codes of the page-level packages' errors:
// what every handler answers.
func TestClassify(t *testing.T) {
	closed := protocol.Errorf(protocol.CodeTabNotFound, "tab 3 was closed")
	notVisible := &actions.NotActionableError{Reason: actions.NotVisible, Element: "<button>"}
	tests := []struct {
		name     string
		err      error
		want     protocol.Code
		wantData map[string]any
	}{
		{"nil", nil, 0, nil},
		{"a closed tab wins over its wrapping", &actions.TimeoutError{Op: "click", Timeout: time.Second, Attempts: 2, Last: fmt.Errorf("box: %w", closed)}, protocol.CodeTabNotFound, nil},
		{"not actionable", notVisible, protocol.CodeNotActionable, map[string]any{"kind": "transient", "reason": "not visible", "element": "<button>"}},
		{"a timeout names its last cause's code", &actions.TimeoutError{Op: "click", Timeout: time.Second, Attempts: 3, Last: &resolver.Error{Op: "resolve", Target: "text=Go", Count: 2, Err: resolver.ErrAmbiguous}},
			protocol.CodeAmbiguous, map[string]any{"timeoutMs": int64(1000), "attempts": 3, "target": "text=Go", "count": 2}},
		{"a timeout whose last cause is not actionable says why", &actions.TimeoutError{Op: "click", Timeout: time.Second, Attempts: 3, Last: notVisible},
			protocol.CodeNotActionable, map[string]any{"timeoutMs": int64(1000), "attempts": 3, "reason": "not visible"}},
		{"a bare timeout", &actions.TimeoutError{Op: "wait", Timeout: time.Second}, protocol.CodeTimeout, nil},
		{"the page threw", &actions.JSError{Op: "eval", Text: "Uncaught x", Line: 0, Column: 4}, protocol.CodeJSException, map[string]any{"line": int64(1), "column": int64(5)}},
		{"navigation", &actions.NavigationError{Op: "goto", Text: "net::ERR_NAME_NOT_RESOLVED"}, protocol.CodeNavigation, map[string]any{"errorText": "net::ERR_NAME_NOT_RESOLVED"}},
		{"invalid", fmt.Errorf("press: %w", actions.ErrInvalid), protocol.CodeInvalidParams, nil},
		{"not found is transient", &resolver.Error{Op: "resolve", Target: "#x", Err: resolver.ErrNotFound}, protocol.CodeNotFound, map[string]any{"kind": "transient", "target": "#x"}},
		{"a withheld tab", fmt.Errorf("click: %w", &cdptab.WithheldError{URL: "https://bank.example/login", Why: "deny *.bank.example"}),
			protocol.CodeForbiddenOriginScope, map[string]any{"origin": "https://bank.example", "rule": "deny *.bank.example", "reason": "deny"}},
		{"a withheld frame", &cdptab.WithheldError{URL: "https://ads.example/f", Why: "not in allow", Frame: true},
			protocol.CodeForbiddenOriginScope, map[string]any{"origin": "https://ads.example", "reason": "frame", "frame": true}},
		{"a deadline is a timeout", fmt.Errorf("snapshot: %w", context.DeadlineExceeded), protocol.CodeTimeout, map[string]any{"kind": "permanent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Classify(tt.err)
			if tt.err == nil {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			var pe *protocol.Error
			if !errors.As(err, &pe) || pe.Code != tt.want {
				t.Fatalf("got error %v, want code %s", err, tt.want.Name())
			}
			for k, v := range tt.wantData {
				if got := fmt.Sprint(pe.Data[k]); got != fmt.Sprint(v) {
					t.Errorf("data %s: got %v, want %v", k, got, v)
				}
			}
		})
	}
}
