package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/egohost/egohost/internal/rpcclient"
	"github.com/egohost/egohost/protocol"
)

// verb is a CLI command that is one call to the running service.
type verb struct {
	use     string // the usage line after "egohost ", e.g. "click TARGET"
	short   string // one line for the list of commands
	long    string // more, for the verb's --help (optional)
	example string
	group   string // the help's group: tabs, act, read
	args    cobra.PositionalArgs
	method  string
	// flags declares the verb's own flags on fs and returns what builds
	// the call's params once the command line is parsed.
	flags func(fs *pflag.FlagSet) paramsFunc
	// human prints the result for people (--json prints it raw); printAs
	// makes one from a printer of the decoded result.
	human func(w io.Writer, raw json.RawMessage) error
	// jsonParams, if set, adjusts the params when --json is given.
	jsonParams func(params any) any
	// prepare, if set, does the CLI's part before the call (upload on a
	// paired token reads the files: localfiles.go); finish after it, with
	// the answer (screenshot writes the file).
	prepare func(e *env, params any) (any, error)
	finish  func(e *env, params any, raw json.RawMessage) (json.RawMessage, error)
	// first, if set, names a call made before the verb's own on the same
	// connection, and what its answer says: done (the verb's answer, and
	// the verb's own call is not made) or not (`is visible`: an element
	// that is not there is not visible).
	first func(params any) (method string, firstParams any, done func(json.RawMessage) (json.RawMessage, bool))
}

// paramsFunc builds a call's params from the common flags and the
// positional args.
type paramsFunc func(c common, args []string) (any, error)

// common are the flags every verb takes: --browser, --tab, --timeout.
type common struct {
	protocol.Target
	timeout time.Duration // --timeout, the verb's own wait (0 = the service's default)
}

// timeoutMs is --timeout in milliseconds (0 = the service's default), for
// the verbs whose params carry a timeoutMs.
func (c common) timeoutMs() int { return int(c.timeout.Milliseconds()) }

// noFlags is a verb's flags when it has none of its own.
func noFlags(build paramsFunc) func(*pflag.FlagSet) paramsFunc {
	return func(*pflag.FlagSet) paramsFunc { return build }
}

// verbs returns every client verb: the core ones below and those other
// files add (one file per capability).
func (e *env) verbs() map[string]verb {
	all := make(map[string]verb)
	for _, group := range []map[string]verb{coreVerbs(), snapshotVerbs(), resolveVerbs(), actionVerbs(), recordVerbs(), spaceVerbs(), readVerbs()} {
		for name, v := range group {
			all[name] = v
		}
	}
	return all
}

func coreVerbs() map[string]verb {
	return map[string]verb{
		"tabs": {
			use: "tabs", short: "list the tabs (# is the position for tab --index)", group: "tabs",
			args: nArgs(0, 0), method: protocol.MethodTabsList,
			flags: noFlags(func(c common, _ []string) (any, error) {
				return protocol.TabsListParams{Browser: c.Browser}, nil
			}),
			human: printTabs,
		},
		"open": {
			use: "open URL", short: "open a tab and wait for its load (like goto)", group: "tabs",
			long: "Opens URL in a new tab, selects it and waits for its load.\nexample.com means https://example.com, localhost:3000 means http://localhost:3000.\n" +
				"An agent (--agent) whose space has an empty tab (about:blank, the new tab page) gets the URL\n" +
				"loaded there instead of another tab, and is told so: reused the space's empty tab N.",
			example: "  egohost open example.com\n  egohost open localhost:3000/login --until networkidle\n  egohost open https://example.com --no-wait",
			args:    nArgs(1, 1), method: protocol.MethodTabsOpen,
			flags: func(fs *pflag.FlagSet) paramsFunc {
				until := untilFlag(fs)
				noWait := fs.Bool("no-wait", false, "return as soon as the tab exists")
				return func(c common, args []string) (any, error) {
					p := protocol.TabsOpenParams{Browser: c.Browser, URL: args[0], Until: *until, NoWait: *noWait, TimeoutMs: c.timeoutMs()}
					if p.NoWait && (p.Until != "" || p.TimeoutMs != 0) {
						return nil, usageError("open: --no-wait excludes --until and --timeout")
					}
					return p, nil
				}
			},
			human: printAs(func(w io.Writer, r protocol.TabResult) error {
				opened := fmt.Sprintf("opened tab %d", r.Tab.ID)
				if r.Reused {
					opened = fmt.Sprintf("reused the space's empty tab %d", r.Tab.ID)
				}
				if r.Nav == nil { // --no-wait, or about:blank
					_, err := fmt.Fprintf(w, "%s: %s\n", opened, r.Tab.URL)
					return err
				}
				fmt.Fprintf(w, "%s: ", opened)
				return printNavResult(w, *r.Nav)
			}),
		},
		"close": {
			use: "close", short: "close the tab (--tab ID, default the selected one)", group: "tabs",
			example: "  egohost close\n  egohost close --tab 123",
			args:    nArgs(0, 0), method: protocol.MethodTabsClose,
			flags: noFlags(func(c common, _ []string) (any, error) {
				return protocol.TabParams{Target: c.Target}, nil
			}),
			human: func(w io.Writer, raw json.RawMessage) error {
				var r struct{ Tab int }
				json.Unmarshal(raw, &r)
				_, err := fmt.Fprintf(w, "closed tab %d\n", r.Tab)
				return err
			},
		},
		"tab": {
			use: "tab ID | tab --index N", short: "select a tab by Chrome tab ID, or by position with --index", group: "tabs",
			long:    "Selects the tab the next commands act on: by its Chrome tab ID (the TAB column of\n`egohost tabs`), or by its position with --index (the # column, from 0).",
			example: "  egohost tab 1234567\n  egohost tab --index 0",
			args:    nArgs(0, 1), method: protocol.MethodTabsSelect,
			flags: func(fs *pflag.FlagSet) paramsFunc {
				return func(c common, args []string) (any, error) {
					if fs.Changed("tab") {
						return nil, usageError("usage: egohost tab ID | tab --index N (the ID is the tab; --tab is not needed)")
					}
					if len(args) != 1 {
						return nil, usageError("usage: egohost tab ID | tab --index N")
					}
					id, err := strconv.Atoi(args[0])
					if err != nil {
						return nil, usageError(fmt.Sprintf("tab: %q is not a tab ID (by position: egohost tab --index N)", args[0]))
					}
					c.Tab = id
					return protocol.TabParams{Target: c.Target}, nil
				}
			},
			human: printAs(func(w io.Writer, r protocol.TabResult) error {
				_, err := fmt.Fprintf(w, "selected tab %d: %s\n", r.Tab.ID, r.Tab.URL)
				return err
			}),
		},
		"cdp": {
			use: "cdp METHOD [PARAMS_JSON]", short: "send one CDP command, print its result", group: "read",
			example: "  egohost cdp Page.reload\n  egohost cdp Runtime.evaluate '{\"expression\":\"1+1\"}'",
			args:    nArgs(1, 2), method: protocol.MethodCDPSend,
			flags: noFlags(func(c common, args []string) (any, error) {
				p := protocol.CDPSendParams{Target: c.Target, Method: args[0], TimeoutMs: c.timeoutMs()}
				if len(args) == 2 {
					if !json.Valid([]byte(args[1])) {
						return nil, usageError(fmt.Sprintf("cdp: PARAMS_JSON is not valid JSON: %s", args[1]))
					}
					p.Params = json.RawMessage(args[1])
				}
				return p, nil
			}),
			human: printIndented,
		},
	}
}

func printIndented(w io.Writer, raw json.RawMessage) error {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		_, err = w.Write(raw)
		return err
	}
	buf.WriteByte('\n')
	_, err := w.Write(buf.Bytes())
	return err
}

func printTabs(w io.Writer, raw json.RawMessage) error {
	var r protocol.TabsListResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tTAB\tACTIVE\tATTACHED\tTITLE\tURL")
	for i, t := range r.Tabs {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\n", i, t.ID, yes(t.Active), yes(t.Attached), clip(t.Title, 40), t.URL)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, b := range r.Reconnecting {
		fmt.Fprintf(w, "browser %s: %s\n", b.ID, reconnectingWords(b))
	}
	return nil
}

// reconnectingWords says how long a reconnecting browser has been gone.
func reconnectingWords(b protocol.Browser) string {
	gone := (time.Duration(b.GoneMs) * time.Millisecond).Round(100 * time.Millisecond)
	return fmt.Sprintf("reconnecting, gone for %v (its tabs are listed once it is back; the extension's popup shows why it is down)", gone)
}

func yes(b bool) string {
	if b {
		return "*"
	}
	return ""
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// verbCommand makes a verb's command: its own flags, the common ones,
// and a run that calls the service and prints the result.
func (c *cli) verbCommand(name string, v verb) *cobra.Command {
	cmd := &cobra.Command{
		Use:     v.use,
		Short:   v.short,
		Long:    v.long,
		Example: v.example,
		GroupID: v.group,
		Args:    v.args,
	}
	if cmd.Long != "" {
		cmd.Long = strings.ToUpper(v.short[:1]) + v.short[1:] + ".\n\n" + v.long
	}
	fs := cmd.Flags()
	build := v.flags(fs)
	co := commonFlags(fs)
	c.completeFlags(cmd)
	cmd.RunE = c.with(func(ctx context.Context, e *env, cmd *cobra.Command, args []string) error {
		cm, err := co()
		if err != nil {
			return err
		}
		params, err := build(cm, args)
		if err != nil {
			return err
		}
		if err := checkParams(cmd, params); err != nil {
			return err
		}
		if c.call != nil {
			return c.call(name, params)
		}
		return e.callVerb(ctx, name, v, cm.timeout, params)
	})
	return cmd
}

// commonFlags declares --browser, --tab and --timeout on fs.
func commonFlags(fs *pflag.FlagSet) func() (common, error) {
	browser := fs.String("browser", "", "the browser `ID` (see egohost status; needed when several are connected)")
	tab := fs.String("tab", "", "the tab `ID` (default: a @ref's own tab, else the selected one)")
	timeout := newDuration(fs, "timeout", true, "the verb's own wait (default timeouts.action)")
	return func() (common, error) {
		c := common{Target: protocol.Target{Browser: *browser}, timeout: *timeout}
		if *tab != "" {
			id, err := strconv.Atoi(*tab)
			if err != nil {
				return c, usageError(fmt.Sprintf("--tab %q is not a tab ID", *tab))
			}
			c.Tab = id
		}
		return c, nil
	}
}

// callVerb calls the service and prints the result.
func (e *env) callVerb(ctx context.Context, name string, v verb, timeout time.Duration, params any) error {
	if e.json && v.jsonParams != nil {
		params = v.jsonParams(params)
	}
	if v.prepare != nil {
		var err error
		if params, err = v.prepare(e, params); err != nil {
			return err
		}
	}
	// --timeout is the verb's own wait; the service gives the call the
	// request deadline, or the wait when longer. The client waits a little
	// more, so that the service's answer (with the wait's last cause, or
	// what held the call) arrives before the client gives up.
	d := max(timeout, e.cfg.Timeouts.Request) + 5*time.Second
	if protocol.MayConfirm(v.method) {
		d += e.cfg.Timeouts.Confirm // the person may be asked first
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	printed := make(chan struct{})
	go func() {
		defer close(printed)
		printConfirmWaits(e.stderr, c.Notifications())
	}()
	defer func() {
		// The answer is in: no closing handshake (a round trip through
		// the service's scheduler) before the process exits.
		c.CloseNow() // ends the notifications
		<-printed
	}()
	var raw json.RawMessage
	answered := false
	if v.first != nil {
		method, fp, done := v.first(params)
		if err := c.Call(ctx, method, fp, &raw); err != nil {
			return lostService(name, err)
		}
		raw, answered = done(raw)
	}
	if !answered {
		if err := c.Call(ctx, v.method, params, &raw); err != nil {
			return lostService(name, err)
		}
	}
	if v.finish != nil && !answered {
		if raw, err = v.finish(e, params, raw); err != nil {
			return err
		}
	}
	if e.json {
		_, err := fmt.Fprintf(e.stdout, "%s\n", unescapeHTML(raw))
		return err
	}
	return v.human(e.stdout, raw)
}

// serviceAddr returns where the running service listens: its state file,
// else the configured address.
func (e *env) serviceAddr() string {
	if st, ok := e.readState(); ok {
		return st.Addr
	}
	return e.cfg.Listen
}

// agentSocket is the running service's agent socket (PROTOCOL.md §3, "The
// agent socket"): the CLI's transport, which links no HTTP.
func (e *env) agentSocket() string {
	return filepath.Join(e.cfg.StateDir, protocol.AgentSocketFile)
}

// dial connects to the running service as the command's agent (--agent).
func (e *env) dial(ctx context.Context) (*rpcclient.Client, error) { return e.dialAs(ctx, e.agent) }

// dialAgent is dial in the shape withConn takes: it connects as the
// command's agent (--agent), not as the agent withConn names (the person).
func (e *env) dialAgent(ctx context.Context, _ string) (*rpcclient.Client, error) {
	return e.dial(ctx)
}

// dialAs connects to the running service as the agent name ("" = the
// person): as the paired agent whose token $EGOHOST_AGENT_TOKEN_FILE names,
// else with the owner token.
func (e *env) dialAs(ctx context.Context, agent string) (*rpcclient.Client, error) {
	if f := os.Getenv(EnvAgentTokenFile); f != "" {
		tok, err := rpcclient.ReadToken(f)
		if err != nil {
			return nil, fmt.Errorf("$%s: %w (pair with `egohost pair --name NAME`)", EnvAgentTokenFile, err)
		}
		return e.dialWith(ctx, tok, agent)
	}
	return e.dialOwner(ctx, agent)
}

// dialOwner connects with the owner token (the person's own CLI).
func (e *env) dialOwner(ctx context.Context, agent string) (*rpcclient.Client, error) {
	tok, err := rpcclient.ReadToken(e.cfg.TokenFile)
	if err != nil {
		return nil, &serviceDownError{fmt.Errorf("the egohost service has never run for this user (%w): start it with `egohost serve` or `egohost launch`", err)}
	}
	return e.dialWith(ctx, tok, agent)
}

func (e *env) dialWith(ctx context.Context, tok, agent string) (*rpcclient.Client, error) {
	dctx, cancel := context.WithTimeout(ctx, e.cfg.Timeouts.Connect)
	defer cancel()
	c, err := rpcclient.DialSocket(dctx, e.agentSocket(), tok, rpcclient.SocketOptions{Agent: agent})
	if err != nil {
		return nil, &serviceDownError{err}
	}
	return c, nil
}

func (e *env) status(ctx context.Context) error {
	var ping protocol.PingResult
	var bl protocol.BrowsersListResult
	err := e.withConn(ctx, e.dialAgent, "status", func(call connCaller) error {
		if err := call(protocol.MethodPing, nil, &ping); err != nil {
			return err
		}
		return call(protocol.MethodBrowsersList, nil, &bl)
	})
	if err != nil {
		return err
	}
	if e.json {
		return printJSON(e.stdout, map[string]any{"service": ping, "browsers": bl.Browsers, "reconnecting": bl.Reconnecting})
	}
	fmt.Fprintf(e.stdout, "service: up (version %s, pid %d) at ws://%s/rpc\n", ping.Version, ping.PID, e.serviceAddr())
	if ping.StateDir != "" {
		fmt.Fprintf(e.stdout, "folders: live files in %s, durable state (paired agents, audit log) in %s\n", ping.StateDir, ping.DataDir)
	}
	if t := ping.Tokenless; t != nil && (t.Refused > 0 || t.RefusedHandshakes > 0) {
		fmt.Fprintf(e.stdout, "refused since start: %d call(s) of connections without a token (of %d such connections), %d handshake(s) with a wrong token, Origin or Host\n", t.Refused, t.Connections, t.RefusedHandshakes)
	}
	if len(bl.Browsers) == 0 && len(bl.Reconnecting) == 0 {
		fmt.Fprintln(e.stdout, "browsers: none connected (start one with `egohost launch`, or open the extension's popup to see why)")
	}
	for _, b := range bl.Browsers {
		fmt.Fprintf(e.stdout, "browser %s: extension %s %s, connected %s, %s\n", b.ID, b.ExtensionID, b.Version, b.ConnectedAt.Format(time.TimeOnly), b.UserAgent)
	}
	for _, b := range bl.Reconnecting {
		fmt.Fprintf(e.stdout, "browser %s: %s\n", b.ID, reconnectingWords(b))
	}
	return nil
}

// serviceLostError is a call the service never answered because its
// connection ended (exit code 3).
type serviceLostError struct {
	verb string
	err  error
}

func (e *serviceLostError) Error() string {
	return fmt.Sprintf("the egohost service stopped while `egohost %s` was waiting for its answer (it may or may not have been done); is it restarting? `egohost status` tells when it is back", e.verb)
}

func (e *serviceLostError) Unwrap() error { return e.err }

// lostService words a lost connection for people; other errors pass.
func lostService(verb string, err error) error {
	if errors.Is(err, rpcclient.ErrConnectionLost) {
		return &serviceLostError{verb: verb, err: err}
	}
	return err
}

// printAs is a verb's human printer of a result R: it decodes the result
// and prints it with print.
func printAs[R any](print func(w io.Writer, r R) error) func(w io.Writer, raw json.RawMessage) error {
	return func(w io.Writer, raw json.RawMessage) error {
		var r R
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		return print(w, r)
	}
}
