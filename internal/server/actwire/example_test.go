package actwire_test

import (
	"fmt"

	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/protocol"
)

// A click's wire options as the engine takes them: the timeout as a
// duration, the settle off.
func Example() {
	p := protocol.ClickParams{Element: "role=button[name=Buy]", ActionOptions: protocol.ActionOptions{TimeoutMs: 1500, NoSettle: true}}
	if err := p.Check(protocol.MethodClick); err != nil {
		fmt.Println(err)
		return
	}
	o := actwire.ActOptions(p.ActionOptions)
	fmt.Println(o.Timeout, o.Settle.Off)
	fmt.Println(protocol.ClickParams{}.Check(protocol.MethodClick))
	// Output:
	// 1.5s true
	// click: target is empty (a @ref or a locator) (invalid_params -32602)
}
