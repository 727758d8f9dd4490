package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/egohost/egohost/config"
	"github.com/egohost/egohost/protocol"
)

// Habits from the other browser tools, taken at face value: `wait 2000`
// and `wait --ms 2000` sleep (Playwright's waitForTimeout, agent-browser's
// `wait 2000`) instead of reading 2000 as a ref, and `tab --index N`
// selects the Nth tab of `egohost tabs` instead of a Chrome tab ID.

// sleepRequest reports whether a wait command line asks for a plain
// sleep: `wait --ms N` (N in milliseconds, or a duration), or `wait D`
// where D is a bare number of milliseconds or a duration ("1.5s"). Only
// --json and the common flags (ignored) may come with it. A number can never be a locator (CSS names do
// not start with a digit), so this takes nothing away; a ref is @N.
func sleepRequest(args []string) (d time.Duration, asJSON, ok bool, err error) {
	a := &argv{args: args}
	ms := a.flag("--ms")
	asJSON = a.boolean("--json")
	a.flag("--browser", "--tab", "--timeout") // the common flags mean nothing to a sleep
	rest, restErr := a.rest("wait --ms N")
	if ms == "" {
		if restErr != nil || len(rest) != 1 {
			return 0, false, false, nil
		}
		d, perr := config.ParseDuration(rest[0])
		if perr != nil {
			return 0, false, false, nil
		}
		ms = rest[0]
		if d < 0 {
			return 0, false, false, usageError(fmt.Sprintf("wait %s: a sleep must not be negative", ms))
		}
		return d, asJSON, true, nil
	}
	if restErr != nil || len(rest) != 0 {
		return 0, false, false, usageError("usage: egohost wait --ms N (sleeps N milliseconds; it takes no TARGET, and no other flag but --json)")
	}
	d, err = config.ParseDuration(ms)
	if err != nil || d < 0 {
		return 0, false, false, usageError(fmt.Sprintf("wait --ms %q: want milliseconds (1500) or a duration (1.5s)", ms))
	}
	return d, asJSON, true, nil
}

// sleepResult is what `wait --ms` prints with --json.
type sleepResult struct {
	What   string  `json:"what"`
	TookMs float64 `json:"tookMs"`
}

// wait sleeps when asked to (see sleepRequest), else waits for something
// in the page through the service.
func (e *env) wait(ctx context.Context, args []string) error {
	d, asJSON, ok, err := sleepRequest(args)
	if err != nil {
		return err
	}
	if !ok {
		return e.callVerb(ctx, e.verbs()["wait"], args)
	}
	start := time.Now()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("wait: %w", ctx.Err())
	case <-t.C:
	}
	r := sleepResult{What: "sleep " + d.String(), TookMs: float64(time.Since(start).Microseconds()) / 1000}
	if asJSON {
		return printJSON(e.stdout, r)
	}
	_, err = fmt.Fprintf(e.stdout, "slept %s\n", ms(r.TookMs))
	return err
}

// tab selects a tab by Chrome tab ID (`tab 123`) or by its position in
// `egohost tabs` (`tab --index 0`, counted from 0 as the list's # column).
func (e *env) tab(ctx context.Context, args []string) error {
	index, rest := takeFlag(args, "--index")
	if index == "" {
		err := e.callVerb(ctx, e.verbs()["tab"], args)
		if protocol.CodeOf(err) == protocol.CodeTabNotFound {
			a := &argv{args: args}
			a.flag("--browser", "--tab", "--timeout")
			a.boolean("--json")
			if pos, _ := a.rest("tab ID"); len(pos) == 1 && len(pos[0]) <= 3 {
				// Chrome's tab IDs are large: a small number was likely a position.
				return fmt.Errorf("%w; for the tab at position %s of `egohost tabs`, use egohost tab --index %s", err, pos[0], pos[0])
			}
		}
		return err
	}
	n, err := strconv.Atoi(index)
	if err != nil || n < 0 {
		return usageError(fmt.Sprintf("tab --index %q: want a position in `egohost tabs` (0, 1, …)", index))
	}
	browser, _ := takeFlag(rest, "--browser")
	if pos, _ := (&argv{args: rest}).rest("tab --index N"); len(pos) > 0 {
		return usageError("usage: egohost tab ID | tab --index N (not both)")
	}
	lctx, cancel := context.WithTimeout(ctx, e.cfg.Timeouts.Request)
	defer cancel()
	c, err := e.dial(lctx)
	if err != nil {
		return err
	}
	var list protocol.TabsListResult
	err = c.Call(lctx, protocol.MethodTabsList, protocol.TabsListParams{Browser: browser}, &list)
	c.Close()
	if err != nil {
		return err
	}
	id, err := tabAtIndex(list.Tabs, n)
	if err != nil {
		return err
	}
	return e.callVerb(ctx, e.verbs()["tab"], append(rest, strconv.Itoa(id)))
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
