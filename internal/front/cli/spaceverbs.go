package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/egohost/egohost/protocol"
)

// spaceVerbs are the subcommands of "space": an agent's spaces (tab
// groups), and the person's take over / hand back.
func spaceVerbs() map[string]verb {
	// one builds the params of a verb that names one space (or none: the
	// agent's current space).
	one := func(c common, args []string) (any, error) {
		return protocol.SpaceParams{Space: optArg(args)}, nil
	}
	return map[string]verb{
		"space list": {
			use: "list", short: "list the spaces (an agent: its own; --all: everyone's)", group: "agents",
			example: "  egohost space list\n  egohost --agent alice space list",
			args:    nArgs(0, 0), method: protocol.MethodSpacesList,
			flags: func(fs *pflag.FlagSet) paramsFunc {
				all := fs.Bool("all", false, "every agent's spaces")
				return func(c common, args []string) (any, error) { return protocol.SpacesListParams{All: *all}, nil }
			},
			human: printAs(printSpaces),
		},
		"space new": {
			use: "new [URL]", short: "make a new space (a tab group) with a tab, and use it", group: "agents",
			example: "  egohost --agent alice space new --task 'book a flight' example.com",
			args:    nArgs(0, 1), method: protocol.MethodSpacesNew,
			flags: func(fs *pflag.FlagSet) paramsFunc {
				task := fs.String("task", "", "what the agent does there (shown in the group's title)")
				bg := fs.Bool("background", false, "open its tab without activating it")
				return func(c common, args []string) (any, error) {
					return protocol.SpacesNewParams{Browser: c.Browser, Task: *task, Background: *bg, URL: optArg(args)}, nil
				}
			},
			human: printSpace("new space"),
		},
		"space use": {
			use: "use SPACE", short: "make SPACE the agent's current space", group: "agents",
			args: nArgs(1, 1), method: protocol.MethodSpacesUse, flags: noFlags(one),
			human: printSpace("using space"),
		},
		"space claim": {
			use: "claim TAB", short: "move a tab of the person's into the agent's current space", group: "agents",
			example: "  egohost --agent alice space claim 1234",
			args:    nArgs(1, 1), method: protocol.MethodSpacesClaim,
			flags: func(fs *pflag.FlagSet) paramsFunc {
				space := fs.String("space", "", "the agent's `SPACE` to put it in (default: the current one)")
				return func(c common, args []string) (any, error) {
					id, err := strconv.Atoi(args[0])
					if err != nil || id <= 0 {
						return nil, usageError(fmt.Sprintf("space claim: %q is not a tab ID", args[0]))
					}
					return protocol.SpacesClaimParams{Target: protocol.Target{Browser: c.Browser, Tab: id}, Space: *space}, nil
				}
			},
			human: printSpace("claimed into space"),
		},
		"space complete": {
			use: "complete [SPACE]", short: "end a space whose task is done: close its tabs, or --keep them for the person", group: "agents",
			args: nArgs(0, 1), method: protocol.MethodSpacesComplete,
			flags: func(fs *pflag.FlagSet) paramsFunc {
				keep := fs.Bool("keep", false, "leave the tabs open for the person, in a group marked done")
				return func(c common, args []string) (any, error) {
					return protocol.SpacesCompleteParams{Keep: *keep, Space: optArg(args)}, nil
				}
			},
			human: printAs(printEnded),
		},
		"space close": {
			use: "close [SPACE]", short: "end a space and close its tabs", group: "agents",
			args: nArgs(0, 1), method: protocol.MethodSpacesClose, flags: noFlags(one),
			human: printAs(printEnded),
		},
		"space take-over": {
			use: "take-over SPACE", short: "the person takes a space over: its agent's calls fail with user_in_control", group: "agents",
			args: nArgs(1, 1), method: protocol.MethodSpacesTakeOver, flags: noFlags(one),
			human: printSpace("you have space"),
		},
		"space hand-back": {
			use: "hand-back SPACE", short: "hand a space back to its agent", group: "agents",
			args: nArgs(1, 1), method: protocol.MethodSpacesHandBack, flags: noFlags(one),
			human: printSpace("handed back space"),
		},
		"space wait": {
			use: "wait [SPACE]", short: "wait until the person hands the space back (--timeout)", group: "agents",
			args: nArgs(0, 1), method: protocol.MethodSpacesWaitForControl,
			flags: noFlags(func(c common, args []string) (any, error) {
				return protocol.SpacesWaitParams{TimeoutMs: c.timeoutMs(), Space: optArg(args)}, nil
			}),
			human: printSpace("in control of space"),
		},
	}
}

func spaceLine(sp protocol.Space) string {
	tabs := make([]string, len(sp.Tabs))
	for i, t := range sp.Tabs {
		tabs[i] = strconv.Itoa(t)
	}
	cur := ""
	if sp.Current {
		cur = " (current)"
	}
	line := fmt.Sprintf("%s  %-7s  %s  %s  tabs [%s]%s", sp.ID, sp.State, sp.Color, sp.Title, strings.Join(tabs, " "), cur)
	for _, t := range closeFirstLines(sp.Agent, sp.CloseFirst) {
		line += "\n  " + t
	}
	for _, t := range sp.Scripted {
		line += fmt.Sprintf("\n  ! tab %d: %s ran its own script in this page, which can read what you type there: reload it first (egohost reload --tab %d)", t, sp.Agent, t)
	}
	return line
}

// closeFirstLines say which tabs linked to scripted ones to close before
// reloading those (protocol.Space.CloseFirst); who ran the script.
func closeFirstLines(who string, tabs []int) []string {
	lines := make([]string, len(tabs))
	for i, t := range tabs {
		lines[i] = closeFirstLine(who, protocol.Target{Tab: t})
	}
	return lines
}

// closeFirstLine is closeFirstLines' line of one tab (of t.Browser, when
// the line names one).
func closeFirstLine(who string, t protocol.Target) string {
	of, flag := "", ""
	if t.Browser != "" {
		of, flag = " of "+t.Browser, "--browser "+t.Browser+" "
	}
	return fmt.Sprintf("! tab %d%s: a page %s's script ran in opened this one, or was opened by it, so the script may run here too and put itself back into that page after a reload: close this tab first (egohost close %s--tab %d)", t.Tab, of, who, flag, t.Tab)
}

func printSpaces(w io.Writer, r protocol.SpacesListResult) error {
	if len(r.Spaces) == 0 {
		_, err := fmt.Fprintln(w, "no spaces")
		return err
	}
	for _, sp := range r.Spaces {
		if _, err := fmt.Fprintln(w, spaceLine(sp)); err != nil {
			return err
		}
	}
	return nil
}

func printSpace(what string) func(w io.Writer, raw json.RawMessage) error {
	return printAs(func(w io.Writer, r protocol.SpaceResult) error {
		_, err := fmt.Fprintf(w, "%s %s\n", what, spaceLine(r.Space))
		if err == nil && r.Tab != nil {
			_, err = fmt.Fprintf(w, "tab %d %s\n", r.Tab.ID, r.Tab.URL)
		}
		return err
	})
}

func printEnded(w io.Writer, r protocol.SpacesCompleteResult) error {
	_, err := fmt.Fprintf(w, "space %s ended: %d tab(s) closed, %d kept\n", r.Space, len(r.Closed), len(r.Kept))
	for _, line := range closeFirstLines("an agent", r.CloseFirst) {
		if err == nil {
			_, err = fmt.Fprintf(w, "  %s\n", line)
		}
	}
	for _, t := range r.Scripted {
		if err == nil {
			_, err = fmt.Fprintf(w, "  ! tab %d ran an agent's own script, which can read what is typed there: reload it before typing (egohost reload --tab %d)\n", t, t)
		}
	}
	return err
}
