package cli

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/egohost/egohost/protocol"
)

// recordVerbs read what the service records of a tab (console, network)
// and the tab's cookies.
func recordVerbs() map[string]verb {
	return map[string]verb{
		"console": {
			use: "console", short: "print the tab's console messages (recorded since egohost attached)", group: "read",
			example: "  egohost console --level error\n  egohost console --clear",
			args:    nArgs(0, 0), method: protocol.MethodConsoleList,
			flags: func(fs *pflag.FlagSet) paramsFunc {
				level := fs.String("level", "", "only this level and above: debug|info|warning|error")
				clear := fs.Bool("clear", false, "forget them once printed")
				return func(c common, _ []string) (any, error) {
					return protocol.ConsoleListParams{Target: c.Target, Level: *level, Clear: *clear}, nil
				}
			},
			human: printAs(func(w io.Writer, r protocol.ConsoleListResult) error {
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
			}),
		},
		"network": {
			use: "network", short: "print the tab's requests (recorded since egohost attached)", group: "read",
			example: "  egohost network\n  egohost network --static --clear",
			args:    nArgs(0, 0), method: protocol.MethodNetworkList,
			flags: func(fs *pflag.FlagSet) paramsFunc {
				static := fs.Bool("static", false, "include images, fonts, stylesheets and scripts")
				clear := fs.Bool("clear", false, "forget them once printed")
				return func(c common, _ []string) (any, error) {
					return protocol.NetworkListParams{Target: c.Target, Static: *static, Clear: *clear}, nil
				}
			},
			human: printAs(func(w io.Writer, r protocol.NetworkListResult) error {
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
			}),
		},
		"cookies get": {
			use: "get [NAME]", short: "print the tab's cookies (or one)", group: "read",
			example: "  egohost cookies\n  egohost cookies get session",
			args:    nArgs(0, 1), method: protocol.MethodCookiesGet,
			flags: noFlags(func(c common, args []string) (any, error) {
				return protocol.CookiesGetParams{Target: c.Target, Name: optArg(args)}, nil
			}),
			human: printAs(printCookies),
		},
		"cookies set": {
			use: "set NAME VALUE", short: "set a cookie for the tab's page", group: "read",
			example: "  egohost cookies set theme dark\n  egohost cookies set sid abc --domain .example.com --secure --same-site Lax",
			args:    nArgs(2, 2), method: protocol.MethodCookiesSet,
			flags: func(fs *pflag.FlagSet) paramsFunc {
				domain := fs.String("domain", "", "the cookie's domain (default: the page's host)")
				path := fs.String("path", "", "the cookie's path")
				expires := fs.Int("expires", 0, "expiry in `UNIX_SECONDS` (default: a session cookie)")
				httpOnly := fs.Bool("http-only", false, "hide it from the page's JavaScript")
				secure := fs.Bool("secure", false, "send it over HTTPS only")
				sameSite := fs.String("same-site", "", "Strict|Lax|None")
				return func(c common, args []string) (any, error) {
					return protocol.CookiesSetParams{
						Target: c.Target, Name: args[0], Value: args[1], Domain: *domain, Path: *path,
						HTTPOnly: *httpOnly, Secure: *secure, SameSite: *sameSite, Expires: float64(*expires),
					}, nil
				}
			},
			human: printAs(printCookies),
		},
		"cookies clear": {
			use: "clear [NAME]", short: "delete the tab's cookies (or one)", group: "read",
			example: "  egohost cookies clear\n  egohost cookies clear session",
			args:    nArgs(0, 1), method: protocol.MethodCookiesClear,
			flags: noFlags(func(c common, args []string) (any, error) {
				return protocol.CookiesClearParams{Target: c.Target, Name: optArg(args)}, nil
			}),
			human: printAs(func(w io.Writer, r protocol.CookiesClearResult) error {
				_, err := fmt.Fprintf(w, "deleted %d cookie(s) of %s\n", r.Deleted, r.URL)
				return err
			}),
		},
	}
}

func printCookies(w io.Writer, r protocol.CookiesResult) error {
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
