package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

// verbCommands returns a command per verb; "cookies get|set|clear" are
// subcommands of cookies, which alone is get.
func (c *cli) verbCommands() []*cobra.Command {
	verbs := (&env{}).verbs()
	names := make([]string, 0, len(verbs))
	for name := range verbs {
		names = append(names, name)
	}
	sort.Strings(names)
	var cmds, cookies, space []*cobra.Command
	sub := map[string][]*cobra.Command{} // get …, is …
	for _, name := range names {
		v := verbs[name]
		if parent, _, ok := strings.Cut(name, " "); ok && (parent == "get" || parent == "is") {
			v.group = ""
			sub[parent] = append(sub[parent], c.verbCommand(name, v))
			continue
		}
		if strings.HasPrefix(name, "cookies ") {
			v.group = ""
			cookies = append(cookies, c.verbCommand(name, v))
			continue
		}
		if strings.HasPrefix(name, "space ") {
			v.group = ""
			space = append(space, c.verbCommand(name, v))
			continue
		}
		cmds = append(cmds, c.topVerb(name, v))
	}
	// Bare "cookies [NAME]" is "cookies get [NAME]".
	get := verbs["cookies get"]
	get.use = "cookies [NAME] | cookies get|set|clear …"
	get.short = "print, set or delete the tab's cookies"
	get.example = "  egohost cookies\n  egohost cookies set theme dark\n  egohost cookies clear session"
	parent := c.verbCommand("cookies get", get)
	parent.AddCommand(cookies...)
	// Bare "space" is "space list".
	list := verbs["space list"]
	list.use = "space | space list|new|use|claim|complete|close|take-over|hand-back|wait …"
	list.short = "an agent's spaces (tab groups); the person takes them over and hands them back"
	list.long = "A named agent (--agent NAME, $EGOHOST_AGENT) works in its own spaces: Chrome tab groups titled with\n" +
		"its name. Its tabs open there, its default tab is its space's last tab (never the person's), and\n" +
		"tabs outside its spaces are refused with not_in_space."
	list.example = "  egohost --agent alice space new --task 'compare prices' example.com\n  egohost space\n  egohost space take-over s1\n  egohost space hand-back s1"
	spaceCmd := c.verbCommand("space list", list)
	spaceCmd.AddCommand(space...)
	getCmd := &cobra.Command{
		Use:   "get text|html|value|attr|url|title|count|box …",
		Short: "read one thing: an element's text, HTML, value, attribute, box; the page's URL, title; a count",
		Long: "Reads one thing, in one call, without acting: TARGET is a @ref or a locator of one element\n" +
			"(count counts them). text, html, attr, url and title evaluate in the page (eval's grant);\n" +
			"value, count and box read in egohost's own world. --json: {\"tab\", the field}.",
		Example: "  egohost get text @12\n  egohost get attr 'role=link[name=\"Docs\"]' href\n  egohost get count 'role=listitem'\n  egohost get url",
		GroupID: "read",
		RunE:    subcommandArgs,
	}
	getCmd.AddCommand(sub["get"]...)
	isCmd := &cobra.Command{
		Use:     "is visible|enabled|checked TARGET",
		Short:   "ask an element's state: true or false",
		Long:    "Prints true or false (exit 0 either way; --json: {\"tab\", \"element\", the state}).",
		Example: "  egohost is visible 'text=Saved'\n  egohost is checked label=Subscribe",
		GroupID: "read",
		RunE:    subcommandArgs,
	}
	isCmd.AddCommand(sub["is"]...)
	return append(cmds, parent, spaceCmd, getCmd, isCmd)
}

// topVerb is the command of a verb that is a command of its own (not
// get …, is …, cookies …, space …).
func (c *cli) topVerb(name string, v verb) *cobra.Command {
	cmd := c.verbCommand(name, v)
	switch name {
	case "wait":
		c.addSleep(cmd)
	case "tab":
		c.addIndex(cmd)
	}
	return cmd
}

// onlyVerb is the one command a command line needs when it runs a verb
// that is a command of its own (egohost click @3 …): a call then builds
// that command alone, not the tree of a hundred (2 ms of a call's start).
// Any other line (help, a group, a mistake that wants suggestions, a
// global flag first) gets the whole tree (nil here).
func (c *cli) onlyVerb() *cobra.Command {
	if c.fullTree || len(c.args) == 0 || strings.Contains(c.args[0], " ") {
		return nil
	}
	for _, a := range c.args {
		if a == "--" {
			break
		}
		if a == "-h" || strings.HasPrefix(a, "--help") {
			return nil
		}
	}
	v, ok := (&env{}).verbs()[c.args[0]] // get …, cookies …: "get text", no "get"
	if !ok {
		return nil
	}
	return c.topVerb(c.args[0], v)
}

// versionOnly reports a command line that only asks for the version
// (--version, and --json): the root alone answers it.
func (c *cli) versionOnly() bool {
	if c.fullTree || len(c.args) == 0 {
		return false
	}
	for _, a := range c.args {
		if a != "--version" && a != "--json" && a != "--json=true" {
			return false
		}
	}
	return slices.Contains(c.args, "--version")
}

// subcommandArgs is the check of a command that is only a parent (get,
// is): a word that is none of its subcommands is a usage error with the
// closest ones.
func subcommandArgs(cmd *cobra.Command, args []string) error {

	if len(args) == 0 {
		return usageError(fmt.Sprintf("usage: egohost %s (see %s --help)", cmd.Use, cmd.CommandPath()))
	}
	msg := fmt.Sprintf("%s: unknown %q", cmd.CommandPath(), args[0])
	cmd.SuggestionsMinimumDistance = 2
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", strings.Join(s, " or "))
	}
	return usageError(msg + fmt.Sprintf(" (see %s --help)", cmd.CommandPath()))
}

// setupCommands are the commands that set up and run the chain.
func (c *cli) setupCommands() []*cobra.Command {
	serve := &cobra.Command{
		Use:   "serve",
		Short: "run the service in the foreground",
		Long: "Runs the egohost service: agents connect to ws://LISTEN/rpc with the token, relays\n" +
			"(started by the browser for the extension) on the socket. Under the OS's service manager\n" +
			"(install --service) it runs as a user service.",
		Args: nArgs(0, 0),
		RunE: c.hostOnly(c.with(func(ctx context.Context, e *env, _ *cobra.Command, _ []string) error {
			return c.host.Serve(ctx, e)
		})),
	}

	var launch LaunchOptions
	launchCmd := &cobra.Command{
		Use:   "launch [URL]",
		Short: "start Chromium/Chrome with the extension (and the service if none runs)",
		Long: "Starts the browser with the extension loaded, in its own profile, runs the service too if\n" +
			"none is running, and waits until the extension connects. It prints the new browser's ID and\n" +
			"ends the browser on Ctrl-C. Chromium's own messages stay hidden unless --verbose; when the\n" +
			"browser exits early, launch fails with its last words (e.g. the profile is in use).",
		Example: "  egohost launch\n  egohost launch --headless example.com\n  egohost launch --user-data-dir ~/work-profile",
		Args:    nArgs(0, 1),
		RunE: c.hostOnly(c.with(func(ctx context.Context, e *env, _ *cobra.Command, args []string) error {
			return c.host.Launch(ctx, e, launch, args)
		})),
	}
	launchCmd.Flags().BoolVar(&launch.Headless, "headless", false, "no window")
	launchCmd.Flags().StringVar(&launch.UserDataDir, "user-data-dir", "", "the browser profile `DIR` (default ~/.local/share/egohost/profile)")
	launchCmd.Flags().BoolVar(&launch.Verbose, "verbose", false, "show the browser's own messages")

	var inst InstallOptions
	installCmd := &cobra.Command{
		Use:   "install",
		Short: "register the native messaging host for every browser found (and the service); safe to run again",
		Example: "  egohost install\n  egohost install --browser chromium --service\n" +
			"  egohost install --user-data-dir ~/work-profile",
		Args: nArgs(0, 0),
		RunE: c.hostOnly(c.with(func(_ context.Context, e *env, _ *cobra.Command, _ []string) error {
			return c.host.Install(e, inst)
		})),
	}
	installCmd.Flags().StringVar(&inst.UserDataDir, "user-data-dir", "", "only this browser profile `DIR`")
	installCmd.Flags().StringVar(&inst.Browser, "browser", "", "only this browser (`NAME`: chrome, chromium, brave, edge, …)")
	installCmd.Flags().BoolVar(&inst.Service, "service", false, "install and start the per-user service too")
	installCmd.Flags().BoolVar(&inst.AllowTemporary, "allow-temporary", false, "point the manifest at a temporary build anyway")

	var uninst InstallOptions
	uninstallCmd := &cobra.Command{
		Use:   "uninstall",
		Short: "remove what install wrote",
		Args:  nArgs(0, 0),
		RunE: c.hostOnly(c.with(func(_ context.Context, e *env, _ *cobra.Command, _ []string) error {
			return c.host.Uninstall(e, uninst)
		})),
	}
	uninstallCmd.Flags().StringVar(&uninst.UserDataDir, "user-data-dir", "", "only this browser profile `DIR`")
	uninstallCmd.Flags().StringVar(&uninst.Browser, "browser", "", "only this browser (`NAME`)")
	uninstallCmd.Flags().BoolVar(&uninst.Service, "service", false, "remove the per-user service too")

	status := &cobra.Command{
		Use:   "status",
		Short: "is the service up, which browsers are connected",
		Args:  nArgs(0, 0),
		RunE: c.with(func(ctx context.Context, e *env, _ *cobra.Command, _ []string) error {
			return e.status(ctx)
		}),
	}

	var udds []string
	doctor := &cobra.Command{
		Use:   "doctor",
		Short: "check every link of the chain, each with its fix",
		Long: "Checks the binary, the host manifests, the configuration, the service, its port, the\n" +
			"files' permissions, the relay, the extension and the service unit; prints each as ✓ or ✗\n" +
			"with what to do. Exits 1 when a check fails.",
		Example: "  egohost doctor\n  egohost doctor --json --user-data-dir ~/work-profile",
		Args:    nArgs(0, 0),
		RunE: c.hostOnly(func(cmd *cobra.Command, _ []string) error {
			// Doctor runs without a loadable configuration: that is one of its checks.
			abs := make([]string, 0, len(udds))
			for _, d := range udds {
				a, err := filepath.Abs(d)
				if err != nil {
					return usageError(fmt.Sprintf("doctor --user-data-dir %q: %v", d, err))
				}
				abs = append(abs, a)
			}
			return c.host.Doctor(cmd.Context(), DoctorOptions{ConfigFile: c.cfgFile, JSON: c.asJSON, UserDataDirs: abs}, c.stdout, c.stderr)
		}),
	}
	doctor.Flags().StringArrayVar(&udds, "user-data-dir", nil, "also check this browser profile `DIR` (repeatable)")

	var headed bool
	demo := &cobra.Command{
		Use:   "demo",
		Short: "launch a throwaway browser, drive a page through the whole chain, exit",
		Args:  nArgs(0, 0),
		RunE: c.hostOnly(c.with(func(ctx context.Context, e *env, _ *cobra.Command, _ []string) error {
			return c.host.Demo(ctx, e, headed)
		})),
	}
	demo.Flags().BoolVar(&headed, "headed", false, "show the browser window")

	return []*cobra.Command{serve, launchCmd, installCmd, uninstallCmd, status, doctor, demo}
}
