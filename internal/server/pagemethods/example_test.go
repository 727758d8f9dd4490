package pagemethods_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/egohost/egohost/internal/server/pagemethods"
	"github.com/egohost/egohost/protocol"
)

// service is the service's settings.
type service struct{}

func (service) AnswersDialogs(string) bool   { return false }
func (service) ActionTimeout() time.Duration { return 5 * time.Second }

// deniedCall is a caller whose origin rules refuse every destination; the
// rest of a call (its tabs) is not reached here.
type deniedCall struct {
	pagemethods.Call[pagemethods.Tab]
}

func (deniedCall) CheckDestination(url string) error {
	return protocol.Errorf(protocol.CodeForbiddenOriginScope, "goto: %s is an origin this agent may not load", url)
}

// A goto is judged against the caller's destinations before any tab is
// reached: the URL as egohost would load it.
func Example() {
	m := pagemethods.New[pagemethods.Tab](service{}, slog.Default())
	_, err := m.Goto(context.Background(), deniedCall{}, protocol.GotoParams{Target: protocol.Target{Tab: 7}, URL: "bank.example"})
	fmt.Println(err)
	// Output: goto: https://bank.example is an origin this agent may not load (forbidden_origin_scope 1141)
}
