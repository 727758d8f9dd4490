package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/egohost/egohost/protocol"
)

const runUsage = "run [FILE|-] [--tab ID] [--browser ID] [--timeout D] [--json] [--file PATH]… [--out DIR]"

// runScript is `egohost run`: one script, read from FILE or stdin, runs in
// the service's sandbox (script.run); its output, value and screenshots
// come back in one reply.
func (e *env) runScript(ctx context.Context, args []string) error {
	var t protocol.Target
	var tab, timeout, out string
	var asJSON bool
	t.Browser, args = takeFlag(args, "--browser")
	tab, args = takeFlag(args, "--tab")
	timeout, args = takeFlag(args, "--timeout")
	out, args = takeFlag(args, "--out")
	asJSON, args = takeBool(args, "--json")
	files, args := takeAll(args, "--file")
	a := &argv{args: args}
	rest, err := a.rest(runUsage)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		return usageError("usage: egohost " + runUsage)
	}
	if tab != "" {
		if t.Tab, err = strconv.Atoi(tab); err != nil {
			return usageError(fmt.Sprintf("--tab %q is not a tab ID", tab))
		}
	}
	d := e.cfg.Timeouts.Script
	if timeout != "" {
		if d, err = time.ParseDuration(timeout); err != nil || d <= 0 {
			return usageError(fmt.Sprintf("--timeout %q is not a positive duration (e.g. 10s, 2m)", timeout))
		}
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
	p := protocol.ScriptRunParams{Target: t, Script: src, Files: files}
	if timeout != "" {
		p.TimeoutMs = int(d.Milliseconds())
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
	if errors.As(err, &pe) {
		if asJSON {
			json.NewEncoder(e.stdout).Encode(map[string]any{"error": pe})
		} else if o, _ := pe.Data["output"].(string); o != "" {
			io.WriteString(e.stdout, o)
		}
		return err
	}
	if err != nil {
		return err
	}
	if asJSON {
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
	} else {
		b, err = os.ReadFile(rest[0])
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

// takeAll removes every "--name value" / "--name=value" from args.
func takeAll(args []string, name string) (vals, rest []string) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == name && i+1 < len(args):
			vals = append(vals, args[i+1])
			i++
		case strings.HasPrefix(a, name+"="):
			vals = append(vals, strings.TrimPrefix(a, name+"="))
		default:
			rest = append(rest, a)
		}
	}
	return vals, rest
}
