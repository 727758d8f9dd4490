package cdpmethods_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/egohost/egohost/internal/server/cdpmethods"
	"github.com/egohost/egohost/protocol"
)

// pairedAgent is a paired agent's call; the rest of a call (its tab, its
// origin rules) is not reached here.
type pairedAgent struct{ cdpmethods.Call }

func (pairedAgent) Paired() bool { return true }

// A paired agent's raw CDP meets the allow-list before its tab is looked
// up: DOM.setFileInputFiles would hand a page any file of the person's.
func Example() {
	m := cdpmethods.New(nil, slog.New(slog.DiscardHandler)) // the service is not reached either
	_, err := m.Send(context.Background(), pairedAgent{}, protocol.CDPSendParams{
		Target: protocol.Target{Tab: 7},
		Method: "DOM.setFileInputFiles",
		Params: json.RawMessage(`{"files":["/etc/passwd"],"backendNodeId":4}`),
	})
	var pe *protocol.Error
	if errors.As(err, &pe) {
		fmt.Println(pe.Code.Name(), pe.Data["method"])
	}
	// Output: scope_denied DOM.setFileInputFiles
}
