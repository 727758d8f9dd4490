package cli

import (
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/egohost/egohost/protocol"
)

func snapshotVerbs() map[string]verb {
	return map[string]verb{
		"snapshot": {
			use: "snapshot", short: "print the page's accessibility tree with @refs for the other verbs", group: "read",
			long: "Prints the page as an indented tree of roles and names; every element an agent can act on\n" +
				"gets a @ref (@12) that click, fill, wait… take as TARGET. Long pages are cut: --start N\n" +
				"gets the rest, --scope, --viewport and -i narrow it. --diff prints what changed since the\n" +
				"last snapshot taken with the same options. Links show no URL unless --urls\n" +
				"(egohost get attr @12 href reads one).",
			example: "  egohost snapshot -i\n  egohost snapshot --scope 'role=form' --max 4000\n  egohost snapshot --diff",
			args:    nArgs(0, 0), method: protocol.MethodSnapshot,
			flags: func(fs *pflag.FlagSet) paramsFunc {
				interactive := fs.BoolP("interactive", "i", false, "only the elements one can act on")
				scope := fs.StringP("scope", "s", "", "only under this element (`@REF or LOCATOR`)")
				viewport := fs.Bool("viewport", false, "only what is in the viewport")
				urls := fs.Bool("urls", false, "write each link's URL (url=), left out by default")
				maxChars := fs.Int("max", 0, "cut after N characters (default: the service's)")
				start := fs.Int("start", 0, "start at line N (the cut note says which)")
				diff := fs.Bool("diff", false, "print what changed since the last snapshot")
				return func(c common, _ []string) (any, error) {
					return protocol.SnapshotParams{
						Target: c.Target, Interactive: *interactive, Scope: *scope, Viewport: *viewport, URLs: *urls,
						MaxChars: *maxChars, Start: *start, Diff: *diff, TimeoutMs: c.timeoutMs(),
					}, nil
				}
			},
			// --json also carries every ref with its backendNodeId.
			jsonParams: func(p any) any {
				sp := p.(protocol.SnapshotParams)
				sp.Refs = true
				return sp
			},
			human: printAs(printSnapshot),
		},
	}
}

// printSnapshot prints a snapshot's text as the page gave it; only the
// cut note, its last line when the service cut it, is reworded into the
// CLI's flags (rewording the whole text cost a page of 458 KB 10 regexp
// passes, and would have changed the page's own words).
func printSnapshot(w io.Writer, r protocol.SnapshotResult) error {
	text, note := r.Text, ""
	if r.Truncated != nil && r.Truncated.Next > 0 {
		body := strings.TrimSuffix(text, "\n")
		if i := strings.LastIndexByte(body, '\n'); strings.HasPrefix(body[i+1:], "[cut: ") {
			text, note = body[:i+1], cliWords(body[i+1:])+"\n"
		}
	}
	if _, err := io.WriteString(w, text); err != nil {
		return err
	}
	if note != "" {
		_, err := io.WriteString(w, note)
		return err
	}
	if text != "" && text[len(text)-1] != '\n' {
		_, err := io.WriteString(w, "\n")
		return err
	}
	return nil
}
