package wireerr_test

import (
	"fmt"

	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

// A handler's error, as the agent reads it: the resolver found two
// elements, so the code is ambiguous and the data names the target.
func ExampleClassify() {
	err := fmt.Errorf("click: %w", &resolver.Error{Kind: resolver.Permanent, Op: "resolve", Target: "text=Save", Count: 2, Err: resolver.ErrAmbiguous})
	e := wireerr.Of(wireerr.Classify(err))
	fmt.Println(e.Code.Name(), e.Data["target"], e.Data["count"], e.Data["kind"])
	fmt.Println(protocol.CodeOf(wireerr.Classify(err)) == protocol.CodeAmbiguous)
	// Output:
	// ambiguous text=Save 2 permanent
	// true
}
