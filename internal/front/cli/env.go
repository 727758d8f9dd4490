// Package cli is egohost's command line: the command tree and its help,
// and the client verbs (each one call to the running service). Both
// binaries build from it, so their help reads the same: egohost
// (cmd/egohost) runs the client verbs in its own process and links
// nothing heavy; egohost-host (cmd/egohost-host) passes a Host with the
// commands that link the service, the MCP SDK, the OS's service manager
// (serve, relay mode, install, launch, doctor, demo, mcp, pair, trace show), which
// egohost runs by executing egohost-host (host.go).
package cli

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/egohost/egohost/internal/rpcclient"
	"github.com/egohost/egohost/internal/setup/config"
	"github.com/egohost/egohost/protocol"
)

// env is what every command gets: its streams and the loaded configuration.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	cfg            *config.Config
	log            *slog.Logger
	json           bool   // --json
	agent          string // --agent: the agent name sent to the service ("" = the person)
	host           Host   // the full binary's commands (nil in egohost)
}

// Env is what a Host's command gets: its streams, the loaded
// configuration and the CLI's way to reach the service.
type Env = env

// NewEnv returns the Env of a command that runs without a loadable
// configuration (doctor checks against the defaults then).
func NewEnv(stdout, stderr io.Writer, cfg *config.Config) *Env {
	return &env{stdin: os.Stdin, stdout: stdout, stderr: stderr, cfg: cfg, log: newLogger(stderr, cfg.LogLevel)}
}

// Stdin is the command's standard input.
func (e *env) Stdin() io.Reader { return e.stdin }

// Stdout is the command's standard output.
func (e *env) Stdout() io.Writer { return e.stdout }

// Stderr is the command's standard error.
func (e *env) Stderr() io.Writer { return e.stderr }

// Config is the loaded configuration.
func (e *env) Config() *config.Config { return e.cfg }

// Log is the command's logger (to stderr, at the configuration's level).
func (e *env) Log() *slog.Logger { return e.log }

// JSON reports --json: every output and every error is JSON.
func (e *env) JSON() bool { return e.json }

// ServiceAddr is where the service listens (its state file, else the
// configuration's listen address).
func (e *env) ServiceAddr() string { return e.serviceAddr() }

// ReadState reads the running service's state file, if any.
func (e *env) ReadState() (protocol.ServiceState, bool) { return e.readState() }

// readState reads the running service's state file, if any.
func (e *env) readState() (protocol.ServiceState, bool) { return rpcclient.ReadState(e.cfg.StateDir) }

// LoadConfig loads the configuration as every command does, with load
// (nil: config.Load): file (from --config) or $EGOHOST_CONFIG or the
// default file, then the environment.
func LoadConfig(file string, load func(config.Options) (*config.Config, error)) (*config.Config, error) {
	if load == nil {
		load = config.Load
	}
	home, _ := os.UserHomeDir()
	return load(config.Options{File: file, Getenv: os.Getenv, Home: home})
}

// exitServiceLost is the exit code of a command whose call the service
// never answered because it stopped mid-call.
const exitServiceLost = 3

// usageError is a mistake in the command line (exit code 2).
type usageError string

func (u usageError) Error() string { return string(u) }

// UsageError is a mistake in the command line: it exits with code 2.
func UsageError(msg string) error { return usageError(msg) }

// newLogger logs to w at level, as text.
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// NewLogger logs to w at level, as text (every command's logger).
func NewLogger(w io.Writer, level slog.Level) *slog.Logger { return newLogger(w, level) }

// ErrReported fails a command whose output already said why (exit 1,
// nothing more printed).
var ErrReported = reportedError{}

type reportedError struct{}

func (reportedError) Error() string { return "" }

// Dial connects to the service as the command's agent (--agent; the
// owner token, or $EGOHOST_AGENT_TOKEN_FILE's).
func (e *env) Dial(ctx context.Context) (*rpcclient.Client, error) { return e.dial(ctx) }

// PrintJSON prints v as the CLI's --json output.
func PrintJSON(w io.Writer, v any) error { return printJSON(w, v) }

// Clip cuts s to n characters, marking the cut.
func Clip(s string, n int) string { return clip(s, n) }

// Agent is --agent: the agent this command acts as ("" = the person).
func (e *env) Agent() string { return e.agent }

// DialWith connects to the service with the token tok as the agent name.
func (e *env) DialWith(ctx context.Context, tok, agent string) (*rpcclient.Client, error) {
	return e.dialWith(ctx, tok, agent)
}

// PairAs asks the service to pair name with scopes and waits up to wait
// for the person's answer; the token comes back.
func (e *env) PairAs(ctx context.Context, name string, scopes []string, wait time.Duration) (*protocol.PairRequestResult, error) {
	return e.pairAs(ctx, name, scopes, wait)
}

// WriteAgentToken stores a paired token at path, owner-only.
func WriteAgentToken(path, token string) error { return writeAgentToken(path, token) }
