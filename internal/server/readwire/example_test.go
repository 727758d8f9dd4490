package readwire_test

import (
	"fmt"

	"github.com/egohost/egohost/internal/server/readwire"
	"github.com/egohost/egohost/resolver"
)

// A locator that matched one element: the match on the wire, and its
// centre, where a click would land.
func Example() {
	ms := []resolver.Match{{BackendNodeID: 7, Role: "button", Name: "Buy", Box: &resolver.Box{X: 50, Y: 20, Width: 100, Height: 40}}}
	res := readwire.Matches(ms, 0)
	fmt.Println(res.Count, res.Matches[0].Role, res.Matches[0].Name, res.Center.X, res.Center.Y)
	// Output:
	// 1 button Buy 50 20
}
