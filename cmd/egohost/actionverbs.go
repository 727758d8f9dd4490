package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/egohost/egohost/config"
	"github.com/egohost/egohost/protocol"
)

// actionVerbs are the actions, waits and navigation verbs. TARGET is a
// @ref or a locator (quote it). --timeout D is the verb's auto-wait
// (default: the service's timeouts.action); the call itself may take a
// little longer (see callVerb).
func actionVerbs() map[string]verb {
	const act = " [--force] [--no-settle] [--timeout D]"
	v := map[string]verb{
		"click":      clickVerb("click TARGET [--button left|right|middle] [--count N] [--modifiers Shift,Control,…]"+act, 0, ""),
		"dblclick":   clickVerb("dblclick TARGET [--modifiers …]"+act, 2, ""),
		"rightclick": clickVerb("rightclick TARGET [--modifiers …]"+act, 0, "right"),
		"hover":      elementVerb("hover", "hover TARGET"+act, protocol.MethodHover),
		"check":      elementVerb("check", "check TARGET"+act, protocol.MethodCheck),
		"uncheck":    elementVerb("uncheck", "uncheck TARGET"+act, protocol.MethodUncheck),
		"focus":      elementVerb("focus", "focus TARGET"+act, protocol.MethodFocus),
	}
	v["fill"] = verb{
		usage: "fill TARGET TEXT [--append]" + act, method: protocol.MethodFill,
		params: func(a *argv, t protocol.Target) (any, error) {
			p := protocol.FillParams{Target: t, Append: a.boolean("--append"), ActionOptions: actionFlags(a)}
			args, err := a.exactly(2, v["fill"].usage)
			if err != nil {
				return nil, err
			}
			p.Element, p.Text = args[0], args[1]
			return p, nil
		},
		human: printAction("filled"),
	}
	var typed, pressed string // for the printers: known once the params are parsed
	v["type"] = verb{
		usage: "type [TARGET] TEXT [--delay D]" + act, method: protocol.MethodType,
		params: func(a *argv, t protocol.Target) (any, error) {
			delay := duration(a, "--delay")
			p := protocol.TypeParams{Target: t, DelayMs: int(delay.Milliseconds()), ActionOptions: actionFlags(a)}
			args, err := a.rest("type [TARGET] TEXT")
			if err != nil {
				return nil, err
			}
			switch len(args) {
			case 1:
				p.Text = args[0]
			case 2:
				p.Element, p.Text = args[0], args[1]
			default:
				return nil, usageError("usage: egohost type [TARGET] TEXT (without TARGET the keys go to the focused element)")
			}
			typed = strconv.Quote(clip(p.Text, 40))
			return p, nil
		},
		human: printKeys("typed", "into", &typed),
	}
	v["press"] = verb{
		usage: "press KEY [--target TARGET]" + act, method: protocol.MethodPress,
		params: func(a *argv, t protocol.Target) (any, error) {
			p := protocol.PressParams{Target: t, Element: a.flag("--target"), ActionOptions: actionFlags(a)}
			args, err := a.exactly(1, "press KEY [--target TARGET]")
			if err != nil {
				return nil, err
			}
			p.Key = args[0]
			pressed = p.Key
			return p, nil
		},
		human: printKeys("pressed", "on", &pressed),
	}
	v["select"] = verb{
		usage: "select TARGET VALUE… [--by value|label|index]" + act, method: protocol.MethodSelect,
		params: func(a *argv, t protocol.Target) (any, error) {
			by := a.flag("--by")
			p := protocol.SelectParams{Target: t, ActionOptions: actionFlags(a)}
			args, err := a.rest("select TARGET VALUE…")
			if err != nil {
				return nil, err
			}
			if len(args) < 1 {
				return nil, usageError("usage: egohost select TARGET VALUE… (no VALUE deselects all)")
			}
			p.Element = args[0]
			for _, s := range args[1:] {
				switch by {
				case "", "value":
					p.Values = append(p.Values, s)
				case "label":
					p.Labels = append(p.Labels, s)
				case "index":
					n, err := strconv.Atoi(s)
					if err != nil || n < 0 {
						return nil, usageError(fmt.Sprintf("select --by index: %q is not an index", s))
					}
					p.Indexes = append(p.Indexes, n)
				default:
					return nil, usageError(fmt.Sprintf("select --by %q: want value, label or index", by))
				}
			}
			return p, nil
		},
		human: printAction("selected in"),
	}
	v["drag"] = verb{
		usage: "drag FROM TO" + act, method: protocol.MethodDrag,
		params: func(a *argv, t protocol.Target) (any, error) {
			p := protocol.DragParams{Target: t, ActionOptions: actionFlags(a)}
			args, err := a.exactly(2, "drag FROM TO")
			if err != nil {
				return nil, err
			}
			p.Element, p.To = args[0], args[1]
			return p, nil
		},
		human: printAction("dragged"),
	}
	v["upload"] = verb{
		usage: "upload TARGET FILE…" + act, method: protocol.MethodUpload,
		params: func(a *argv, t protocol.Target) (any, error) {
			p := protocol.UploadParams{Target: t, ActionOptions: actionFlags(a)}
			args, err := a.rest("upload TARGET FILE…")
			if err != nil {
				return nil, err
			}
			if len(args) < 1 {
				return nil, usageError("usage: egohost upload TARGET FILE… (no FILE clears the input)")
			}
			p.Element = args[0]
			p.Files = []string{}
			for _, f := range args[1:] {
				abs, err := filepath.Abs(f)
				if err != nil {
					return nil, usageError(fmt.Sprintf("upload: %v", err))
				}
				p.Files = append(p.Files, abs)
			}
			return p, nil
		},
		human: printAction("uploaded to"),
	}
	v["scroll"] = verb{
		usage: "scroll [TARGET] [--dx N] [--dy N]" + act, method: protocol.MethodScroll,
		params: func(a *argv, t protocol.Target) (any, error) {
			p := protocol.ScrollParams{Target: t, DX: float(a, "--dx"), DY: float(a, "--dy"), ActionOptions: actionFlags(a)}
			args, err := a.rest("scroll [TARGET] [--dx N] [--dy N]")
			if err != nil {
				return nil, err
			}
			switch {
			case len(args) == 1:
				p.Element = args[0]
			case len(args) > 1 || (p.DX == 0 && p.DY == 0):
				return nil, usageError("usage: egohost scroll TARGET (into view), or scroll [TARGET] --dy N [--dx N] (the wheel)")
			}
			return p, nil
		},
		human: printAction("scrolled"),
	}
	v["wait"] = verb{
		usage:  "wait TARGET [--state attached|visible|hidden|detached] | wait --text T [--gone] | wait --url PATTERN | wait --load load|domcontentloaded|networkidle | wait --fn JS  [--timeout D] | wait --ms N",
		method: protocol.MethodWait,
		params: func(a *argv, t protocol.Target) (any, error) {
			p := protocol.WaitParams{
				Target: t, State: a.flag("--state"), Text: a.flag("--text"), Gone: a.boolean("--gone"),
				URL: a.flag("--url"), Load: a.flag("--load"), Function: a.flag("--fn", "--function"),
				TimeoutMs: a.timeoutMs(),
			}
			args, err := a.rest(v["wait"].usage)
			if err != nil {
				return nil, err
			}
			if len(args) > 1 {
				return nil, usageError("usage: egohost " + v["wait"].usage)
			}
			if len(args) == 1 {
				if _, err := config.ParseDuration(args[0]); err == nil {
					msg := fmt.Sprintf("wait %s: a number or a duration is a sleep (egohost wait %s, with no other flag but --json)", args[0], args[0])
					if _, err := strconv.Atoi(args[0]); err == nil {
						msg += "; to wait for the element with ref " + args[0] + ", write @" + args[0]
					}
					return nil, usageError(msg)
				}
				p.Element = args[0]
			}
			n := 0
			for _, s := range []string{p.Element, p.Text, p.URL, p.Load, p.Function} {
				if s != "" {
					n++
				}
			}
			if n != 1 {
				return nil, usageError("wait for one thing: TARGET, --text, --url, --load or --fn")
			}
			return p, nil
		},
		human: func(w io.Writer, raw json.RawMessage) error {
			var r protocol.WaitResult
			if err := json.Unmarshal(raw, &r); err != nil {
				return err
			}
			fmt.Fprintf(w, "waited %s for %s", ms(r.TookMs), r.What)
			if r.Value != nil {
				var b bytes.Buffer
				printJSON(&b, r.Value)
				fmt.Fprintf(w, ": %s", clip(strings.TrimSuffix(b.String(), "\n"), 200))
			}
			_, err := fmt.Fprintln(w)
			return err
		},
	}
	v["goto"] = verb{
		usage: "goto URL [--until load|domcontentloaded|networkidle|commit] [--timeout D]", method: protocol.MethodGoto,
		params: func(a *argv, t protocol.Target) (any, error) {
			p := protocol.GotoParams{Target: t, Until: a.flag("--until"), TimeoutMs: a.timeoutMs()}
			args, err := a.exactly(1, v["goto"].usage)
			if err != nil {
				return nil, err
			}
			p.URL = args[0]
			return p, nil
		},
		human: printNav,
	}
	for _, name := range []string{protocol.MethodBack, protocol.MethodForward, protocol.MethodReload} {
		usage := name + " [--until load|domcontentloaded|networkidle|commit] [--timeout D]"
		v[name] = verb{
			usage: usage, method: name,
			params: func(a *argv, t protocol.Target) (any, error) {
				p := protocol.NavParams{Target: t, Until: a.flag("--until"), TimeoutMs: a.timeoutMs()}
				if _, err := a.exactly(0, usage); err != nil {
					return nil, err
				}
				return p, nil
			},
			human: printNav,
		}
	}
	v["eval"] = verb{
		usage: "eval JS [--timeout D]", method: protocol.MethodEval,
		params: func(a *argv, t protocol.Target) (any, error) {
			p := protocol.EvalParams{Target: t, TimeoutMs: a.timeoutMs()}
			args, err := a.exactly(1, "eval JS")
			if err != nil {
				return nil, err
			}
			p.Expression = args[0]
			return p, nil
		},
		human: func(w io.Writer, raw json.RawMessage) error {
			var r struct {
				Value       json.RawMessage  `json:"value"`
				Type        string           `json:"type"`
				Description string           `json:"description"`
				Dialog      *protocol.Dialog `json:"dialog"`
			}
			if err := json.Unmarshal(raw, &r); err != nil {
				return err
			}
			if r.Dialog != nil {
				return printDialogOpened(w, r.Dialog)
			}
			switch {
			case r.Description != "":
				_, err := fmt.Fprintln(w, r.Description)
				return err
			case r.Type == "undefined":
				_, err := fmt.Fprintln(w, "undefined")
				return err
			}
			var s string
			if json.Unmarshal(r.Value, &s) == nil {
				_, err := fmt.Fprintln(w, s)
				return err
			}
			return printIndented(w, r.Value)
		},
	}
	v["screenshot"] = verb{
		usage: "screenshot FILE [--full] [--target TARGET] [--timeout D]", method: protocol.MethodScreenshot,
		params: func(a *argv, t protocol.Target) (any, error) {
			p := protocol.ScreenshotParams{Target: t, FullPage: a.boolean("--full"), Element: a.flag("--target"), TimeoutMs: a.timeoutMs()}
			args, err := a.exactly(1, v["screenshot"].usage)
			if err != nil {
				return nil, err
			}
			if p.FullPage && p.Element != "" {
				return nil, usageError("screenshot: --full and --target are exclusive")
			}
			abs, err := filepath.Abs(args[0])
			if err != nil {
				return nil, usageError(fmt.Sprintf("screenshot: %v", err))
			}
			p.Path = abs
			return p, nil
		},
		human: func(w io.Writer, raw json.RawMessage) error {
			var r protocol.ScreenshotResult
			if err := json.Unmarshal(raw, &r); err != nil {
				return err
			}
			what := "viewport"
			switch {
			case r.Element != "":
				what = r.Element
			case r.FullPage:
				what = "full page"
			}
			_, err := fmt.Fprintf(w, "wrote %s: %s, %d×%d, %s\n", r.Path, what, r.Width, r.Height, size(r.Bytes))
			return err
		},
	}
	v["dialog"] = verb{
		usage: "dialog accept|dismiss [TEXT] [--timeout D]", method: protocol.MethodDialog,
		params: func(a *argv, t protocol.Target) (any, error) {
			p := protocol.DialogParams{Target: t, TimeoutMs: a.timeoutMs()}
			args, err := a.rest(v["dialog"].usage)
			if err != nil {
				return nil, err
			}
			if len(args) < 1 || len(args) > 2 || (args[0] != "accept" && args[0] != "dismiss") || (args[0] == "dismiss" && len(args) == 2) {
				return nil, usageError("usage: egohost dialog accept [TEXT] | dialog dismiss (TEXT answers a prompt)")
			}
			p.Accept = args[0] == "accept"
			if len(args) == 2 {
				p.PromptText = args[1]
			}
			return p, nil
		},
		human: func(w io.Writer, raw json.RawMessage) error {
			var r protocol.DialogResult
			if err := json.Unmarshal(raw, &r); err != nil {
				return err
			}
			verb := "dismissed"
			if r.Accepted {
				verb = "accepted"
			}
			if r.Unreported {
				_, err := fmt.Fprintln(w, "dismissed a dialog that opened before egohost attached (Chrome did not say what it was, and lets egohost only dismiss it)")
				return err
			}
			if r.Dialog == nil {
				_, err := fmt.Fprintf(w, "%s the dialog\n", verb)
				return err
			}
			_, err := fmt.Fprintf(w, "%s %s %q\n", verb, r.Dialog.Type, r.Dialog.Message)
			return err
		},
	}
	v["download"] = verb{
		usage: "download [--click TARGET] [--timeout D]", method: protocol.MethodDownload,
		params: func(a *argv, t protocol.Target) (any, error) {
			p := protocol.DownloadParams{Target: t, Click: a.flag("--click"), TimeoutMs: a.timeoutMs()}
			if _, err := a.exactly(0, v["download"].usage); err != nil {
				return nil, err
			}
			return p, nil
		},
		human: func(w io.Writer, raw json.RawMessage) error {
			var r protocol.DownloadResult
			if err := json.Unmarshal(raw, &r); err != nil {
				return err
			}
			_, err := fmt.Fprintf(w, "downloaded %s to %s (%s) in %s\n", r.URL, r.Filename, size(int(r.Bytes)), ms(r.TookMs))
			return err
		},
	}
	return v
}

// clickVerb is click, dblclick or rightclick.
func clickVerb(usage string, count int, button string) verb {
	name, _, _ := strings.Cut(usage, " ")
	return verb{
		usage: usage, method: protocol.MethodClick,
		params: func(a *argv, t protocol.Target) (any, error) {
			p := protocol.ClickParams{Target: t, Button: button, Count: count, ActionOptions: actionFlags(a)}
			if b := a.flag("--button"); b != "" {
				p.Button = b
			}
			if n := a.int("--count"); n != 0 {
				p.Count = n
			}
			if m := a.flag("--modifiers"); m != "" {
				p.Modifiers = strings.Split(m, ",")
			}
			args, err := a.exactly(1, usage)
			if err != nil {
				return nil, err
			}
			p.Element = args[0]
			return p, nil
		},
		human: printAction(map[string]string{"click": "clicked", "dblclick": "double-clicked", "rightclick": "right-clicked"}[name]),
	}
}

// elementVerb is a verb that takes one TARGET: hover, check, uncheck, focus.
func elementVerb(name, usage, method string) verb {
	return verb{
		usage: usage, method: method,
		params: func(a *argv, t protocol.Target) (any, error) {
			p := protocol.ElementParams{Target: t, ActionOptions: actionFlags(a)}
			args, err := a.exactly(1, usage)
			if err != nil {
				return nil, err
			}
			p.Element = args[0]
			return p, nil
		},
		human: printAction(map[string]string{"hover": "hovered", "check": "checked", "uncheck": "unchecked", "focus": "focused"}[name]),
	}
}

// actionFlags takes the flags every action has.
func actionFlags(a *argv) protocol.ActionOptions {
	return protocol.ActionOptions{
		Force:     a.boolean("--force"),
		NoSettle:  a.boolean("--no-settle"),
		TimeoutMs: a.timeoutMs(),
	}
}

// duration takes "--name D": milliseconds (1500) or a Go duration (500ms, 10s).
func duration(a *argv, name string) time.Duration {
	v := a.flag(name)
	if v == "" {
		return 0
	}
	d, err := config.ParseDuration(v)
	if (err != nil || d < 0) && a.err == nil {
		a.err = usageError(fmt.Sprintf("%s %q is not a duration (milliseconds like 1500, or 500ms, 10s)", name, v))
	}
	return d
}

// float takes "--name N".
func float(a *argv, name string) float64 {
	v := a.flag(name)
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil && a.err == nil {
		a.err = usageError(fmt.Sprintf("%s %q is not a number", name, v))
	}
	return f
}

// printAction prints an action's result for people: what was done to
// which element, then what was waited for.
func printAction(did string) func(w io.Writer, raw json.RawMessage) error {
	return func(w io.Writer, raw json.RawMessage) error {
		var r protocol.ActionResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		return writeAction(w, did, r)
	}
}

// printKeys prints the result of press or type: which element had the
// focus (the keys went there), or that nothing had. *what is the key or
// the text, known once the params are parsed.
func printKeys(did, to string, what *string) func(w io.Writer, raw json.RawMessage) error {
	return func(w io.Writer, raw json.RawMessage) error {
		var r protocol.ActionResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		if r.Element == "" {
			return writeAction(w, did+" "+*what+" with nothing focused (the page got the keys)", r)
		}
		return writeAction(w, did+" "+*what+" "+to, r)
	}
}

// writeAction writes an action's result: what was done to which element,
// then what was waited for.
func writeAction(w io.Writer, did string, r protocol.ActionResult) error {
	var b bytes.Buffer
	b.WriteString(did)
	if r.Element != "" {
		b.WriteString(" " + clip(r.Element, 80))
	}
	switch {
	case r.Value != nil:
		fmt.Fprintf(&b, " → %q", clip(*r.Value, 80))
	case r.Selected != nil:
		fmt.Fprintf(&b, " → %s", strings.Join(r.Selected, ", "))
	case r.Checked != nil:
		if *r.Checked {
			b.WriteString(" → checked")
		} else {
			b.WriteString(" → unchecked")
		}
	case r.Scroll != nil:
		fmt.Fprintf(&b, " → window at (%.0f, %.0f)", r.Scroll.X, r.Scroll.Y)
	}
	fmt.Fprintf(&b, " in %s", ms(r.TookMs))
	var notes []string
	if r.Waited.Attempts > 1 {
		n := fmt.Sprintf("waited %s", ms(r.Waited.Ms))
		if len(r.Waited.Reasons) > 0 {
			n += ": " + strings.Join(r.Waited.Reasons, "; ")
		}
		notes = append(notes, n)
	}
	if len(r.Settled.For) > 0 {
		n := fmt.Sprintf("settled %s: %s", ms(r.Settled.Ms), strings.Join(r.Settled.For, ", "))
		if r.Settled.Capped {
			n += " (capped)"
		}
		notes = append(notes, n)
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, "; "))
	}
	b.WriteByte('\n')
	if r.Settled.Navigated && r.Settled.URL != "" {
		fmt.Fprintf(&b, "navigated to %s\n", r.Settled.URL)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	if r.Dialog != nil {
		return printDialogOpened(w, r.Dialog)
	}
	return nil
}

func printDialogOpened(w io.Writer, d *protocol.Dialog) error {
	_, err := fmt.Fprintf(w, "a JavaScript %s is open: %q (answer it: egohost dialog accept|dismiss)\n", d.Type, d.Message)
	return err
}

func printNav(w io.Writer, raw json.RawMessage) error {
	var r protocol.NavResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	return printNavResult(w, r)
}

func printNavResult(w io.Writer, r protocol.NavResult) error {
	switch {
	case r.Download:
		fmt.Fprintf(w, "%s started a download (egohost download waits for it)\n", r.URL)
	case r.SameDocument:
		fmt.Fprintf(w, "%s (same document) in %s\n", r.URL, ms(r.TookMs))
	default:
		fmt.Fprintf(w, "%s %q: %s in %s\n", r.URL, r.Title, r.Reached, ms(r.TookMs))
	}
	if r.Dialog != nil {
		return printDialogOpened(w, r.Dialog)
	}
	return nil
}

func ms(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.2f s", v/1000)
	}
	return fmt.Sprintf("%.0f ms", v)
}

func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
