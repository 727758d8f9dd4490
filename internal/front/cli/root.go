package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/egohost/egohost"
	"github.com/egohost/egohost/internal/server/spaces"
	"github.com/egohost/egohost/internal/setup/config"
	"github.com/egohost/egohost/protocol"
)

// buildVersion is egohost's version: version (the main package's, set at
// build time with -ldflags "-X main.version=v1.2.3"); else the module's
// version from the build info (go install …@v1.2.3); else egohost.Version.
func buildVersion(version string) string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return egohost.Version
}

// Options are what a binary passes to Run.
type Options struct {
	// Version is the main package's version variable (-ldflags "-X
	// main.version=…"; "" = the build info's or egohost.Version).
	Version string
	// Host runs the full binary's commands; nil (egohost) runs
	// egohost-host for them.
	Host Host
	// LoadConfig reads the configuration: viper in egohost-host (the
	// project's config reader, internal/setup/config/viperconfig); nil, config.Load,
	// which reads the same files with plain maps and does not link viper.
	LoadConfig func(config.Options) (*config.Config, error)
}

// cli is one run of the command line: its streams, the global flags and
// what the command loaded.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	cfgFile        string // --config
	agent          string // --agent, $EGOHOST_AGENT: the agent this command acts as ("" = the person)
	asJSON         bool   // --json: every output and every error is JSON
	// ran is set once cobra has parsed the command line and runs the
	// command: an error before that is a command-line mistake (exit 2).
	ran bool
	// args is the command line, for what must be known before cobra
	// parses it (--json for --version; the one verb it runs: onlyVerb).
	args []string
	// fullTree builds every command even for a verb's line (tests).
	fullTree bool
	// call, if set, takes a verb's call instead of the service (tests).
	call    func(verb string, params any) error
	version string
	// host runs the full binary's commands (nil: exec runs egohost-host).
	host Host
	// load reads the configuration (Options.LoadConfig).
	load func(config.Options) (*config.Config, error)
	// hostBinary finds egohost-host and exec runs it in place of this
	// process (nil: HostBinary and execHost; tests set their own).
	hostBinary func() (string, error)
	exec       func(path string, argv, env []string) error
}

// env loads the configuration and returns what a command works with.
func (c *cli) env() (*env, error) {
	cfg, err := LoadConfig(c.cfgFile, c.load)
	if err != nil {
		return nil, err
	}
	if c.agent != "" {
		if err := spaces.CheckName(c.agent); err != nil {
			return nil, usageError(fmt.Sprintf("--agent: %v", err))
		}
	}
	return &env{stdin: c.stdin, stdout: c.stdout, stderr: c.stderr, cfg: cfg, log: newLogger(c.stderr, cfg.LogLevel), json: c.asJSON, agent: c.agent, host: c.host}, nil
}

// with wraps a command's body: it loads the configuration first.
func (c *cli) with(f func(ctx context.Context, e *env, cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		e, err := c.env()
		if err != nil {
			return err
		}
		return f(cmd.Context(), e, cmd, args)
	}
}

const rootLong = `egohost: drive your own, logged-in browser from agents, scripts and the command line.

TARGET is a @ref from a snapshot (@12, not e12) or a locator: 'role=button[name="Save"]',
'text=Sign in', 'label=Email', '#id', 'css=li >> nth=2' (see docs/locators.md).
Durations take milliseconds (1500) or units (1.5s, 500ms), in flags and in EGOHOST_TIMEOUTS_*.
Exit codes: 0 done, 1 failed (the error names its code), 2 command-line mistake, 3 the service
stopped while the command waited for its answer. With --json every output and every error is
JSON: {"error":{"code":…,"name":…,"message":…}} on stdout.
Chrome starts "egohost chrome-extension://<id>/" itself: that is relay mode.`

// newRoot builds the command tree.
func (c *cli) newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:     "egohost",
		Short:   "drive your own, logged-in browser from agents, scripts and the command line",
		Long:    rootLong,
		Version: buildVersion(c.version),
		Example: `  egohost launch                 start a browser with the extension (and the service)
  egohost open example.com
  egohost snapshot -i
  egohost click @12
  egohost help click`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRun: func(*cobra.Command, []string) {
			c.ran = true
		},
	}
	// The line printVersion prints, as a template that prints itself.
	root.SetVersionTemplate(strings.ReplaceAll(versionLine(root.Version, envJSON() || jsonRequested(c.args)), "{{", "{{`{{`}}"))
	root.SetIn(c.stdin)
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.SetFlagErrorFunc(flagError)
	pf := root.PersistentFlags()
	pf.StringVar(&c.cfgFile, "config", "", "configuration file (default $EGOHOST_CONFIG or ~/.config/egohost/config.yaml)")
	pf.BoolVar(&c.asJSON, "json", envJSON(), "print results and errors as JSON (default $EGOHOST_JSON)")
	pf.StringVar(&c.agent, "agent", os.Getenv("EGOHOST_AGENT"), "act as the agent `NAME`, in its own spaces (default $EGOHOST_AGENT; none: you, on your active tab)")
	root.AddGroup(
		&cobra.Group{ID: "setup", Title: "Service and setup:"},
		&cobra.Group{ID: "tabs", Title: "Tabs and pages:"},
		&cobra.Group{ID: "act", Title: "Actions and waits (TARGET is a @ref or a locator):"},
		&cobra.Group{ID: "read", Title: "Reading the page:"},
		&cobra.Group{ID: "agents", Title: "Scripts and agents:"},
	)
	root.SetHelpCommand(helpCommand(root))
	root.SetHelpCommandGroupID("setup")
	root.SetCompletionCommandGroupID("setup")
	if only := c.onlyVerb(); only != nil {
		root.AddCommand(only)
		return root
	}
	for _, cmd := range c.setupCommands() {
		cmd.GroupID = "setup"
		root.AddCommand(cmd)
	}
	for _, cmd := range c.verbCommands() {
		root.AddCommand(cmd)
	}
	root.AddCommand(c.runCommand(), c.mcpCommand(), c.pairCommand(), c.agentsCommand(), c.confirmCommand(), c.auditCommand(), c.traceCommand(), c.guideCommand())
	return root
}

// Run runs one command line (args without the program's name) and
// returns its exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer, o Options) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, version: o.Version, host: o.Host, load: o.LoadConfig}
	// Relay mode: Chrome passes the caller's origin as the first argument
	// (and on Windows a --parent-window flag after it).
	if len(args) > 0 && strings.HasPrefix(args[0], "chrome-extension://") {
		c.args = args
		if c.host == nil {
			return c.exitCode(c.runHost("relay"))
		}
		return exitCode(stdout, stderr, false, c.host.Relay(args[0], stdin, stdout, stderr))
	}
	if c.args = args; c.versionOnly() {
		// Before the signal handler: printing the version needs none.
		return c.printVersion()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return c.execute(ctx, args)
}

// printVersion answers a command line that only asks for the version
// (versionOnly) as the root's version template does, without building or
// executing the command tree: what the template prints, with the
// template engine's start left out (docs/benchmarks.md, "What a CLI call
// costs").
func (c *cli) printVersion() int {
	if _, err := io.WriteString(c.stdout, versionLine(buildVersion(c.version), envJSON() || jsonRequested(c.args))); err != nil {
		return 1
	}
	return 0
}

// versionLine is what --version prints: "egohost VERSION", or with --json
// {"version": VERSION}.
func versionLine(version string, asJSON bool) string {
	if asJSON {
		v, _ := json.Marshal(version)
		return `{"version":` + string(v) + "}\n"
	}
	return "egohost " + version + "\n"
}

// exitCode is the exit code of err: the full binary's own when it ran
// as a child (Windows), else exitCode's, which prints err.
func (c *cli) exitCode(err error) int {
	if code, ok := hostExitCode(err); ok {
		return code
	}
	return exitCode(c.stdout, c.stderr, c.asJSON, err)
}

// execute runs one command line and returns its exit code.
func (c *cli) execute(ctx context.Context, args []string) int {
	c.args = args
	if c.versionOnly() {
		return c.printVersion()
	}
	root := c.newRoot()
	if cmd := c.onlyCommand(root); cmd != nil {
		if code, ran := c.runVerb(ctx, cmd, args[1:]); ran {
			return code
		}
		// A mistake on the command line: cobra words it, from a fresh tree
		// (newRoot binds the flags again, to their defaults).
		root = c.newRoot()
	}
	root.SetArgs(append([]string{}, args...)) // never nil: cobra would read os.Args
	_, err := root.ExecuteContextC(ctx)
	if err != nil && !c.ran {
		var ue usageError
		if !errors.As(err, &ue) {
			msg := err.Error()
			if strings.HasPrefix(msg, "unknown command") {
				msg = strings.TrimRight(msg, "\n") + "\n(see egohost --help)"
			}
			err = usageError(msg)
		}
		// --json may not have been parsed yet when the mistake came first.
		c.asJSON = c.asJSON || jsonRequested(args) || envJSON()
	}
	return c.exitCode(err)
}

// onlyCommand is the verb's command of a root that newRoot built for one
// verb's command line (onlyVerb), nil for any other root.
func (c *cli) onlyCommand(root *cobra.Command) *cobra.Command {
	if cmds := root.Commands(); len(cmds) == 1 && len(c.args) > 0 && cmds[0].Name() == c.args[0] && cmds[0].RunE != nil {
		return cmds[0]
	}
	return nil
}

// runVerb runs a verb's command with its arguments (the command line
// after the verb's name) as cobra's Execute would, without what Execute
// adds that a verb's line does not use: the completion and help commands
// and flags, the search of the tree, the usage templates. It parses the
// flags (the root's persistent ones too) and checks the arguments as
// Execute does; when either is a mistake it runs nothing and reports
// ran false, and the caller lets Execute word the mistake, so that a
// wrong line prints what it always did (TestOnlyVerbIsTheWholeTreesVerb).
func (c *cli) runVerb(ctx context.Context, cmd *cobra.Command, args []string) (code int, ran bool) {
	// Only a plain verb: its RunE and nothing of cobra's around it. A
	// command with its own hooks, or that parses its flags itself, goes
	// through Execute, which runs them.
	if cmd.RunE == nil || cmd.DisableFlagParsing || cmd.PreRun != nil || cmd.PreRunE != nil ||
		cmd.PostRun != nil || cmd.PostRunE != nil || cmd.PersistentPreRun != nil || cmd.PersistentPreRunE != nil ||
		cmd.PersistentPostRun != nil || cmd.PersistentPostRunE != nil {
		return 0, false
	}
	if err := cmd.ParseFlags(args); err != nil {
		return 0, false
	}
	args = cmd.Flags().Args()
	if cmd.ValidateArgs(args) != nil || cmd.ValidateRequiredFlags() != nil || cmd.ValidateFlagGroups() != nil {
		return 0, false
	}
	c.ran = true
	cmd.SetContext(ctx)
	return c.exitCode(cmd.RunE(cmd, args)), true
}

// jsonRequested reports whether --json is on the command line before any "--".
func jsonRequested(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "--json=true" {
			return true
		}
	}
	return false
}

// guideCommand is `egohost guide`: what an agent needs to know, for its
// AGENTS.md or CLAUDE.md; the MCP server sends the same text as its
// instructions.
func (c *cli) guideCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "guide",
		Short:   "print the guide for agents (refs, locators, waits, spaces, errors): for AGENTS.md, CLAUDE.md",
		Example: "  egohost guide >> AGENTS.md",
		GroupID: "agents",
		Args:    nArgs(0, 0),
		RunE: func(*cobra.Command, []string) error {
			if c.asJSON {
				return printJSON(c.stdout, map[string]string{"guide": protocol.Guide})
			}
			_, err := fmt.Fprintln(c.stdout, protocol.Guide)
			return err
		},
	}
}

// helpCommand is `egohost help [VERB…]`: the verb's help, or a usage
// error with suggestions for a verb that does not exist.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:     "help [command]",
		Short:   "help about any command",
		Example: "  egohost help click\n  egohost help cookies set",
		ValidArgsFunction: func(_ *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var names []cobra.Completion
			if len(args) == 0 {
				for _, c := range root.Commands() {
					if c.IsAvailableCommand() && strings.HasPrefix(c.Name(), prefix) {
						names = append(names, cobra.CompletionWithDesc(c.Name(), c.Short))
					}
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			target, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 {
				name := strings.Join(args, " ")
				msg := fmt.Sprintf("help: unknown command %q", name)
				if s := root.SuggestionsFor(args[0]); len(s) > 0 {
					msg += fmt.Sprintf("; did you mean %s?", strings.Join(s, " or "))
				}
				return usageError(msg + " (egohost --help lists them all)")
			}
			return target.Help()
		},
	}
}

// durationValue is a flag holding a duration: milliseconds (1500) or a
// Go duration (1.5s, 500ms).
type durationValue struct {
	d        *time.Duration
	positive bool
}

func newDuration(fs *pflag.FlagSet, name string, positive bool, usage string) *time.Duration {
	d := new(time.Duration)
	fs.Var(&durationValue{d: d, positive: positive}, name, usage)
	return d
}

func (v *durationValue) Set(s string) error {
	d, err := config.ParseDuration(s)
	switch {
	case err != nil:
		return errors.New("want milliseconds (1500) or a duration (500ms, 10s)")
	case v.positive && d <= 0:
		return errors.New("want a positive duration")
	case d < 0:
		return errors.New("must not be negative")
	}
	*v.d = d
	return nil
}

func (v *durationValue) String() string {
	if v.d == nil || *v.d == 0 {
		return ""
	}
	return v.d.String()
}

func (v *durationValue) Type() string { return "duration" }

// args returns a positional-args check with a usage error that shows
// the command's usage line.
func nArgs(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || (max >= 0 && len(args) > max) {
			return usageError(fmt.Sprintf("usage: %s (see %s --help)", cmd.UseLine(), cmd.CommandPath()))
		}
		return nil
	}
}

// optArg is the optional positional argument of a verb that takes at
// most one ("" when it is not given).
func optArg(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	return ""
}
