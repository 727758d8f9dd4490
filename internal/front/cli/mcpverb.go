package cli

import (
	"context"

	"github.com/spf13/cobra"
)

// mcpCommand is `egohost mcp`: the MCP tools over stdio (or streamable
// HTTP with --http), as an agent of the running service (the Host's MCP).
func (c *cli) mcpCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "mcp",
		Short:   "MCP server for agents (stdio, or streamable HTTP with the token), over the running service",
		Example: "  claude mcp add egohost -- egohost mcp\n  egohost mcp --caps testing\n  egohost mcp --tools core,browser_tabs\n  egohost mcp --http 127.0.0.1:8931",
		GroupID: "agents",
		Args:    nArgs(0, 0),
	}
	var o MCPOptions
	cmd.Flags().StringVar(&o.HTTP, "http", "", "serve streamable HTTP on this loopback `ADDR` (127.0.0.1:PORT) instead of stdio")
	cmd.Flags().StringVar(&o.Name, "name", "", "the agent `NAME` to pair as on first use (default: the MCP client's name, as it introduces itself, else mcp; the token is kept in <data_dir>/agents/NAME.token)")
	cmd.Flags().StringSliceVar(&o.Scopes, "scope", nil, "`SCOPE`s to ask for when pairing: space (default), read, all-tabs, cdp")
	cmd.Flags().BoolVar(&o.Owner, "owner", false, "use the owner token instead of pairing (as the person's own CLI does)")
	cmd.Flags().IntVar(&o.MaxChars, "max-chars", 0, "cut snapshots after N characters (default: the service's)")
	cmd.Flags().BoolVar(&o.FullSnapshots, "full-snapshots", false, "every action returns a full snapshot, not a diff")
	cmd.Flags().StringSliceVar(&o.Caps, "caps", nil, "tool `GROUP`s to offer besides the default ones (core, tabs, spaces, storage): testing, or all")
	cmd.Flags().StringSliceVar(&o.Tools, "tools", nil, "offer only these tools and tool groups (`NAME`s: browser_click, core, …); fewer tools, fewer tokens in every prompt")
	cmd.RunE = c.hostOnly(c.with(func(ctx context.Context, e *env, _ *cobra.Command, _ []string) error {
		return c.host.MCP(ctx, e, o)
	}))
	return cmd
}
