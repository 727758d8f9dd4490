package main

import "testing"

// An MCP client's name becomes a valid agent name, or mcp.
func TestMCPAgentName(t *testing.T) {
	tests := []struct{ client, want string }{
		{"Claude Code", "Claude-Code"},
		{"gemini-cli", "gemini-cli"},
		{"cursor-vscode.v2_x", "cursor-vscode.v2_x"},
		{"../../.ssh/id_rsa", "ssh-id_rsa"},
		{"", "mcp"},
		{"   ", "mcp"},
		{"日本語", "mcp"},
		{"owner", "mcp"},
		{"Person", "mcp"},
		{"a-very-long-client-name-that-goes-on-and-on-and-on", "a-very-long-client-name-that-goe"},
	}
	for _, tt := range tests {
		if got := mcpAgentName(tt.client); got != tt.want {
			t.Errorf("mcpAgentName(%q) = %q, want %q", tt.client, got, tt.want)
		}
	}
}
