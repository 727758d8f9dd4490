package mcpserver_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/internal/front/mcpserver"
	"github.com/egohost/egohost/protocol"
)

// service stands for the running egohost service (client.Client in
// `egohost mcp`).
type service struct{}

func (service) Call(ctx context.Context, method string, params, result any) error {
	if r, ok := result.(*protocol.ResolveResult); ok && method == protocol.MethodResolve {
		r.Count = 2
	}
	return nil
}

func Example() {
	ctx := context.Background()
	serverSide, clientSide := mcp.NewInMemoryTransports()
	srv, err := mcpserver.New(service{}, mcpserver.Options{})
	if err != nil {
		panic(err)
	}
	ss, _ := srv.Connect(ctx, serverSide, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil).Connect(ctx, clientSide, nil)
	defer cs.Close()
	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_resolve", Arguments: map[string]any{"target": "role=button"}})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: role=button matches 2 element(s)
}
