package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/config"
	"github.com/egohost/egohost/protocol"
)

// verb is a CLI command that is one call to the running service.
type verb struct {
	usage  string
	method string
	// params builds the call's params from the verb's command line.
	params func(a *argv, t protocol.Target) (any, error)
	// human prints the result for people (--json prints it raw).
	human func(w io.Writer, raw json.RawMessage) error
	// jsonParams, if set, adjusts the params when --json is given.
	jsonParams func(params any) any
}

// verbs returns every client verb: the core ones below and those other
// files add (one file per capability).
func (e *env) verbs() map[string]verb {
	all := make(map[string]verb)
	for _, group := range []map[string]verb{coreVerbs(), snapshotVerbs(), resolveVerbs(), actionVerbs(), recordVerbs()} {
		for name, v := range group {
			all[name] = v
		}
	}
	return all
}

func coreVerbs() map[string]verb {
	return map[string]verb{
		"tabs": {
			usage: "tabs", method: protocol.MethodTabsList,
			params: func(a *argv, t protocol.Target) (any, error) {
				args, err := a.rest("tabs")
				if err != nil {
					return nil, err
				}
				if len(args) > 0 {
					return nil, usageError("tabs takes no arguments")
				}
				return protocol.TabsListParams{Browser: t.Browser}, nil
			},
			human: printTabs,
		},
		"open": {
			usage: "open URL [--until load|domcontentloaded|networkidle|commit] [--no-wait] [--timeout D]", method: protocol.MethodTabsOpen,
			params: func(a *argv, t protocol.Target) (any, error) {
				p := protocol.TabsOpenParams{Browser: t.Browser, Until: a.flag("--until"), NoWait: a.boolean("--no-wait"), TimeoutMs: a.timeoutMs()}
				args, err := a.exactly(1, "open URL [--until load|domcontentloaded|networkidle|commit] [--no-wait] [--timeout D]")
				if err != nil {
					return nil, err
				}
				if p.NoWait && (p.Until != "" || p.TimeoutMs != 0) {
					return nil, usageError("open: --no-wait excludes --until and --timeout")
				}
				p.URL = args[0]
				return p, nil
			},
			human: func(w io.Writer, raw json.RawMessage) error {
				var r protocol.TabResult
				if err := json.Unmarshal(raw, &r); err != nil {
					return err
				}
				if r.Nav == nil { // --no-wait, or about:blank
					_, err := fmt.Fprintf(w, "opened tab %d: %s\n", r.Tab.ID, r.Tab.URL)
					return err
				}
				fmt.Fprintf(w, "opened tab %d: ", r.Tab.ID)
				return printNavResult(w, *r.Nav)
			},
		},
		"close": {
			usage: "close [--tab ID]", method: protocol.MethodTabsClose,
			params: func(a *argv, t protocol.Target) (any, error) {
				args, err := a.rest("close [--tab ID]")
				if err != nil {
					return nil, err
				}
				if len(args) > 0 {
					return nil, usageError("usage: egohost close [--tab ID]")
				}
				return protocol.TabParams{Target: t}, nil
			},
			human: func(w io.Writer, raw json.RawMessage) error {
				var r struct{ Tab int }
				json.Unmarshal(raw, &r)
				_, err := fmt.Fprintf(w, "closed tab %d\n", r.Tab)
				return err
			},
		},
		"tab": {
			usage: "tab ID | tab --index N", method: protocol.MethodTabsSelect,
			params: func(a *argv, t protocol.Target) (any, error) {
				args, err := a.exactly(1, "tab ID | tab --index N")
				if err != nil {
					return nil, err
				}
				id, err := strconv.Atoi(args[0])
				if err != nil {
					return nil, usageError(fmt.Sprintf("tab: %q is not a tab ID (by position: egohost tab --index N)", args[0]))
				}
				t.Tab = id
				return protocol.TabParams{Target: t}, nil
			},
			human: func(w io.Writer, raw json.RawMessage) error {
				var r protocol.TabResult
				if err := json.Unmarshal(raw, &r); err != nil {
					return err
				}
				_, err := fmt.Fprintf(w, "selected tab %d: %s\n", r.Tab.ID, r.Tab.URL)
				return err
			},
		},
		"cdp": {
			usage: "cdp METHOD [PARAMS_JSON]", method: protocol.MethodCDPSend,
			params: func(a *argv, t protocol.Target) (any, error) {
				args, err := a.rest("cdp METHOD [PARAMS_JSON]")
				if err != nil {
					return nil, err
				}
				if len(args) < 1 || len(args) > 2 {
					return nil, usageError("usage: egohost cdp METHOD [PARAMS_JSON]")
				}
				p := protocol.CDPSendParams{Target: t, Method: args[0]}
				if len(args) == 2 {
					if !json.Valid([]byte(args[1])) {
						return nil, usageError(fmt.Sprintf("cdp: PARAMS_JSON is not valid JSON: %s", args[1]))
					}
					p.Params = json.RawMessage(args[1])
				}
				return p, nil
			},
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
	return tw.Flush()
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

// callVerb parses the common flags, calls the service and prints the result.
func (e *env) callVerb(ctx context.Context, v verb, args []string) error {
	var t protocol.Target
	var tab, timeout string
	var asJSON bool
	t.Browser, args = takeFlag(args, "--browser")
	tab, args = takeFlag(args, "--tab")
	timeout, args = takeFlag(args, "--timeout")
	asJSON, args = takeBool(args, "--json")
	if tab != "" {
		id, err := strconv.Atoi(tab)
		if err != nil {
			return usageError(fmt.Sprintf("--tab %q is not a tab ID", tab))
		}
		t.Tab = id
	}
	var d time.Duration
	if timeout != "" {
		var err error
		if d, err = config.ParseDuration(timeout); err != nil || d <= 0 {
			return usageError(fmt.Sprintf("--timeout %q is not a positive duration (milliseconds like 1500, or 500ms, 10s)", timeout))
		}
	}
	params, err := v.params(&argv{args: args, timeout: d}, t)
	if err != nil {
		return err
	}
	if asJSON && v.jsonParams != nil {
		params = v.jsonParams(params)
	}
	// --timeout is the verb's own wait; the call gets the request deadline,
	// or a little more than the wait so that the service's answer (with the
	// wait's last cause) arrives before the client gives up.
	if d+5*time.Second > e.cfg.Timeouts.Request {
		d += 5 * time.Second
	} else {
		d = e.cfg.Timeouts.Request
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var raw json.RawMessage
	if err := c.Call(ctx, v.method, params, &raw); err != nil {
		// With --json a failed call prints its JSON-RPC error object too
		// (code, message, data with name and kind), for a program to read.
		var pe *protocol.Error
		if asJSON && errors.As(err, &pe) {
			if b, merr := json.Marshal(struct {
				Error *protocol.Error `json:"error"`
			}{pe}); merr == nil {
				fmt.Fprintf(e.stdout, "%s\n", b)
			}
		}
		return lostService(strings.Fields(v.usage)[0], err)
	}
	if asJSON {
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

// dial connects to the running service.
func (e *env) dial(ctx context.Context) (*client.Client, error) {
	addr := e.serviceAddr()
	tok, err := client.ReadToken(e.cfg.TokenFile)
	if err != nil {
		return nil, fmt.Errorf("the egohost service has never run for this user (%w): start it with `egohost serve` or `egohost launch`", err)
	}
	dctx, cancel := context.WithTimeout(ctx, e.cfg.Timeouts.Connect)
	defer cancel()
	return client.Dial(dctx, addr, tok, client.Options{})
}

func (e *env) status(ctx context.Context, args []string) error {
	asJSON, _ := takeBool(args, "--json")
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeouts.Request)
	defer cancel()
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var ping protocol.PingResult
	if err := c.Call(ctx, protocol.MethodPing, nil, &ping); err != nil {
		return lostService("status", err)
	}
	var bl protocol.BrowsersListResult
	if err := c.Call(ctx, protocol.MethodBrowsersList, nil, &bl); err != nil {
		return lostService("status", err)
	}
	if asJSON {
		return printJSON(e.stdout, map[string]any{"service": ping, "browsers": bl.Browsers})
	}
	fmt.Fprintf(e.stdout, "service: up (version %s, pid %d) at ws://%s/rpc\n", ping.Version, ping.PID, e.serviceAddr())
	if len(bl.Browsers) == 0 {
		fmt.Fprintln(e.stdout, "browsers: none connected (start one with `egohost launch`, or open the extension's popup to see why)")
	}
	for _, b := range bl.Browsers {
		fmt.Fprintf(e.stdout, "browser %s: extension %s %s, connected %s, %s\n", b.ID, b.ExtensionID, b.Version, b.ConnectedAt.Format(time.TimeOnly), b.UserAgent)
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
	if errors.Is(err, client.ErrConnectionLost) {
		return &serviceLostError{verb: verb, err: err}
	}
	return err
}
