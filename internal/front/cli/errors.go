package cli

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/egohost/egohost/protocol"
)

// exitCode prints err (if any) and returns the process exit code: 0 done,
// 1 failed, 2 a command-line mistake, 3 the service stopped mid-call.
// With --json the error goes to stdout as {"error":{…}}; else to stderr
// as one line for people.
func exitCode(stdout, stderr io.Writer, asJSON bool, err error) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, ErrReported) {
		return 1
	}
	je := cliError(err)
	code := 1
	switch je.Code {
	case protocol.CodeUsage:
		code = 2
	case protocol.CodeServiceLost:
		code = exitServiceLost
	}
	if asJSON {
		printJSON(stdout, struct {
			Error jsonError `json:"error"`
		}{je})
		return code
	}
	fmt.Fprintf(stderr, "egohost: %s\n", cliWords(err.Error()))
	return code
}

// jsonError is an error as the CLI prints it with --json.
type jsonError struct {
	Code    protocol.Code  `json:"code"`
	Name    string         `json:"name"`
	Message string         `json:"message"`
	Kind    string         `json:"kind,omitempty"`
	Data    map[string]any `json:"data,omitempty"`
}

// cliError classifies err: the service's own error, or one of the CLI's codes.
func cliError(err error) jsonError {
	var pe *protocol.Error
	var ue usageError
	var le *serviceLostError
	var de *serviceDownError
	var lf *LaunchError
	switch {
	case errors.As(err, &le):
		return jsonError{Code: protocol.CodeServiceLost, Name: protocol.CodeServiceLost.Name(), Message: err.Error()}
	case errors.As(err, &pe):
		kind, _ := pe.Data["kind"].(string)
		// The CLI's own words around the service's stay; the code goes to its field.
		msg := cliWords(strings.Replace(err.Error(), pe.Error(), pe.Message, 1))
		return jsonError{Code: pe.Code, Name: pe.Code.Name(), Message: msg, Kind: kind, Data: pe.Data}
	case errors.As(err, &ue):
		return jsonError{Code: protocol.CodeUsage, Name: protocol.CodeUsage.Name(), Message: err.Error()}
	case errors.As(err, &de):
		return jsonError{Code: protocol.CodeServiceDown, Name: protocol.CodeServiceDown.Name(), Message: err.Error()}
	case errors.As(err, &lf):
		je := jsonError{Code: protocol.CodeLaunchFailed, Name: protocol.CodeLaunchFailed.Name(), Message: err.Error()}
		if lf.Reason != "" {
			je.Data = map[string]any{"reason": lf.Reason}
		}
		return je
	}
	return jsonError{Code: protocol.CodeFailed, Name: protocol.CodeFailed.Name(), Message: err.Error()}
}

// LaunchError is a browser that exited early or never connected; Reason
// is what it said last (code launch_failed, with the reason in its data).
type LaunchError struct {
	Err    error
	Reason string
}

func (e *LaunchError) Error() string { return e.Err.Error() }
func (e *LaunchError) Unwrap() error { return e.Err }

// serviceDownError is a service that does not answer, or never ran.
type serviceDownError struct{ err error }

func (e *serviceDownError) Error() string { return e.err.Error() }
func (e *serviceDownError) Unwrap() error { return e.err }

// cliWordList is how the service names its params, and the CLI's flags
// for them: a pattern is compiled only for a message that holds its
// literal (never at start, and an error printed compiles the one or two
// that apply, not all ten).
var cliWordList = []cliWord{
	{`name one with "browser"`, `name one with "browser"`, "name one with --browser ID"},
	{"Get them with start=", `Get them with start=(\d+) \(same options\), or narrow with scope \(a ref or locator\), viewport or interactive-only`,
		"Get them with --start $1 (same options), or narrow with --scope (a ref or locator), --viewport or -i"},
	{"maxChars and start must not be negative", `\bmaxChars and start must not be negative`, "--max and --start must not be negative"},
	{"timeoutMs must not be negative", `\btimeoutMs must not be negative`, "--timeout must not be negative"},
	{"noWait excludes until and timeoutMs", `\bnoWait excludes until and timeoutMs`, "--no-wait excludes --until and --timeout"},
	{"delayMs must not be negative", `\bdelayMs must not be negative`, "--delay must not be negative"},
	{"cookies.set: sameSite ", `cookies\.set: sameSite (".*?") is not`, "cookies set: --same-site $1 is not"},
	{"click count ", `\bclick count (-?\d+): want`, "click --count $1: want"},
	{"unknown mouse button ", `\bunknown mouse button (".*?"): want`, "unknown --button $1: want"},
	{"script.run: a timeout of ", `script\.run: a timeout of (\S+) exceeds`, "run: --timeout $1 exceeds"},
}

// cliWord is one way the service names a param, and the CLI's flag for
// it: the pattern, and a literal every match holds.
type cliWord struct {
	literal, pattern, repl string
}

// cliWords rewrites the service's words for its params (which are right
// on the wire) into the CLI's flags, for messages the CLI prints.
func cliWords(msg string) string {
	for _, w := range cliWordList {
		if strings.Contains(msg, w.literal) {
			msg = regexp.MustCompile(w.pattern).ReplaceAllString(msg, w.repl)
		}
	}
	return msg
}
