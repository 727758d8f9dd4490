package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/egohost/egohost"
	"github.com/egohost/egohost/internal/rpcclient"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/protocol"
)

// EnvAgentTokenFile names the environment variable that makes the CLI
// (and `egohost run`) dial as a paired agent, with the token in that
// file, instead of with the owner token.
const EnvAgentTokenFile = "EGOHOST_AGENT_TOKEN_FILE"

// writeAgentToken stores a paired token owner-only.
func writeAgentToken(path, token string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save the agent token: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("save the agent token: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("save the agent token: %w", err)
	}
	if _, err := f.WriteString(token + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("save the agent token: %w", err)
	}
	return f.Close()
}

// pairAs asks the service to pair name with scopes and waits for the
// person's answer; the token comes back.
func (e *env) pairAs(ctx context.Context, name string, scopes []string, wait time.Duration) (*protocol.PairRequestResult, error) {
	ctx, cancel := context.WithTimeout(ctx, wait+10*time.Second)
	defer cancel()
	if e.host == nil {
		return nil, errors.New("pair: runs in egohost-host (the command egohost runs for it)")
	}
	res, err := e.host.PairRequest(ctx, e.serviceAddr(), protocol.PairRequestParams{Name: name, Scopes: scopes, WaitMs: int(wait.Milliseconds())})
	if err != nil {
		var pe *protocol.Error
		if !errors.As(err, &pe) {
			return nil, &serviceDownError{err}
		}
		return nil, err
	}
	return res, nil
}

func (c *cli) pairCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pair --name NAME [--scope SCOPE]…",
		Short: "ask the person for an agent token (approve in the extension's popup or with `egohost agents approve`)",
		Long: "Asks the running service to pair an agent. The request shows in the extension's popup (and\n" +
			"as a badge on its icon) with the name, the scopes and this process; the person approves or\n" +
			"denies, there or with `egohost agents approve NAME` as the same OS user. The token is\n" +
			"written owner-only to --token-file (default <data_dir>/agents/NAME.token), or printed once\n" +
			"with --print. Use it with " + EnvAgentTokenFile + "=FILE, or from the Go client.\n" +
			"Scopes: space (default: act on the agent's own spaces), read (snapshots, screenshots,\n" +
			"console; no input, navigation or eval), all-tabs (every tab, not only its spaces), cdp (raw CDP).",
		Example: "  egohost pair --name claude\n  egohost pair --name reporter --scope read,all-tabs --print",
		GroupID: "agents",
		Args:    nArgs(0, 0),
	}
	name := cmd.Flags().String("name", "", "the agent's `NAME` (letters, digits, . _ -)")
	scopes := cmd.Flags().StringSlice("scope", nil, "`SCOPE`s to ask for: space, read, all-tabs, cdp (repeat or comma-separate)")
	tokenFile := cmd.Flags().String("token-file", "", "write the token to `FILE` (0600)")
	print := cmd.Flags().Bool("print", false, "print the token once instead of writing a file")
	wait := cmd.Flags().Duration("wait", 2*time.Minute, "how long to wait for the person's answer (at most 10m)")
	cmd.RunE = c.hostOnly(c.with(func(ctx context.Context, e *env, _ *cobra.Command, _ []string) error {
		if *name == "" {
			return usageError("pair: --name is required")
		}
		if *print && *tokenFile != "" {
			return usageError("pair: --print and --token-file exclude each other")
		}
		path := *tokenFile
		if path == "" {
			path = c.host.AgentTokenPath(e, *name)
		}
		fmt.Fprintf(e.stderr, "egohost pair: waiting for the person to approve %q (the extension's popup, or `egohost agents approve %s`)…\n", *name, *name)
		res, err := e.pairAs(ctx, *name, *scopes, *wait)
		if err != nil {
			return err
		}
		if *print {
			if e.json {
				return printJSON(e.stdout, res)
			}
			fmt.Fprintln(e.stdout, res.Token)
			return nil
		}
		if err := writeAgentToken(path, res.Token); err != nil {
			return err
		}
		if e.json {
			return printJSON(e.stdout, map[string]any{"name": res.Name, "scopes": res.Scopes, "tokenFile": path})
		}
		fmt.Fprintf(e.stdout, "paired %s (%s); token in %s\nuse it: %s=%s egohost snapshot\n", res.Name, strings.Join(res.Scopes, ", "), path, EnvAgentTokenFile, path)
		return nil
	}))
	return cmd
}

func (c *cli) agentsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "agents list | approve NAME | deny NAME | revoke NAME",
		Short:   "paired agents and pairing requests (the owner's CLI only)",
		Example: "  egohost agents list\n  egohost agents approve claude\n  egohost agents revoke claude",
		GroupID: "agents",
		Args:    nArgs(0, 0),
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "paired agents (live connections) and the requests waiting",
		Args:  nArgs(0, 0),
		RunE: c.with(ownerCall(protocol.MethodAgentsList, nil, printAs(func(w io.Writer, l protocol.AgentsListResult) error {
			for _, r := range l.Pending {
				fmt.Fprintf(w, "WAITING  %-20s %-24s %s (expires %s)\n", r.Name, strings.Join(r.Scopes, ","), procWords(r.Process), r.Expires.Local().Format(time.TimeOnly))
				if r.Replaces != nil {
					fmt.Fprintf(w, "         ! %s is paired already (%s, since %s): approving replaces that pairing\n", r.Name, strings.Join(r.Replaces.Scopes, ","), r.Replaces.Paired.Local().Format(time.DateTime))
				}
			}
			for _, a := range l.Agents {
				state := "paired"
				if a.Revoked {
					state = "revoked"
				}
				fmt.Fprintf(w, "%-8s %-20s %-24s connected %d, paired %s by %s\n", state, a.Name, strings.Join(a.Scopes, ","), a.Connected, a.Paired.Local().Format(time.DateTime), procWords(a.Process))
			}
			if len(l.Pending)+len(l.Agents) == 0 {
				fmt.Fprintln(w, "no paired agents and no requests (agents ask with `egohost pair --name NAME`)")
			}
			return nil
		}))),
	}
	deny := &cobra.Command{Use: "deny NAME", Short: "deny the pairing request of NAME", Args: nArgs(1, 1)}
	deny.RunE = func(cmd *cobra.Command, args []string) error {
		return c.with(ownerCall(protocol.MethodAgentsDeny, protocol.AgentNameParams{Name: args[0]}, func(w io.Writer, _ json.RawMessage) error {
			fmt.Fprintf(w, "denied %s\n", args[0])
			return nil
		}))(cmd, args)
	}
	revoke := &cobra.Command{Use: "revoke NAME", Short: "revoke NAME's token and cut its live connections", Args: nArgs(1, 1)}
	revoke.RunE = func(cmd *cobra.Command, args []string) error {
		return c.with(ownerCall(protocol.MethodAgentsRevoke, protocol.AgentNameParams{Name: args[0]}, printAs(printRevoked)))(cmd, args)
	}
	cmd.AddCommand(list, c.approveCommand(), deny, revoke)
	cmd.RunE = list.RunE
	return cmd
}

func procWords(p *protocol.PeerProcess) string {
	if p != nil && p.OtherUser {
		return fmt.Sprintf("a process of another OS user (uid %d)", p.UID)
	}
	if p == nil || p.PID == 0 {
		return "an unknown process"
	}
	return fmt.Sprintf("%s (pid %d)", p.Exe, p.PID)
}

func (c *cli) auditCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit [--agent NAME] [--since TIME] [--follow]",
		Short: "what agents did to tabs: the audit log, oldest first",
		Long: "Reads <data_dir>/" + egohost.AuditFile + " and its rotated files (one JSON line per call that reached a tab,\n" +
			"and per decision of the person: pairings, take over, Stop all; see PROTOCOL.md §3.7).\n" +
			"Lines that are not entries are passed over with a note. Text an agent chose is printed\n" +
			"with control characters escaped (\\n, \\x1b), so it cannot forge lines.\n" +
			"--since takes a duration back (10m, 2h) or an RFC 3339 time.",
		Example: "  egohost audit --agent claude --since 1h\n  egohost audit --follow",
		GroupID: "agents",
		Args:    nArgs(0, 0),
	}
	agent := cmd.Flags().String("agent", "", "only this agent's calls (owner: the owner token's)")
	since := cmd.Flags().String("since", "", "only calls since `TIME` (a duration back, or RFC 3339)")
	follow := cmd.Flags().Bool("follow", false, "keep printing new calls until Ctrl-C")
	limit := cmd.Flags().Int("last", 0, "only the last `N` calls")
	cmd.RunE = c.with(func(ctx context.Context, e *env, _ *cobra.Command, _ []string) error {
		f := audit.Filter{Agent: *agent, Limit: *limit}
		if *since != "" {
			if d, err := time.ParseDuration(*since); err == nil {
				f.Since = time.Now().Add(-d)
			} else if t, err := time.Parse(time.RFC3339, *since); err == nil {
				f.Since = t
			} else {
				return usageError(fmt.Sprintf("audit: --since %q is neither a duration (10m) nor an RFC 3339 time", *since))
			}
		}
		path := filepath.Join(e.cfg.DataDir, egohost.AuditFile)
		read, err := audit.Scan(path, f)
		if err != nil {
			return err
		}
		for _, en := range read.Entries {
			e.printAudit(en)
		}
		if read.Skipped > 0 {
			fmt.Fprintf(e.stderr, "egohost audit: passed over %d line(s) of %s that are not audit entries (damaged, or longer than %d bytes)\n", read.Skipped, path, audit.MaxLine)
		}
		if !*follow {
			return nil
		}
		f.Limit = 0
		var offset int64
		if st, err := os.Stat(path); err == nil {
			offset = st.Size()
		}
		return audit.Follow(ctx, path, offset, 200*time.Millisecond, f, e.printAudit, func() {
			fmt.Fprintf(e.stderr, "egohost audit: passed over a line that is not an audit entry\n")
		})
	})
	return cmd
}

// printAudit prints one entry on one line. Every text in it may come from
// an agent (or a page: the origin): each is escaped (audit.Printable),
// so a newline or an escape sequence in a target cannot forge a line or
// colour the terminal.
func (e *env) printAudit(en audit.Entry) {
	if e.json {
		printJSON(e.stdout, en)
		return
	}
	what := en.Target
	if en.Key != "" {
		what += " key " + en.Key
	}
	if en.Length != nil {
		what += fmt.Sprintf(" (%d chars)", *en.Length)
	}
	if en.URL != "" {
		what += " " + en.URL
	}
	if len(en.Scopes) > 0 {
		what += " scopes " + strings.Join(en.Scopes, ",")
	}
	if en.Process != "" {
		what += " from " + en.Process
	}
	if len(en.Files) > 0 {
		what += " files " + strings.Join(en.Files, ", ")
	}
	p := audit.Printable
	fmt.Fprintf(e.stdout, "%s %-12s %-12s tab %-5d %-28s %-8s %6.1fms %s\n", en.Time.Local().Format("2006-01-02 15:04:05.000"), p(en.Agent), p(en.Method), en.Tab, p(en.Origin), p(en.Result), en.Duration, p(strings.TrimSpace(what)))
}

// approveCommand is `egohost agents approve NAME`: it shows what the
// request asks for (the scopes in words, the process, a pairing it would
// replace) and approves only with --yes; --scope grants fewer scopes, and
// a name paired already needs --replace too.
func (c *cli) approveCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "approve NAME --yes [--scope SCOPE]… [--replace]",
		Short: "approve the pairing request of NAME (shows what it asks for; needs --yes)",
		Long: "Shows the pairing request of NAME: the scopes it asks for, the process that asked, and the\n" +
			"pairing of the same name it would replace. Without --yes nothing is approved. --scope grants\n" +
			"only some of the scopes asked for. A name that is paired already is approved only with\n" +
			"--replace (its current token is then revoked).",
		Example: "  egohost agents approve claude\n  egohost agents approve claude --yes\n  egohost agents approve claude --yes --scope read",
		Args:    nArgs(1, 1),
	}
	yes := cmd.Flags().Bool("yes", false, "approve what is shown")
	scopes := cmd.Flags().StringSlice("scope", nil, "grant only these of the `SCOPE`s asked for (repeat or comma-separate)")
	replace := cmd.Flags().Bool("replace", false, "approve even though NAME is paired already: that pairing's token is revoked")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return c.with(func(ctx context.Context, e *env, _ *cobra.Command, _ []string) error {
			return e.withOwner(ctx, func(call connCaller) error { return approve(e, call, args[0], *scopes, *yes, *replace) })
		})(cmd, args)
	}
	return cmd
}

// approve is `agents approve NAME`: it shows the request, and with yes
// approves it.
func approve(e *env, call connCaller, name string, scopes []string, yes, replace bool) error {
	var l protocol.AgentsListResult
	if err := call(protocol.MethodAgentsList, nil, &l); err != nil {
		return err
	}
	i := slices.IndexFunc(l.Pending, func(r protocol.PairingRequest) bool { return r.Name == name || r.ID == name })
	if i < 0 {
		return fmt.Errorf("agents approve: no pairing request waits for %q (see `egohost agents list`)", name)
	}
	r := l.Pending[i]
	grant := r.Scopes
	if len(scopes) > 0 {
		grant = scopes
	}
	out := e.stdout
	if e.json {
		out = e.stderr
	}
	fmt.Fprintf(out, "%s asks to drive your browser, from %s\n", r.Name, procWords(r.Process))
	for _, sc := range r.Scopes {
		mark := "  "
		if slices.Contains(grant, sc) {
			mark = "+ "
		}
		fmt.Fprintf(out, "  %s%-9s %s\n", mark, sc, scopeWords(sc))
	}
	if r.Replaces != nil {
		fmt.Fprintf(out, "  ! %s is paired already (scopes %s, since %s, %d live connection(s)): approving replaces that pairing and revokes its token\n",
			r.Name, strings.Join(r.Replaces.Scopes, ","), r.Replaces.Paired.Local().Format(time.DateTime), r.Replaces.Connected)
	}
	switch {
	case !yes:
		return usageError(fmt.Sprintf("agents approve: nothing approved: run `egohost agents approve %s --yes` to grant %s%s", r.Name, strings.Join(grant, ","), map[bool]string{true: " --replace", false: ""}[r.Replaces != nil]))
	case r.Replaces != nil && !replace:
		return usageError(fmt.Sprintf("agents approve: nothing approved: %s is paired already; add --replace to replace that pairing", r.Name))
	}
	params := protocol.AgentsApproveParams{Name: r.ID, Replace: replace}
	if len(scopes) > 0 {
		params.Scopes = scopes
	}
	var raw json.RawMessage
	if err := call(protocol.MethodAgentsApprove, params, &raw); err != nil {
		return err
	}
	if e.json {
		_, err := fmt.Fprintf(e.stdout, "%s\n", raw)
		return err
	}
	fmt.Fprintf(e.stdout, "approved %s (%s)\n", r.Name, strings.Join(grant, ", "))
	return nil
}

// scopeWords says what a scope grants, for the person deciding (as the
// popup says it: extension/agentsview.js).
func scopeWords(scope string) string {
	switch scope {
	case "space":
		return "act in its own spaces (input, navigation, eval, cookies)"
	case "read":
		return "read pages (no input, no navigation)"
	case "all-tabs":
		return "every tab, not only its spaces"
	case "cdp":
		return "raw DevTools protocol"
	}
	return "unknown scope"
}

// ownerCall is a command's run that makes one call with the owner token
// and prints its answer (as it is with --json).
func ownerCall(method string, params any, print func(w io.Writer, raw json.RawMessage) error) func(ctx context.Context, e *env, _ *cobra.Command, _ []string) error {
	return func(ctx context.Context, e *env, _ *cobra.Command, _ []string) error {
		return e.printCall(ctx, e.dialOwner, "agents", method, params, print)
	}
}

// printCall makes one call on a connection dial makes and prints its
// answer with print (as it is with --json); a service that is gone is
// said as verb's.
func (e *env) printCall(ctx context.Context, dial func(context.Context, string) (*rpcclient.Client, error), verb, method string, params any, print func(w io.Writer, raw json.RawMessage) error) error {
	var raw json.RawMessage
	if err := e.withConn(ctx, dial, verb, func(call connCaller) error { return call(method, params, &raw) }); err != nil {
		return err
	}
	if e.json {
		_, err := fmt.Fprintf(e.stdout, "%s\n", raw)
		return err
	}
	return print(e.stdout, raw)
}

// connCaller calls a method on withConn's connection; a service that is
// gone is said as withConn's verb's.
type connCaller func(method string, params, result any) error

// withOwner runs fn with a connection of the owner token, within the
// request timeout.
func (e *env) withOwner(ctx context.Context, fn func(call connCaller) error) error {
	return e.withConn(ctx, e.dialOwner, "agents", fn)
}

// withConn runs fn with a connection dial makes, within the request
// timeout; a service that is gone is said as verb's.
func (e *env) withConn(ctx context.Context, dial func(context.Context, string) (*rpcclient.Client, error), verb string, fn func(call connCaller) error) error {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeouts.Request)
	defer cancel()
	cl, err := dial(ctx, "")
	if err != nil {
		return err
	}
	defer cl.Close()
	return fn(func(method string, params, result any) error {
		if err := cl.Call(ctx, method, params, result); err != nil {
			return lostService(verb, err)
		}
		return nil
	})
}

// printRevoked says what a revocation ended, and which of the person's
// pages still run an agent's own script (a revocation does not end it).
func printRevoked(w io.Writer, r protocol.AgentsRevokeResult) error {
	_, err := fmt.Fprintf(w, "revoked %s (%d live connections cut)\n", r.Name, r.Cut)
	for _, t := range r.CloseFirst {
		if err == nil {
			_, err = fmt.Fprintf(w, "  %s\n", closeFirstLine("an agent", t))
		}
	}
	for _, t := range r.Scripted {
		if err == nil {
			_, err = fmt.Fprintf(w, "  ! tab %d of %s: an agent ran its own script in this page, which can read what you type there, revoked or not: reload it first (egohost reload --browser %s --tab %d)\n", t.Tab, t.Browser, t.Browser, t.Tab)
		}
	}
	return err
}
