package rpcparams_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/egohost/egohost/internal/server/rpcparams"
)

// closeParams are the params of a method that closes a tab.
type closeParams struct {
	Tab int `json:"tab"`
}

// A method's handler gets its params decoded strictly, or does not run.
func ExampleStrict() {
	closeTab := rpcparams.Strict(func(_ context.Context, agent string, p closeParams) (any, error) {
		return fmt.Sprintf("%s closed tab %d", agent, p.Tab), nil
	})
	for _, raw := range []string{`{"tab":7}`, `{"Tab":7}`, `[7]`} {
		in := rpcparams.Parse(json.RawMessage(raw))
		res, err := closeTab(context.Background(), "bot", in)
		fmt.Println(res, err)
	}
	// Output:
	// bot closed tab 7 <nil>
	// <nil> invalid params: unknown field "Tab" (did you mean "tab"?) (invalid_params -32602)
	// <nil> invalid params: must be a JSON object (params by name), got an array (invalid_params -32602)
}
