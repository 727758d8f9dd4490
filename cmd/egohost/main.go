// Command egohost is the egohost native host, service and CLI.
//
//	egohost serve                       run the service in the foreground
//	egohost chrome-extension://<id>/    relay mode (Chrome starts this)
//	egohost install ...                 register the native host, the service
//	egohost launch ...                  start a browser with the extension
//	egohost tabs | open | cdp ...       talk to the running service
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/egohost/egohost/config"
	"github.com/egohost/egohost/protocol"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// env is what every command gets: its streams and the loaded configuration.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	cfg            *config.Config
	log            *slog.Logger
}

const usage = `egohost: drive your own, logged-in browser from agents, scripts and the command line.

Service and setup:
  egohost serve                          run the service in the foreground
  egohost launch [--headless] [--user-data-dir DIR] [URL]
                                         start Chromium/Chrome with the extension; runs the
                                         service too if none is running
  egohost install [--user-data-dir DIR] [--browser NAME] [--service] [--allow-temporary]
                                         register the native messaging host for every browser
                                         found (and the service); safe to run again
  egohost uninstall [--browser NAME] [--service]
                                         remove what install wrote
  egohost status                         is the service up, which browsers are connected
  egohost doctor [--json] [--user-data-dir DIR]
                                         check every link of the chain (binary, host manifests,
                                         service, port, permissions, relay, extension, unit)
  egohost demo [--headed]                launch, drive a page through the whole chain, exit
  egohost mcp [--http 127.0.0.1:PORT]    MCP server (stdio, or streamable HTTP with the token)
                                         for agents, over the running service

Talking to the running service (common flags: --browser ID, --tab ID (default: the active
tab), --json, --timeout D (the verb's wait; default timeouts.action)):
  egohost tabs | tab ID | tab --index N | close  list, select (by ID or position), close tabs
  egohost open URL [--until S] [--no-wait]       open a tab and wait for its load (like goto);
                                                 example.com means https://, localhost:3000 http://
  egohost snapshot [-i] [--scope X] [--viewport] [--max N] [--start N] [--diff]
  egohost resolve TARGET [--wait]                count and list what TARGET matches
  egohost click|dblclick|rightclick|hover|focus|check|uncheck TARGET [--force] [--no-settle]
  egohost fill TARGET TEXT [--append]            egohost type [TARGET] TEXT
  egohost press KEY [--target TARGET]            egohost select TARGET VALUE… [--by value|label|index]
  egohost drag FROM TO                           egohost upload TARGET FILE…
  egohost scroll TARGET | scroll [TARGET] --dy N
  egohost wait TARGET [--state S] | --text T [--gone] | --url P | --load L | --fn JS | --ms N
  egohost goto URL [--until load|domcontentloaded|networkidle]    egohost back|forward|reload
  egohost eval JS                                egohost screenshot FILE [--full] [--target TARGET]
  egohost dialog accept [TEXT] | dialog dismiss  egohost download [--click TARGET]
  egohost cdp METHOD [PARAMS_JSON]               send one CDP command, print its result
  egohost run [FILE|-] [--file PATH]… [--out DIR]
                                         run a Playwright-shaped script (stdin by default) in the
                                         service's sandbox: one call, prints what it logs
  egohost console [--level L] [--clear]          egohost network [--static] [--clear]
  egohost cookies [get [NAME] | set NAME VALUE [--domain D] [--path P] | clear [NAME]]
Durations take milliseconds (1500) or units (1.5s, 500ms), in flags and in EGOHOST_TIMEOUTS_*.
TARGET is a @ref from a snapshot (@12, not e12) or a locator: 'role=button[name="Save"]', 'text=Sign in',
'label=Email', '#id', 'css=li >> nth=2' (see docs/locators.md).

Global flags: --config FILE (default $EGOHOST_CONFIG or ~/.config/egohost/config.yaml)
Exit codes: 0 done, 1 failed (the error names its code), 2 command-line mistake, 3 the service
stopped while the command waited for its answer.
Chrome starts "egohost chrome-extension://<id>/" itself: that is relay mode.
`

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Relay mode: Chrome passes the caller's origin as the first argument
	// (and on Windows a --parent-window flag after it).
	if len(args) > 0 && strings.HasPrefix(args[0], "chrome-extension://") {
		return exitCode(stderr, runRelay(args[0], stdin, stdout, stderr))
	}
	cfgFile, args := takeFlag(args, "--config")
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if args[0] == "doctor" { // it reports a bad configuration as one of its checks
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return exitCode(stderr, doctorCmd(ctx, cfgFile, args[1:], stdout, stderr))
	}
	cfg, err := loadConfig(cfgFile)
	if err != nil {
		return exitCode(stderr, err)
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, cfg: cfg, log: newLogger(stderr, cfg.LogLevel)}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	cmd, rest := args[0], args[1:]
	var cerr error
	switch cmd {
	case "serve":
		cerr = e.serve(ctx, rest)
	case "install":
		cerr = e.install(rest)
	case "uninstall":
		cerr = e.uninstall(rest)
	case "launch":
		cerr = e.launch(ctx, rest)
	case "demo":
		cerr = e.demo(ctx, rest)
	case "status":
		cerr = e.status(ctx, rest)
	case "wait":
		cerr = e.wait(ctx, rest)
	case "tab":
		cerr = e.tab(ctx, rest)
	case "run":
		cerr = e.runScript(ctx, rest)
	case "mcp":
		cerr = e.mcp(ctx, rest)
	default:
		cmd, rest = subVerb(cmd, rest)
		verb, ok := e.verbs()[cmd]
		if !ok {
			fmt.Fprintf(stderr, "egohost: unknown command %q\n\n%s", cmd, usage)
			return 2
		}
		cerr = e.callVerb(ctx, verb, rest)
	}
	return exitCode(stderr, cerr)
}

func loadConfig(file string) (*config.Config, error) {
	home, _ := os.UserHomeDir()
	return config.Load(config.Options{File: file, Getenv: os.Getenv, Home: home})
}

// exitCode prints err (if any) and returns the process exit code.
func exitCode(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, errReported) {
		return 1
	}
	var pe *protocol.Error
	if errors.As(err, &pe) {
		fmt.Fprintf(stderr, "egohost: %v\n", err)
		return 1
	}
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "egohost: %v\n", err)
		return 2
	}
	var le *serviceLostError
	if errors.As(err, &le) {
		fmt.Fprintf(stderr, "egohost: %v\n", err)
		return exitServiceLost
	}
	fmt.Fprintf(stderr, "egohost: %v\n", err)
	return 1
}

// exitServiceLost is the exit code of a command whose call the service
// never answered because it stopped mid-call.
const exitServiceLost = 3

// usageError is a mistake in the command line (exit code 2).
type usageError string

func (u usageError) Error() string { return string(u) }

// takeFlag removes "--name value" or "--name=value" from args and returns the value.
func takeFlag(args []string, name string) (string, []string) {
	out := make([]string, 0, len(args))
	val := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == name && i+1 < len(args):
			val = args[i+1]
			i++
		case strings.HasPrefix(a, name+"="):
			val = strings.TrimPrefix(a, name+"=")
		default:
			out = append(out, a)
		}
	}
	return val, out
}

// takeBool removes "--name" from args and reports whether it was there.
func takeBool(args []string, name string) (bool, []string) {
	out := make([]string, 0, len(args))
	found := false
	for _, a := range args {
		if a == name {
			found = true
			continue
		}
		out = append(out, a)
	}
	return found, out
}
