// Command egohost-host is the full egohost binary: the service, relay
// mode (Chrome starts it for the extension), install, launch, doctor, the
// MCP server, and every client verb of egohost too, with the same help.
// egohost runs it for the commands it does not have; install registers
// it (the native messaging manifest, the service unit), so it is what
// Chrome and the OS's service manager run.
//
//	egohost-host serve                       run the service in the foreground
//	egohost-host chrome-extension://<id>/    relay mode (Chrome starts this)
//	egohost-host install ...                 register the native host, the service
//	egohost-host launch ...                  start a browser with the extension
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/internal/front/cli"
	"github.com/egohost/egohost/internal/server/privfile"
	"github.com/egohost/egohost/internal/server/service"
	"github.com/egohost/egohost/internal/server/trace"
	"github.com/egohost/egohost/internal/setup/config"
	"github.com/egohost/egohost/internal/setup/config/viperconfig"
	"github.com/egohost/egohost/protocol"
)

// version is egohost's version, set at build time with
// -ldflags "-X main.version=v1.2.3" (cli.Options.Version).
var version = ""

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run runs one command line with every command in this process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Run(args, stdin, stdout, stderr, cli.Options{Version: version, Host: host{}, LoadConfig: viperconfig.Load})
}

// host is cli.Host: the commands only the full binary has.
type host struct{}

// env is a command's cli.Env with the fields this binary's commands read.
type env struct {
	*cli.Env
	stdin          io.Reader
	stdout, stderr io.Writer
	cfg            *config.Config
	log            *slog.Logger
	json           bool
}

func newEnv(e *cli.Env) *env {
	return &env{Env: e, stdin: e.Stdin(), stdout: e.Stdout(), stderr: e.Stderr(), cfg: e.Config(), log: e.Log(), json: e.JSON()}
}

func (host) Relay(origin string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runRelay(origin, stdin, stdout, stderr)
}

func (host) Serve(ctx context.Context, e *cli.Env) error { return newEnv(e).serve(ctx) }

func (host) Launch(ctx context.Context, e *cli.Env, o cli.LaunchOptions, args []string) error {
	return newEnv(e).launch(ctx, chainOptions{headless: o.Headless, userDataDir: o.UserDataDir, verbose: o.Verbose}, args)
}

func (host) Install(e *cli.Env, o cli.InstallOptions) error {
	return newEnv(e).runInstall(installOptionsOf(o))
}

func (host) Uninstall(e *cli.Env, o cli.InstallOptions) error {
	return newEnv(e).runUninstall(installOptionsOf(o))
}

func installOptionsOf(o cli.InstallOptions) installOptions {
	return installOptions{userDataDir: o.UserDataDir, browser: o.Browser, service: o.Service, allowTemporary: o.AllowTemporary}
}

func (host) Doctor(ctx context.Context, o cli.DoctorOptions, stdout, stderr io.Writer) error {
	return doctorCmd(ctx, o.ConfigFile, o.JSON, o.UserDataDirs, stdout, stderr)
}

func (host) Demo(ctx context.Context, e *cli.Env, headed bool) error {
	return newEnv(e).demo(ctx, headed)
}

func (host) AgentTokenPath(e *cli.Env, name string) string { return newEnv(e).agentTokenPath(name) }

func (host) PairRequest(ctx context.Context, addr string, p protocol.PairRequestParams) (*protocol.PairRequestResult, error) {
	return client.Pair(ctx, addr, p, client.Options{})
}

func (host) TraceHTML(path string) ([]byte, int, error) {
	t, err := trace.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	var page bytes.Buffer
	if err := trace.WriteHTML(&page, t, filepath.Base(path)); err != nil {
		return nil, 0, err
	}
	return page.Bytes(), len(t.Steps), nil
}

// agentTokenPath is where `egohost pair` and `egohost mcp` keep a paired
// agent's token: <data_dir>/agents/NAME.token (owner-only), which outlives
// a logout. A token an older egohost left in <state_dir>/agents is moved
// there first (the service moves them all when it starts).
func (e *env) agentTokenPath(name string) string {
	path := filepath.Join(e.cfg.DataDir, service.AgentsDir, name+".token")
	old := filepath.Join(e.cfg.StateDir, service.AgentsDir, name+".token")
	if old != path {
		if moved, err := privfile.Move(old, path); err != nil {
			fmt.Fprintf(e.stderr, "egohost: %v\n", err)
		} else if moved {
			fmt.Fprintf(e.stderr, "egohost: moved the agent token %s to %s (the runtime folder is wiped at logout)\n", old, path)
		}
	}
	return path
}
