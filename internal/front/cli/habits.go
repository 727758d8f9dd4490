package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/egohost/egohost/internal/setup/config"
	"github.com/egohost/egohost/protocol"
)

// Habits from the other browser tools, taken at face value: `wait 2000`
// and `wait --ms 2000` sleep (Playwright's waitForTimeout, agent-browser's
// `wait 2000`) instead of reading 2000 as a ref, and `tab --index N`
// selects the Nth tab of `egohost tabs` instead of a Chrome tab ID.

// waitFlags are the wait verb's own flags: any of them makes a wait for
// something in the page, never a sleep.
var waitFlags = []string{"state", "text", "gone", "url", "load", "fn", "function"}

// sleepRequest reports whether a parsed wait command line asks for a plain
// sleep: `wait --ms N` (N in milliseconds, or a duration), or `wait D`
// where D is a bare number of milliseconds or a duration ("1.5s"), with
// none of wait's own flags (the common ones mean nothing to a sleep). A
// number can never be a locator (CSS names do not start with a digit), so
// this takes nothing away; a ref is @N.
func sleepRequest(fs *pflag.FlagSet, ms time.Duration, args []string) (time.Duration, bool, error) {
	other := false
	for _, f := range waitFlags {
		other = other || fs.Changed(f)
	}
	if !fs.Changed("ms") {
		if len(args) != 1 || other {
			return 0, false, nil
		}
		d, err := config.ParseDuration(args[0])
		if err != nil {
			return 0, false, nil
		}
		if d < 0 {
			return 0, false, usageError(fmt.Sprintf("wait %s: a sleep must not be negative", args[0]))
		}
		return d, true, nil
	}
	if len(args) != 0 || other {
		return 0, false, usageError("usage: egohost wait --ms N (sleeps N milliseconds; it takes no TARGET, and no other flag but --json)")
	}
	return ms, true, nil
}

// sleepResult is what `wait --ms` prints with --json.
type sleepResult struct {
	What   string  `json:"what"`
	TookMs float64 `json:"tookMs"`
}

// addSleep gives the wait command its sleep: --ms N, or a bare N.
func (c *cli) addSleep(cmd *cobra.Command) {
	ms := newDuration(cmd.Flags(), "ms", false, "sleep N milliseconds (or a duration: 1.5s)")
	wait := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		d, ok, err := sleepRequest(cmd.Flags(), *ms, args)
		if err != nil {
			return err
		}
		if !ok {
			return wait(cmd, args)
		}
		e, err := c.env()
		if err != nil {
			return err
		}
		return e.sleep(cmd.Context(), d)
	}
}

// sleep sleeps d and says how long it took.
func (e *env) sleep(ctx context.Context, d time.Duration) error {
	start := time.Now()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("wait: %w", ctx.Err())
	case <-t.C:
	}
	r := sleepResult{What: "sleep " + d.String(), TookMs: float64(time.Since(start).Microseconds()) / 1000}
	if e.json {
		return printJSON(e.stdout, r)
	}
	_, err := fmt.Fprintf(e.stdout, "slept %s\n", ms(r.TookMs))
	return err
}

// addIndex gives the tab command --index N: the Nth tab of `egohost tabs`
// (counted from 0 as the list's # column) instead of a Chrome tab ID.
func (c *cli) addIndex(cmd *cobra.Command) {
	index := cmd.Flags().Int("index", 0, "select the tab at position `N` of egohost tabs (from 0)")
	selectTab := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if !cmd.Flags().Changed("index") {
			err := selectTab(cmd, args)
			if protocol.CodeOf(err) == protocol.CodeTabNotFound && len(args) == 1 && len(args[0]) <= 3 {
				// Chrome's tab IDs are large: a small number was likely a position.
				return fmt.Errorf("%w; for the tab at position %s of `egohost tabs`, use egohost tab --index %s", err, args[0], args[0])
			}
			return err
		}
		if len(args) > 0 {
			return usageError("usage: egohost tab ID | tab --index N (not both)")
		}
		if *index < 0 {
			return usageError(fmt.Sprintf("tab --index %d: want a position in `egohost tabs` (0, 1, …)", *index))
		}
		e, err := c.env()
		if err != nil {
			return err
		}
		browser, _ := cmd.Flags().GetString("browser")
		var list protocol.TabsListResult
		err = e.withConn(cmd.Context(), e.dialAgent, "tab", func(call connCaller) error {
			return call(protocol.MethodTabsList, protocol.TabsListParams{Browser: browser}, &list)
		})
		if err != nil {
			return err
		}
		id, err := tabAtIndex(list.Tabs, *index)
		if err != nil {
			return err
		}
		return selectTab(cmd, []string{strconv.Itoa(id)})
	}
}

// tabAtIndex returns the ID of the nth tab of a tabs.list answer.
func tabAtIndex(tabs []protocol.Tab, n int) (int, error) {
	switch {
	case len(tabs) == 0:
		return 0, usageError(fmt.Sprintf("tab --index %d: the browser has no tabs", n))
	case n >= len(tabs):
		return 0, usageError(fmt.Sprintf("tab --index %d: there are %d tabs (0 to %d; see `egohost tabs`)", n, len(tabs), len(tabs)-1))
	}
	return tabs[n].ID, nil
}

// printJSON writes v as one line of JSON, without escaping <, > and &
// (this is a terminal, not an HTML page).
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// unescapeHTML undoes encoding/json's HTML escaping in a JSON text: the
// \u0026, \u003c and \u003e escapes inside strings become the characters
// themselves, so `?a=1&b=2` reads as typed. Every other
// byte is kept; the result decodes to the same value.
func unescapeHTML(raw []byte) []byte {
	out := make([]byte, 0, len(raw))
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			inString = !inString
		case inString && c == '\\' && i+1 < len(raw):
			if i+6 <= len(raw) && raw[i+1] == 'u' {
				switch string(raw[i+2 : i+6]) {
				case "0026":
					out = append(out, '&')
					i += 5
					continue
				case "003c", "003C":
					out = append(out, '<')
					i += 5
					continue
				case "003e", "003E":
					out = append(out, '>')
					i += 5
					continue
				}
			}
			out = append(out, c, raw[i+1]) // an escape pair, kept whole
			i++
			continue
		}
		out = append(out, c)
	}
	return out
}
