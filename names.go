package egohost

// Version is egohost's version when the build stamps none (the service
// reports it to agents and the extension; the CLI's --version falls back
// to it).
const Version = "0.1.0"

// The names of egohost's files in its data dir, which the service writes
// and the CLI reads (both binaries: the CLI must not link the service).
const (
	// AuditFile is the audit log (rotated to AuditFile.1, AuditFile.2, …).
	AuditFile = "audit.log"
	// TracesDir is the folder of the trace files.
	TracesDir = "traces"
	// AgentsDir is the folder of the paired agents' tokens that `egohost
	// pair` and `egohost mcp` keep: NAME.token, owner-only.
	AgentsDir = "agents"
)
