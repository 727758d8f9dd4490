package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/egohost/egohost/internal/setup/config"
	"github.com/egohost/egohost/protocol"
)

// actionVerbs are the actions, waits and navigation verbs. TARGET is a
// @ref or a locator (quote it). --timeout D is the verb's auto-wait
// (default: the service's timeouts.action); the call itself may take a
// little longer (see callVerb).
func actionVerbs() map[string]verb {
	const actLong = "Waits until the element is actionable (visible, stable, enabled, receives events), acts,\nthen waits for what the action set off to settle (--no-settle skips that; --force skips the checks)."
	v := map[string]verb{
		"click": clickVerb("click", "click an element", 0, "",
			"  egohost click @12\n  egohost click 'role=button[name=\"Save\"]'\n  egohost click 'text=Next' --modifiers Shift"),
		"dblclick":   clickVerb("dblclick", "double-click an element", 2, "", "  egohost dblclick @7"),
		"rightclick": clickVerb("rightclick", "right-click an element (opens its context menu)", 0, "right", "  egohost rightclick @7"),
		"hover":      elementVerb("hover", "move the mouse over an element", protocol.MethodHover),
		"check":      elementVerb("check", "check a checkbox or radio button", protocol.MethodCheck),
		"uncheck":    elementVerb("uncheck", "uncheck a checkbox", protocol.MethodUncheck),
		"focus":      elementVerb("focus", "focus an element", protocol.MethodFocus),
	}
	v["fill"] = verb{
		use: "fill TARGET TEXT", short: "replace an input's value with TEXT (--append adds to it)", group: "act",
		long:    actLong + "\nA TEXT that starts with a dash goes after --: egohost fill @3 -- --text.",
		example: "  egohost fill label=Email me@example.com\n  egohost fill @3 ' more' --append\n  egohost fill @3 -- --not-a-flag",
		args:    nArgs(2, 2), method: protocol.MethodFill,
		flags: func(fs *pflag.FlagSet) paramsFunc {
			app := fs.Bool("append", false, "append TEXT to the current value")
			act := actionFlags(fs)
			return func(c common, args []string) (any, error) {
				return protocol.FillParams{Target: c.Target, Element: args[0], Text: args[1], Append: *app, ActionOptions: act(c)}, nil
			}
		},
		human: printAction("filled"),
	}
	var typed, pressed string // for the printers: known once the params are parsed
	v["type"] = verb{
		use: "type [TARGET] TEXT", short: "type TEXT key by key (into TARGET, else the focused element)", group: "act",
		example: "  egohost type @5 'hello world'\n  egohost type 'more text' --delay 50",
		args:    nArgs(1, 2), method: protocol.MethodType,
		flags: func(fs *pflag.FlagSet) paramsFunc {
			delay := newDuration(fs, "delay", false, "pause between keys")
			act := actionFlags(fs)
			return func(c common, args []string) (any, error) {
				p := protocol.TypeParams{Target: c.Target, DelayMs: int(delay.Milliseconds()), ActionOptions: act(c)}
				if len(args) == 1 {
					p.Text = args[0]
				} else {
					p.Element, p.Text = args[0], args[1]
				}
				typed = strconv.Quote(clip(p.Text, 40))
				return p, nil
			}
		},
		human: printKeys("typed", "into", &typed),
	}
	v["press"] = verb{
		use: "press KEY", short: "press a key or a chord (Enter, Control+A) on the focused element", group: "act",
		example: "  egohost press Enter\n  egohost press Control+A --target @4",
		args:    nArgs(1, 1), method: protocol.MethodPress,
		flags: func(fs *pflag.FlagSet) paramsFunc {
			target := fs.String("target", "", "focus this `TARGET` first")
			act := actionFlags(fs)
			return func(c common, args []string) (any, error) {
				pressed = args[0]
				return protocol.PressParams{Target: c.Target, Element: *target, Key: args[0], ActionOptions: act(c)}, nil
			}
		},
		human: printKeys("pressed", "on", &pressed),
	}
	v["select"] = verb{
		use: "select TARGET [VALUE…]", short: "select options of a <select>, or an entry of a combobox, listbox or menu button (no VALUE deselects all)", group: "act",
		example: "  egohost select @9 blue\n  egohost select label=Size Large --by label",
		args:    nArgs(1, -1), method: protocol.MethodSelect,
		flags: func(fs *pflag.FlagSet) paramsFunc {
			by := fs.String("by", "value", "match VALUEs by value|label|index")
			act := actionFlags(fs)
			return func(c common, args []string) (any, error) {
				p := protocol.SelectParams{Target: c.Target, Element: args[0], ActionOptions: act(c)}
				for _, s := range args[1:] {
					switch *by {
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
						return nil, usageError(fmt.Sprintf("select --by %q: want value, label or index", *by))
					}
				}
				return p, nil
			}
		},
		human: printAction("selected in"),
	}
	v["drag"] = verb{
		use: "drag FROM TO", short: "drag one element onto another", group: "act",
		example: "  egohost drag @4 @9",
		args:    nArgs(2, 2), method: protocol.MethodDrag,
		flags: func(fs *pflag.FlagSet) paramsFunc {
			act := actionFlags(fs)
			return func(c common, args []string) (any, error) {
				return protocol.DragParams{Target: c.Target, Element: args[0], To: args[1], ActionOptions: act(c)}, nil
			}
		},
		human: printAction("dragged"),
	}
	v["upload"] = verb{
		use: "upload TARGET [FILE…]", short: "set the files of a file input (no FILE clears it)", group: "act",
		example: "  egohost upload 'css=input[type=file]' report.pdf",
		args:    nArgs(1, -1), method: protocol.MethodUpload,
		flags: func(fs *pflag.FlagSet) paramsFunc {
			act := actionFlags(fs)
			return func(c common, args []string) (any, error) {
				p := protocol.UploadParams{Target: c.Target, Element: args[0], Files: []string{}, ActionOptions: act(c)}
				for _, f := range args[1:] {
					abs, err := filepath.Abs(f)
					if err != nil {
						return nil, usageError(fmt.Sprintf("upload: %v", err))
					}
					p.Files = append(p.Files, abs)
				}
				return p, nil
			}
		},
		human:   printAction("uploaded to"),
		prepare: (*env).uploadParams,
	}
	v["scroll"] = verb{
		use: "scroll [TARGET] [--dy N] [--dx N] | scroll up|down|left|right [N]", short: "scroll an element into view, or turn the wheel", group: "act",
		long:    "scroll TARGET brings the element into view; --dy/--dx turn the wheel (over TARGET, if given).\nscroll down 600 is --dy 600 (up, left and right likewise; N defaults to " + strconv.Itoa(scrollStep) + " pixels).",
		example: "  egohost scroll @40\n  egohost scroll --dy 600\n  egohost scroll @3 --dy -200\n  egohost scroll down 300",
		args:    nArgs(0, 2), method: protocol.MethodScroll,
		flags: func(fs *pflag.FlagSet) paramsFunc {
			dx := fs.Float64("dx", 0, "wheel pixels to the right")
			dy := fs.Float64("dy", 0, "wheel pixels down")
			act := actionFlags(fs)
			return func(c common, args []string) (any, error) {
				p := protocol.ScrollParams{Target: c.Target, DX: *dx, DY: *dy, ActionOptions: act(c)}
				if dir, ok := scrollDirections[strings.ToLower(args0(args))]; ok {
					if fs.Changed("dx") || fs.Changed("dy") {
						return nil, usageError("scroll " + args[0] + ": a direction excludes --dx and --dy")
					}
					n := float64(scrollStep)
					if len(args) == 2 {
						f, err := strconv.ParseFloat(args[1], 64)
						if err != nil || f <= 0 {
							return nil, usageError(fmt.Sprintf("scroll %s %q: want a number of pixels", args[0], args[1]))
						}
						n = f
					}
					p.DX, p.DY = dir[0]*n, dir[1]*n
					return p, nil
				}
				switch {
				case len(args) == 2:
					return nil, usageError("usage: egohost scroll up|down|left|right [N], or scroll [TARGET] --dy N [--dx N] (see egohost scroll --help)")
				case len(args) == 1:
					p.Element = args[0]
				case p.DX == 0 && p.DY == 0:
					return nil, usageError("usage: egohost scroll TARGET (into view), or scroll [TARGET] --dy N [--dx N] (the wheel)")
				}
				return p, nil
			}
		},
		human: printAction("scrolled"),
	}
	v["wait"] = verb{
		use:   "wait TARGET | --text T | --url P | --load L | --fn JS | --ms N | N",
		short: "wait for an element, text, URL, load state or function; or sleep", group: "act",
		long: "Waits for one thing: TARGET (--state attached|visible|hidden|detached, default visible),\n" +
			"--text T (--gone for its absence), --url PATTERN (glob, or /regexp/), --load STATE, or\n" +
			"--fn JS (until it returns a truthy value). `wait --ms N` and `wait N` sleep N milliseconds\n" +
			"(or a duration: 1.5s); a bare number is never a ref (write @N for one).",
		example: "  egohost wait @12 --state hidden\n  egohost wait --text Saved\n  egohost wait --url '**/done'\n  egohost wait 1500",
		args:    nArgs(0, 1), method: protocol.MethodWait,
		flags: func(fs *pflag.FlagSet) paramsFunc {
			state := fs.String("state", "", "for TARGET: attached|visible|hidden|detached")
			text := fs.String("text", "", "wait for this text in the page")
			gone := fs.Bool("gone", false, "with --text: wait for the text to go")
			url := fs.String("url", "", "wait for the URL to match this PATTERN")
			load := fs.String("load", "", "wait for load|domcontentloaded|networkidle")
			fn := fs.String("fn", "", "wait until this JS returns a truthy value")
			fs.StringVar(fn, "function", "", "the same as --fn")
			fs.MarkHidden("function")
			return func(c common, args []string) (any, error) {
				p := protocol.WaitParams{Target: c.Target, State: *state, Text: *text, Gone: *gone, URL: *url, Load: *load, Function: *fn, TimeoutMs: c.timeoutMs()}
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
					return nil, usageError("wait for one thing: TARGET, --text, --url, --load or --fn (or sleep: --ms N)")
				}
				return p, nil
			}
		},
		human: printAs(func(w io.Writer, r protocol.WaitResult) error {
			fmt.Fprintf(w, "waited %s for %s", ms(r.TookMs), r.What)
			if r.Value != nil {
				var b bytes.Buffer
				printJSON(&b, r.Value)
				fmt.Fprintf(w, ": %s", clip(strings.TrimSuffix(b.String(), "\n"), 200))
			}
			_, err := fmt.Fprintln(w)
			return err
		}),
	}
	v["goto"] = verb{
		use: "goto URL", short: "navigate the tab to URL and wait for its load", group: "tabs",
		example: "  egohost goto example.com\n  egohost goto https://example.com/app --until networkidle",
		args:    nArgs(1, 1), method: protocol.MethodGoto,
		flags: func(fs *pflag.FlagSet) paramsFunc {
			until := untilFlag(fs)
			return func(c common, args []string) (any, error) {
				return protocol.GotoParams{Target: c.Target, URL: args[0], Until: *until, TimeoutMs: c.timeoutMs()}, nil
			}
		},
		human: printAs(printNavResult),
	}
	for name, short := range map[string]string{protocol.MethodBack: "go back in the tab's history", protocol.MethodForward: "go forward in the tab's history", protocol.MethodReload: "reload the page"} {
		v[name] = verb{
			use: name, short: short, group: "tabs",
			args: nArgs(0, 0), method: name,
			flags: func(fs *pflag.FlagSet) paramsFunc {
				until := untilFlag(fs)
				return func(c common, _ []string) (any, error) {
					return protocol.NavParams{Target: c.Target, Until: *until, TimeoutMs: c.timeoutMs()}, nil
				}
			},
			human: printAs(printNavResult),
		}
	}
	v["eval"] = verb{
		use: "eval JS [TARGET]", short: "evaluate JavaScript in the page, print its value", group: "read",
		long: "Evaluates JS in the page's main frame and prints its value (promises awaited, top-level await allowed).\n" +
			"With TARGET (a @ref or a locator of one element), JS is a function called with that element, in the\n" +
			"page's own world of the element's frame (an iframe's too): egohost eval '(el) => el.outerHTML' @12.",
		example: "  egohost eval document.title\n  egohost eval 'await fetch(\"/api\").then(r => r.status)'\n  egohost eval '(el) => el.outerHTML' @12",
		args:    nArgs(1, 2), method: protocol.MethodEval,
		flags: noFlags(func(c common, args []string) (any, error) {
			p := protocol.EvalParams{Target: c.Target, Expression: args[0], TimeoutMs: c.timeoutMs()}
			if len(args) == 2 {
				p.Element = args[1]
			}
			return p, nil
		}),
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
		use: "screenshot FILE", short: "write a PNG of the viewport, the full page or an element", group: "read",
		long: "The service sends the PNG and this command writes FILE itself, with your rights: a new\n" +
			"file, or a regular file replaced (never through a symlink, never in egohost's state folder).",
		example: "  egohost screenshot page.png\n  egohost screenshot all.png --full\n  egohost screenshot form.png --target '#form'",
		args:    nArgs(1, 1), method: protocol.MethodScreenshot,
		flags: func(fs *pflag.FlagSet) paramsFunc {
			full := fs.Bool("full", false, "the whole page, not just the viewport")
			target := fs.String("target", "", "only this element (`TARGET`)")
			return func(c common, args []string) (any, error) {
				p := protocol.ScreenshotParams{Target: c.Target, FullPage: *full, Element: *target, TimeoutMs: c.timeoutMs()}
				if p.FullPage && p.Element != "" {
					return nil, usageError("screenshot: --full and --target are exclusive")
				}
				abs, err := filepath.Abs(args[0])
				if err != nil {
					return nil, usageError(fmt.Sprintf("screenshot: %v", err))
				}
				return screenshotCall{ScreenshotParams: p, file: abs}, nil
			}
		},
		finish: (*env).saveScreenshot,
		human: printAs(func(w io.Writer, r protocol.ScreenshotResult) error {
			what := "viewport"
			switch {
			case r.Element != "":
				what = r.Element
			case r.FullPage:
				what = "full page"
			}
			_, err := fmt.Fprintf(w, "wrote %s: %s, %d×%d, %s\n", r.Path, what, r.Width, r.Height, size(r.Bytes))
			return err
		}),
	}
	v["dialog"] = verb{
		use: "dialog accept [TEXT] | dialog dismiss", short: "answer the JavaScript dialog (alert, confirm, prompt)", group: "act",
		example: "  egohost dialog accept\n  egohost dialog accept 'my answer'\n  egohost dialog dismiss",
		args:    nArgs(1, 2), method: protocol.MethodDialog,
		flags: noFlags(func(c common, args []string) (any, error) {
			if (args[0] != "accept" && args[0] != "dismiss") || (args[0] == "dismiss" && len(args) == 2) {
				return nil, usageError("usage: egohost dialog accept [TEXT] | dialog dismiss (TEXT answers a prompt)")
			}
			p := protocol.DialogParams{Target: c.Target, Accept: args[0] == "accept", TimeoutMs: c.timeoutMs()}
			if len(args) == 2 {
				p.PromptText = args[1]
			}
			return p, nil
		}),
		human: printAs(func(w io.Writer, r protocol.DialogResult) error {
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
			closed := ""
			if r.TabClosed {
				closed = " (the tab closed)"
			}
			_, err := fmt.Fprintf(w, "%s %s %q%s\n", verb, r.Dialog.Type, r.Dialog.Message, closed)
			return err
		}),
	}
	v["download"] = verb{
		use: "download", short: "wait for a download (--click TARGET starts it) and print where it went", group: "act",
		example: "  egohost download --click 'text=Export CSV'",
		args:    nArgs(0, 0), method: protocol.MethodDownload,
		flags: func(fs *pflag.FlagSet) paramsFunc {
			click := fs.String("click", "", "click this `TARGET` to start the download")
			return func(c common, _ []string) (any, error) {
				return protocol.DownloadParams{Target: c.Target, Click: *click, TimeoutMs: c.timeoutMs()}, nil
			}
		},
		human: printAs(func(w io.Writer, r protocol.DownloadResult) error {
			_, err := fmt.Fprintf(w, "downloaded %s to %s (%s) in %s\n", r.URL, r.Filename, size(int(r.Bytes)), ms(r.TookMs))
			return err
		}),
	}
	for name, vb := range v {
		if vb.group == "" {
			vb.group = "act"
		}
		if vb.long == "" && vb.group == "act" && name != "dialog" && name != "download" && name != "wait" {
			vb.long = actLong
		}
		v[name] = vb
	}
	return v
}

// scrollStep is what `scroll down` turns the wheel by when no N is given.
const scrollStep = 300

// scrollDirections are the words of `scroll up|down|left|right [N]`
// (agent-browser's): the wheel's sign on x and y.
var scrollDirections = map[string][2]float64{"up": {0, -1}, "down": {0, 1}, "left": {-1, 0}, "right": {1, 0}}

// args0 is the first argument, or "".
func args0(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// untilFlag declares --until, the load state a navigation waits for.
func untilFlag(fs *pflag.FlagSet) *string {
	return fs.String("until", "", "wait for load|domcontentloaded|networkidle|commit (default load)")
}

// clickVerb is click, dblclick or rightclick.
func clickVerb(name, short string, count int, button, example string) verb {
	return verb{
		use: name + " TARGET", short: short, example: example,
		args: nArgs(1, 1), method: protocol.MethodClick,
		flags: func(fs *pflag.FlagSet) paramsFunc {
			// Only click chooses its button and count: rightclick is the
			// right button, dblclick two clicks.
			btn, n := &button, &count
			if name == "click" {
				btn = fs.String("button", button, "left|right|middle")
				n = fs.Int("count", count, "clicks (2 is a double click)")
			}
			mods := fs.StringSlice("modifiers", nil, "keys held: Shift,Control,Alt,Meta")
			act := actionFlags(fs)
			return func(c common, args []string) (any, error) {
				return protocol.ClickParams{Target: c.Target, Element: args[0], Button: *btn, Count: *n, Modifiers: *mods, ActionOptions: act(c)}, nil
			}
		},
		human: printAction(map[string]string{"click": "clicked", "dblclick": "double-clicked", "rightclick": "right-clicked"}[name]),
	}
}

// elementVerb is a verb that takes one TARGET: hover, check, uncheck, focus.
func elementVerb(name, short, method string) verb {
	return verb{
		use: name + " TARGET", short: short, example: "  egohost " + name + " @12",
		args: nArgs(1, 1), method: method,
		flags: func(fs *pflag.FlagSet) paramsFunc {
			act := actionFlags(fs)
			return func(c common, args []string) (any, error) {
				return protocol.ElementParams{Target: c.Target, Element: args[0], ActionOptions: act(c)}, nil
			}
		},
		human: printAction(map[string]string{"hover": "hovered", "check": "checked", "uncheck": "unchecked", "focus": "focused"}[name]),
	}
}

// actionFlags declares the flags every action has.
func actionFlags(fs *pflag.FlagSet) func(common) protocol.ActionOptions {
	force := fs.Bool("force", false, "skip the actionability checks")
	noSettle := fs.Bool("no-settle", false, "return without waiting for what the action set off")
	return func(c common) protocol.ActionOptions {
		return protocol.ActionOptions{Force: *force, NoSettle: *noSettle, TimeoutMs: c.timeoutMs()}
	}
}
