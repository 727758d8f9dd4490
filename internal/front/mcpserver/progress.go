package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/protocol"
)

// waitingKey keys a tool call's WaitingFunc in its context.
type waitingKey struct{}

// WaitingFunc tells a tool call's MCP client that the call waits for the
// person (a confirm.waiting notification of the service, PROTOCOL.md
// §3.7.2).
type WaitingFunc func(protocol.ConfirmWaiting)

// WaitingFrom returns the WaitingFunc of the tool call whose context ctx
// is (a Caller gets it with the call): it sends the client a progress
// notification with the wait's message. Nil when the client sent no
// progress token: then it is told nothing.
func WaitingFrom(ctx context.Context) WaitingFunc {
	f, _ := ctx.Value(waitingKey{}).(WaitingFunc)
	return f
}

// withWaiting gives ctx the WaitingFunc of req, when its client sent a
// progress token.
func withWaiting(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req == nil || req.Params == nil || req.Session == nil {
		return ctx
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return ctx
	}
	ss := req.Session
	return context.WithValue(ctx, waitingKey{}, WaitingFunc(func(w protocol.ConfirmWaiting) {
		_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Message: w.Message})
	}))
}
