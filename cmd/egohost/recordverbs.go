package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/egohost/egohost/protocol"
)

// subVerb turns "cookies [get|set|clear] …" into the verb "cookies get"
// (the default), "cookies set" or "cookies clear".
func subVerb(cmd string, args []string) (string, []string) {
	if cmd != "cookies" {
		return cmd, args
	}
	if len(args) > 0 {
		switch args[0] {
		case "get", "set", "clear":
			return cmd + " " + args[0], args[1:]
		}
	}
	return cmd + " get", args
}

// recordVerbs read what the service records of a tab (console, network)
// and the tab's cookies.
func recordVerbs() map[string]verb {
	const (
		consoleUsage = "console [--level debug|info|warning|error] [--clear]"
		networkUsage = "network [--static] [--clear]"
		getUsage     = "cookies [get] [NAME]"
		setUsage     = "cookies set NAME VALUE [--domain D] [--path P] [--expires UNIX_SECONDS] [--http-only] [--secure] [--same-site Strict|Lax|None]"
		clearUsage   = "cookies clear [NAME]"
	)
	return map[string]verb{
		"console": {
			usage: consoleUsage, method: protocol.MethodConsoleList,
			params: func(a *argv, t protocol.Target) (any, error) {
				p := protocol.ConsoleListParams{Target: t, Level: a.flag("--level"), Clear: a.boolean("--clear")}
				if _, err := a.exactly(0, consoleUsage); err != nil {
					return nil, err
				}
				return p, nil
			},
			human: func(w io.Writer, raw json.RawMessage) error {
				var r protocol.ConsoleListResult
				if err := json.Unmarshal(raw, &r); err != nil {
					return err
				}
				for _, m := range r.Messages {
					loc := ""
					if m.URL != "" {
						loc = fmt.Sprintf("  (%s:%d)", m.URL, m.Line)
					}
					fmt.Fprintf(w, "%s [%s] %s%s\n", msTime(m.Time), m.Level, m.Text, loc)
				}
				if r.Dropped > 0 {
					fmt.Fprintf(w, "(%d older messages were dropped)\n", r.Dropped)
				}
				return nil
			},
		},
		"network": {
			usage: networkUsage, method: protocol.MethodNetworkList,
			params: func(a *argv, t protocol.Target) (any, error) {
				p := protocol.NetworkListParams{Target: t, Static: a.boolean("--static"), Clear: a.boolean("--clear")}
				if _, err := a.exactly(0, networkUsage); err != nil {
					return nil, err
				}
				return p, nil
			},
			human: func(w io.Writer, raw json.RawMessage) error {
				var r protocol.NetworkListResult
				if err := json.Unmarshal(raw, &r); err != nil {
					return err
				}
				for _, q := range r.Requests {
					status := "pending"
					switch {
					case q.Failed != "":
						status = "failed: " + q.Failed
					case q.Status != 0:
						status = strconv.Itoa(q.Status)
					}
					fmt.Fprintf(w, "%s %-6s %s %s  %s\n", msTime(q.Time), q.Method, status, q.Type, q.URL)
				}
				if r.Dropped > 0 {
					fmt.Fprintf(w, "(%d older requests were dropped)\n", r.Dropped)
				}
				return nil
			},
		},
		"cookies get": {
			usage: getUsage, method: protocol.MethodCookiesGet,
			params: func(a *argv, t protocol.Target) (any, error) {
				args, err := a.rest(getUsage)
				if err != nil {
					return nil, err
				}
				if len(args) > 1 {
					return nil, usageError("usage: egohost " + getUsage)
				}
				p := protocol.CookiesGetParams{Target: t}
				if len(args) == 1 {
					p.Name = args[0]
				}
				return p, nil
			},
			human: printCookies,
		},
		"cookies set": {
			usage: setUsage, method: protocol.MethodCookiesSet,
			params: func(a *argv, t protocol.Target) (any, error) {
				p := protocol.CookiesSetParams{
					Target: t, Domain: a.flag("--domain"), Path: a.flag("--path"),
					HTTPOnly: a.boolean("--http-only"), Secure: a.boolean("--secure"), SameSite: a.flag("--same-site"),
					Expires: float64(a.int("--expires")),
				}
				args, err := a.exactly(2, setUsage)
				if err != nil {
					return nil, err
				}
				p.Name, p.Value = args[0], args[1]
				return p, nil
			},
			human: printCookies,
		},
		"cookies clear": {
			usage: clearUsage, method: protocol.MethodCookiesClear,
			params: func(a *argv, t protocol.Target) (any, error) {
				args, err := a.rest(clearUsage)
				if err != nil {
					return nil, err
				}
				if len(args) > 1 {
					return nil, usageError("usage: egohost " + clearUsage)
				}
				p := protocol.CookiesClearParams{Target: t}
				if len(args) == 1 {
					p.Name = args[0]
				}
				return p, nil
			},
			human: func(w io.Writer, raw json.RawMessage) error {
				var r protocol.CookiesClearResult
				if err := json.Unmarshal(raw, &r); err != nil {
					return err
				}
				_, err := fmt.Fprintf(w, "deleted %d cookie(s) of %s\n", r.Deleted, r.URL)
				return err
			},
		},
	}
}

func printCookies(w io.Writer, raw json.RawMessage) error {
	var r protocol.CookiesResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	for _, c := range r.Cookies {
		fmt.Fprintf(w, "%s=%s\tdomain=%s path=%s", c.Name, c.Value, c.Domain, c.Path)
		if c.Expires > 0 {
			fmt.Fprintf(w, " expires=%s", time.Unix(int64(c.Expires), 0).UTC().Format(time.RFC3339))
		}
		if c.HTTPOnly {
			fmt.Fprint(w, " httpOnly")
		}
		if c.Secure {
			fmt.Fprint(w, " secure")
		}
		if c.SameSite != "" {
			fmt.Fprintf(w, " sameSite=%s", c.SameSite)
		}
		fmt.Fprintln(w)
	}
	if len(r.Cookies) == 0 {
		fmt.Fprintf(w, "no cookies for %s\n", r.URL)
	}
	return nil
}

// msTime formats milliseconds since the epoch as a local time of day.
func msTime(ms float64) string {
	return time.UnixMilli(int64(ms)).Format("15:04:05.000")
}
