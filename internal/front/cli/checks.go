package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/egohost/egohost/internal/engine/locator"
	"github.com/egohost/egohost/protocol"
)

// What the command line can be checked for before anything dials the
// service: a target that can never name an element, a common flag the
// verb does not use, a flag that does not exist (with the closest ones).

// targetKeys are the params that hold a @ref or a locator.
var targetKeys = []string{"target", "to", "scope", "click"}

// checkParams refuses, as command-line mistakes, a target that does not
// parse (a locator's syntax, another tool's ref such as e12) and a common
// flag (--browser, --tab, --timeout) that the verb's call does not carry.
func checkParams(cmd *cobra.Command, params any) error {
	b, err := json.Marshal(params)
	if err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return nil // not an object: nothing to look at
	}
	for _, k := range targetKeys {
		var s string
		if json.Unmarshal(m[k], &s) != nil || s == "" {
			continue
		}
		if err := checkTarget(s); err != nil {
			return err
		}
	}
	for flag, key := range map[string]string{"browser": "browser", "tab": "tab", "timeout": "timeoutMs"} {
		if f := cmd.Flags().Lookup(flag); f != nil && f.Changed {
			if _, ok := m[key]; !ok {
				return usageError(fmt.Sprintf("%s takes no --%s here: it would change nothing (see %s --help)", cmd.CommandPath(), flag, cmd.CommandPath()))
			}
		}
	}
	return nil
}

// checkTarget is the check the service makes of a target before it looks
// at the page: a ref (@12), else a locator that parses.
func checkTarget(s string) error {
	if _, ok := locator.ParseRef(s); ok {
		return nil
	}
	if locator.ForeignRef(s) {
		return usageError(fmt.Sprintf("%q is another tool's ref: %v", s, locator.ErrForeignRef))
	}
	if _, err := locator.Parse(s); err != nil {
		var se *locator.SyntaxError
		if errors.As(err, &se) {
			return usageError(fmt.Sprintf("%v (see docs/locators.md)", se))
		}
		return usageError(err.Error())
	}
	return nil
}

// flagError words a flag the command line got wrong: pflag's words
// without Go's parser internals, and for an unknown flag the closest
// ones the command has.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	// pflag's error for a number or a bool that does not parse (compiled
	// here: a mistake is rare, and every call would pay at start).
	badValue := regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([\w-]+)" flag: strconv\.(Parse\w+): `)
	if m := badValue.FindStringSubmatch(msg); m != nil {
		want := map[string]string{"ParseInt": "a whole number", "ParseUint": "a whole number", "ParseFloat": "a number", "ParseBool": "true or false"}[m[3]]
		msg = fmt.Sprintf("--%s %q: want %s", m[2], m[1], want)
	} else if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		if s := closestFlags(cmd, name); len(s) > 0 {
			msg += "; did you mean --" + strings.Join(s, " or --") + "?"
		}
	}
	return usageError(fmt.Sprintf("%s (see %s --help)", msg, cmd.CommandPath()))
}

// closestFlags returns the command's flags nearest to name: within two
// edits, or starting with it, the nearest only.
func closestFlags(cmd *cobra.Command, name string) []string {
	best := map[int][]string{}
	seen := map[string]bool{}
	add := func(f *pflag.Flag) {
		if f.Hidden || seen[f.Name] {
			return
		}
		seen[f.Name] = true
		d := editDistance(name, f.Name)
		if len(name) >= 2 && strings.HasPrefix(f.Name, name) {
			d = min(d, 1)
		}
		if d <= 2 {
			best[d] = append(best[d], f.Name)
		}
	}
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	for d := range 3 {
		if len(best[d]) > 0 {
			slices.Sort(best[d])
			return best[d]
		}
	}
	return nil
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// envJSON reports whether $EGOHOST_JSON asks for JSON (1, true, yes).
func envJSON() bool {
	v, err := strconv.ParseBool(os.Getenv("EGOHOST_JSON"))
	return err == nil && v || strings.EqualFold(os.Getenv("EGOHOST_JSON"), "yes")
}

// flagValues are the values a flag takes, for shell completion.
var flagValues = map[string][]string{
	"until": {"load", "domcontentloaded", "networkidle", "commit"},
	"load":  {"load", "domcontentloaded", "networkidle"},
	"level": {"debug", "info", "warning", "error"},
	"state": {"attached", "visible", "hidden", "detached"},
	"by":    {"value", "label", "index"},
}

// completeFlags registers the completion of cmd's flag values: the fixed
// ones, and --browser and --tab from the running service.
func (c *cli) completeFlags(cmd *cobra.Command) {
	for name, values := range flagValues {
		if cmd.Flags().Lookup(name) != nil {
			cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
		}
	}
	if cmd.Flags().Lookup("browser") != nil {
		cmd.RegisterFlagCompletionFunc("browser", func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var r protocol.BrowsersListResult
			if c.completionCall(cmd.Context(), protocol.MethodBrowsersList, nil, &r) != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, b := range r.Browsers {
				out = append(out, cobra.CompletionWithDesc(b.ID, clip(b.UserAgent, 60)))
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		})
	}
	if cmd.Flags().Lookup("tab") != nil {
		cmd.RegisterFlagCompletionFunc("tab", func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			browser, _ := cmd.Flags().GetString("browser")
			var r protocol.TabsListResult
			if c.completionCall(cmd.Context(), protocol.MethodTabsList, protocol.TabsListParams{Browser: browser}, &r) != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, t := range r.Tabs {
				out = append(out, cobra.CompletionWithDesc(strconv.Itoa(t.ID), clip(t.Title+" "+t.URL, 60)))
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		})
	}
}

// completionCall asks the running service one thing for a completion;
// any failure completes nothing.
func (c *cli) completionCall(ctx context.Context, method string, params, result any) error {
	e, err := c.env()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, e.cfg.Timeouts.Connect)
	defer cancel()
	cl, err := e.dial(ctx)
	if err != nil {
		return err
	}
	defer cl.Close()
	return cl.Call(ctx, method, params, result)
}
