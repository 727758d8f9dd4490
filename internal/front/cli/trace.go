package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/egohost/egohost"
	"github.com/egohost/egohost/protocol"
)

// traceCommand is `egohost trace`: the owner records what agents did
// (start, stop, list: service methods) and renders a trace as one HTML
// page (show: reads the file itself, with the service up or down).
func (c *cli) traceCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace start [--agent NAME] [--out FILE] | stop | list | show FILE [--html OUT] [--open]",
		Short: "record what agents did, with screenshots, and view it as one HTML page (the owner's CLI only)",
		Long: "A trace records each call of the traced agents (every agent's without --agent): the method and target,\n" +
			"the result or error code, timing, and for an action a screenshot before and after with the element's box,\n" +
			"the step's console errors and failed requests. Typed text is never stored (its length only). The file is\n" +
			"<data_dir>/" + egohost.TracesDir + "/FILE (0600), one JSON line per step (docs/trace.md); past trace.max_bytes\n" +
			"screenshots stop; traces older than trace.max_age (default 7d) are deleted. `trace show` writes a\n" +
			"self-contained HTML page (no server, nothing fetched): ← → or j k step through it.",
		Example: "  egohost trace start --agent claude\n  egohost trace stop\n  egohost trace list\n  egohost trace show trace-20261202-081500.000.jsonl --open",
		GroupID: "agents",
		Args:    nArgs(0, 0),
	}
	// The methods are the owner's: under $EGOHOST_AGENT_TOKEN_FILE the
	// CLI calls as that paired agent, and the service refuses it.
	owner := func(ctx context.Context, e *env, method string, params any, print func(w io.Writer, raw json.RawMessage) error) error {
		return e.printCall(ctx, e.dialAs, "trace", method, params, print)
	}

	start := &cobra.Command{Use: "start [--agent NAME]... [--out FILE]", Short: "start recording a trace", Args: nArgs(0, 0)}
	agents := start.Flags().StringArray("agent", nil, "trace this agent's calls (repeat for several; none: every agent)")
	out := start.Flags().String("out", "", "the trace file's `NAME` in <data_dir>/"+egohost.TracesDir+" (a plain file name)")
	start.RunE = c.with(func(ctx context.Context, e *env, _ *cobra.Command, _ []string) error {
		return owner(ctx, e, protocol.MethodTraceStart, protocol.TraceStartParams{Agents: *agents, Out: *out}, printAs(func(w io.Writer, st protocol.TraceStatus) error {
			who := "every agent"
			if len(st.Agents) > 0 {
				who = strings.Join(st.Agents, ", ")
			}
			fmt.Fprintf(w, "tracing %s into %s (stop with `egohost trace stop`)\n", who, st.File)
			return nil
		}))
	})

	stop := &cobra.Command{Use: "stop", Short: "stop the trace being recorded", Args: nArgs(0, 0)}
	stop.RunE = c.with(func(ctx context.Context, e *env, _ *cobra.Command, _ []string) error {
		return owner(ctx, e, protocol.MethodTraceStop, nil, printAs(func(w io.Writer, r protocol.TraceStopResult) error {
			fmt.Fprintf(w, "trace stopped: %s (%d steps, %d bytes", r.File, r.Steps, r.Bytes)
			if r.Dropped > 0 {
				fmt.Fprintf(w, ", %d steps left out past the bound", r.Dropped)
			}
			fmt.Fprintf(w, ")\nview it: egohost trace show %s --open\n", filepath.Base(r.File))
			return nil
		}))
	})

	list := &cobra.Command{Use: "list", Short: "the trace files, newest first", Args: nArgs(0, 0)}
	list.RunE = c.with(func(ctx context.Context, e *env, _ *cobra.Command, _ []string) error {
		return owner(ctx, e, protocol.MethodTraceList, nil, printAs(func(w io.Writer, r protocol.TraceListResult) error {
			if r.Recording != nil {
				fmt.Fprintf(w, "recording %s since %s\n", r.Recording.File, r.Recording.Started.Local().Format(time.DateTime))
			}
			for _, t := range r.Traces {
				fmt.Fprintf(w, "%-40s %10d bytes  %s\n", t.Name, t.Bytes, t.Modified.Local().Format(time.DateTime))
			}
			if len(r.Traces) == 0 {
				fmt.Fprintln(w, "no traces (start one with `egohost trace start`)")
			}
			return nil
		}))
	})

	show := &cobra.Command{Use: "show FILE [--html OUT] [--open]", Short: "write a trace as one self-contained HTML page", Args: nArgs(1, 1)}
	htmlOut := show.Flags().String("html", "", "the HTML file to write (default: FILE with .html)")
	open := show.Flags().Bool("open", false, "open the page in the browser")
	// The page is html/template's: egohost-host writes it (Host.TraceHTML),
	// so that egohost, which every call starts, does not link it.
	show.RunE = c.hostOnly(c.with(func(ctx context.Context, e *env, _ *cobra.Command, args []string) error {
		if os.Getenv(EnvAgentTokenFile) != "" {
			// The file is the person's record; a paired agent's CLI does
			// not render it (the service gives agents no trace either).
			return protocol.Errorf(protocol.CodeScopeDenied, "trace show: traces are the owner's, and $%s names a paired agent's token", EnvAgentTokenFile)
		}
		path, err := e.tracePath(args[0])
		if err != nil {
			return err
		}
		page, steps, err := c.host.TraceHTML(path)
		if err != nil {
			return err
		}
		dest := *htmlOut
		if dest == "" {
			dest = strings.TrimSuffix(path, filepath.Ext(path)) + ".html"
		}
		f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return fmt.Errorf("trace show: %w", err)
		}
		if _, err := f.Write(page); err != nil {
			f.Close()
			return fmt.Errorf("trace show: %w", err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("trace show: %w", err)
		}
		if e.json {
			b, _ := json.Marshal(map[string]any{"html": dest, "steps": steps})
			fmt.Fprintf(e.stdout, "%s\n", b)
		} else {
			fmt.Fprintf(e.stdout, "%s (%d steps)\n", dest, steps)
		}
		if *open {
			return openFile(dest)
		}
		return nil
	}))
	cmd.AddCommand(start, stop, list, show)
	cmd.RunE = list.RunE
	return cmd
}

// tracePath is FILE of `trace show`: a path when it has a slash (or a
// backslash), else a name in the data dir's traces folder, and only there:
// a file of that name in the current folder does not stand in for the
// trace (whoever can write there could show the person a forged record).
func (e *env) tracePath(name string) (string, error) {
	if strings.ContainsAny(name, `/\`) {
		return name, nil
	}
	if name == "." || !filepath.IsLocal(name) {
		return "", usageError(fmt.Sprintf("trace show: %q is neither a trace's name nor a path", name))
	}
	return filepath.Join(e.cfg.DataDir, egohost.TracesDir, name), nil
}

// openFile opens a file in the desktop's browser.
func openFile(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", abs)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", abs)
	default:
		cmd = exec.Command("xdg-open", abs)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	return cmd.Process.Release() // the opener's exit says nothing of the page
}
