package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/egohost/egohost/protocol"
)

// runCommand is `egohost run`: one script, read from FILE or stdin, runs
// in the service's sandbox (script.run); its output, value and
// screenshots come back in one reply.
func (c *cli) runCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run [FILE|-]",
		Short: "run a Playwright-shaped script in the service's sandbox (stdin by default)",
		Long: "Runs one script against the tab in the service: page.click, page.fill, page.goto,\n" +
			"page.screenshot… in one call, printing what it logs and its value (docs/scripts.md).",
		Example: "  egohost run flow.js\n  echo 'await page.goto(\"example.com\"); console.log(await page.title())' | egohost run\n" +
			"  egohost run upload.js --file report.pdf --out shots/",
		GroupID: "agents",
		Args:    nArgs(0, 1),
	}
	fs := cmd.Flags()
	out := fs.String("out", "", "save the script's screenshots in `DIR` (default: here)")
	files := fs.StringArray("file", nil, "a file the script may upload (`PATH`, repeatable; sent as bytes on a paired agent's token)")
	co := commonFlags(fs)
	fs.Lookup("timeout").Usage = "the script's time limit (default timeouts.script)"
	cmd.RunE = c.with(func(ctx context.Context, e *env, _ *cobra.Command, args []string) error {
		cm, err := co()
		if err != nil {
			return err
		}
		return e.runScript(ctx, cm, args, *files, *out)
	})
	return cmd
}

func (e *env) runScript(ctx context.Context, cm common, rest, files []string, out string) error {
	var err error
	d := e.cfg.Timeouts.Script
	if cm.timeout > 0 {
		d = cm.timeout
	}
	for i, f := range files {
		if files[i], err = filepath.Abs(f); err != nil {
			return fmt.Errorf("run: --file %s: %w", f, err)
		}
	}
	src, err := e.readScript(rest)
	if err != nil {
		return err
	}
	p := protocol.ScriptRunParams{Target: cm.Target, Script: src, Files: files, TimeoutMs: cm.timeoutMs()}
	if pairedToken() && len(files) > 0 {
		// A paired agent gives the bytes of what it can read; the script
		// names each file by its path or its name.
		if p.Payloads, err = e.readPayloads("run", files); err != nil {
			return err
		}
		p.Files = nil
	}
	ctx, cancel := context.WithTimeout(ctx, d+10*time.Second)
	defer cancel()
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	var raw json.RawMessage
	err = c.Call(ctx, protocol.MethodScriptRun, p, &raw)
	var pe *protocol.Error
	if errors.As(err, &pe) && !e.json { // with --json the output is in the error's data
		if o, _ := pe.Data["output"].(string); o != "" {
			io.WriteString(e.stdout, o)
		}
	}
	if err != nil {
		return lostService("run", err)
	}
	if e.json {
		_, err := fmt.Fprintf(e.stdout, "%s\n", raw)
		return err
	}
	var res protocol.ScriptRunResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("run: bad reply: %w", err)
	}
	io.WriteString(e.stdout, res.Output)
	if len(res.Value) > 0 {
		var s string
		if json.Unmarshal(res.Value, &s) == nil {
			fmt.Fprintln(e.stdout, s)
		} else {
			fmt.Fprintf(e.stdout, "%s\n", res.Value)
		}
	}
	return e.saveShots(res.Screenshots, out)
}

// readScript reads FILE, or stdin for "-" or no argument.
func (e *env) readScript(rest []string) (string, error) {
	var b []byte
	var err error
	if len(rest) == 0 || rest[0] == "-" {
		b, err = io.ReadAll(io.LimitReader(e.stdin, 16<<20))
	} else if b, err = os.ReadFile(rest[0]); err != nil {
		// The FILE on the command line is not there, or not a file: a
		// mistake in the command line, not a failed run.
		return "", usageError(fmt.Sprintf("run: read the script: %v", err))
	}
	if err != nil {
		return "", fmt.Errorf("run: read the script: %w", err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", usageError("run: the script is empty (give a FILE, or pipe it on stdin)")
	}
	return string(b), nil
}

// saveShots writes the screenshots a script took into dir (default: the
// current directory) and says where.
func (e *env) saveShots(shots []protocol.ScriptScreenshot, dir string) error {
	if len(shots) == 0 {
		return nil
	}
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("run: save screenshots: %w", err)
	}
	for _, s := range shots {
		path := filepath.Join(dir, filepath.Base(s.Name))
		if err := os.WriteFile(path, s.Data, 0o644); err != nil {
			return fmt.Errorf("run: save screenshot: %w", err)
		}
		fmt.Fprintf(e.stdout, "screenshot saved: %s (%dx%d)\n", path, s.Width, s.Height)
	}
	return nil
}
