package tabmethods_test

import (
	"context"
	"fmt"

	"github.com/egohost/egohost/internal/server/tabmethods"
	"github.com/egohost/egohost/protocol"
)

// anyCall is a caller whose call is refused before anything of it is
// reached.
type anyCall struct{ tabmethods.Call }

// tabs.open's params are checked before a browser is picked or a tab is
// made: noWait returns at once, so it has no load state to wait for.
func Example() {
	m := tabmethods.New(nil, "dev") // the service is not reached either
	_, err := m.Open(context.Background(), anyCall{}, protocol.TabsOpenParams{URL: "example.com", NoWait: true, Until: "load"})
	pe := protocol.AsError(err)
	fmt.Println(pe.Code.Name()+":", pe.Message)
	// Output: invalid_params: tabs.open: noWait excludes until and timeoutMs
}
