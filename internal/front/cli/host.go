package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/egohost/egohost/internal/front/hostexec"
	"github.com/egohost/egohost/protocol"
)

// Host runs the commands that link what a client verb must not pay for at
// every start (Go initialises every package a binary links): the service,
// the relay, the MCP SDK, the OS's service manager, the browser launcher.
// egohost-host passes one; egohost passes nil and runs egohost-host for
// them instead (HostBinary), with the same arguments and environment.
type Host interface {
	// Relay is relay mode: Chrome started the binary for an extension
	// (origin is chrome-extension://ID/).
	Relay(origin string, stdin io.Reader, stdout, stderr io.Writer) error
	Serve(ctx context.Context, e *Env) error
	Launch(ctx context.Context, e *Env, o LaunchOptions, args []string) error
	Install(e *Env, o InstallOptions) error
	Uninstall(e *Env, o InstallOptions) error
	// Doctor runs without a loadable configuration: that is one of its
	// checks.
	Doctor(ctx context.Context, o DoctorOptions, stdout, stderr io.Writer) error
	Demo(ctx context.Context, e *Env, headed bool) error
	MCP(ctx context.Context, e *Env, o MCPOptions) error
	// AgentTokenPath is where `egohost pair` keeps NAME's token (it moves
	// one an older egohost left in the state dir first).
	AgentTokenPath(e *Env, name string) string
	// PairRequest asks the service at addr (host:port) to pair an agent
	// and waits for the person's answer: over the WebSocket, as the agent
	// socket admits only connections with a token.
	PairRequest(ctx context.Context, addr string, p protocol.PairRequestParams) (*protocol.PairRequestResult, error)
	// TraceHTML reads the trace file at path and returns it as one HTML
	// page (`trace show`), with its number of steps: html/template is
	// the full binary's.
	TraceHTML(path string) (page []byte, steps int, err error)
}

// LaunchOptions are `egohost launch`'s flags.
type LaunchOptions struct {
	Headless    bool
	UserDataDir string
	Verbose     bool // the browser's own stderr to ours
}

// InstallOptions are `egohost install`'s and `uninstall`'s flags.
type InstallOptions struct {
	UserDataDir    string
	Browser        string
	Service        bool
	AllowTemporary bool
}

// DoctorOptions are `egohost doctor`'s flags.
type DoctorOptions struct {
	ConfigFile   string   // --config
	JSON         bool     // --json
	UserDataDirs []string // --user-data-dir, absolute
}

// MCPOptions are `egohost mcp`'s flags, checked by the Host.
type MCPOptions struct {
	HTTP          string
	Name          string
	Scopes        []string
	Owner         bool
	MaxChars      int
	FullSnapshots bool
	Caps          []string
	Tools         []string
}

// HostName is the file name of the full binary, which egohost runs for
// the commands it does not have.
func HostName(goos string) string {
	if goos == "windows" {
		return "egohost-host.exe"
	}
	return "egohost-host"
}

// Self is the running binary's absolute, symlink-free path.
func Self() (string, error) {
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return "", fmt.Errorf("find own binary: %w", err)
	}
	return self, nil
}

// HostBinary is the full binary beside the running one (the same folder,
// symlinks resolved): egohost-host, the binary the service, Chrome's
// native messaging manifest and the service unit run.
func HostBinary() (string, error) {
	self, err := Self()
	if err != nil {
		return "", fmt.Errorf("find egohost-host: %w", err)
	}
	return filepath.Join(filepath.Dir(self), HostName(runtime.GOOS)), nil
}

// errNoHost is a host-only command run where no egohost-host is beside
// egohost.
type errNoHost struct {
	command string
	err     error // names where it looked
}

func (e *errNoHost) Error() string {
	return fmt.Sprintf("egohost %s runs the full binary, egohost-host, which is not beside egohost: %v\n"+
		"install both: CGO_ENABLED=0 go install ./cmd/... (in a clone; or github.com/egohost/egohost/cmd/...@latest),\n"+
		"or build both into one folder: CGO_ENABLED=0 go build -o ~/.local/bin/ ./cmd/egohost ./cmd/egohost-host", e.command, e.err)
}

func (e *errNoHost) Unwrap() error { return e.err }

// runHost runs the full binary in place of this process for a command
// only it has, with the same arguments and environment; it returns only
// when that fails.
func (c *cli) runHost(command string) error {
	find, exec := c.hostBinary, c.exec
	if find == nil {
		find = HostBinary
	}
	if exec == nil {
		exec = execHost
	}
	path, err := find()
	if err == nil {
		_, err = os.Stat(path)
	}
	if err != nil {
		return &errNoHost{command: command, err: err}
	}
	argv := append([]string{path}, c.args...)
	if err := exec(path, argv, os.Environ()); err != nil {
		return fmt.Errorf("egohost %s: run %s: %w", command, path, err)
	}
	return nil
}

// hostOnly is the body of a command only the full binary has: the Host's
// when there is one, else the full binary's run.
func (c *cli) hostOnly(run func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if c.host == nil {
			return c.runHost(strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "))
		}
		return run(cmd, args)
	}
}

// execHost runs the full binary in place of this process
// (hostexec.Exec); where it ran as a child instead, its exit code comes
// back as errHostExited.
func execHost(path string, argv, env []string) error {
	code, exited, err := hostexec.Exec(path, argv, env)
	if exited {
		return &errHostExited{code: code}
	}
	return err
}

// errHostExited is the exit code of the full binary run as a child (on
// Windows, where a process cannot be replaced): egohost exits with it.
type errHostExited struct{ code int }

func (e *errHostExited) Error() string { return fmt.Sprintf("egohost-host exited with %d", e.code) }

// hostExitCode is the code the full binary exited with, if err says it.
func hostExitCode(err error) (int, bool) {
	var he *errHostExited
	if errors.As(err, &he) {
		return he.code, true
	}
	return 0, false
}
