package script_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/egohost/egohost/internal/server/script"
	"github.com/egohost/egohost/protocol"
)

// titles answers eval with a page title, as the service's eval method would.
type titles struct{}

func (titles) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method != protocol.MethodEval {
		return nil, protocol.Errorf(protocol.CodeUnsupported, "%s: not in this example", method)
	}
	return json.RawMessage(`{"tab": 1, "value": "Checkout", "type": "string"}`), nil
}

func ExampleRun() {
	res, err := script.Run(context.Background(), titles{}, `
const title = await page.title()
console.log('title:', title)
title.length`, script.Options{Target: protocol.Target{Tab: 1}, Timeout: 5 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.Output)
	fmt.Println(string(res.Value), res.Calls)
	// Output:
	// title: Checkout
	// 8 1
}
