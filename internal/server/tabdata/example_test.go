package tabdata_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/egohost/egohost/internal/server/tabdata"
	"github.com/egohost/egohost/protocol"
)

// A network.request call's params are checked before its tab is
// reached: the call, which would reach it, is not needed here.
func Example() {
	m := tabdata.New(slog.Default(), 5*time.Second)
	_, err := m.NetworkRequest(context.Background(), nil, protocol.NetworkRequestParams{ID: 0})
	fmt.Println(protocol.CodeOf(err).Name())
	// Output: invalid_params
}
