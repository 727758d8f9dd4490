package cli

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/egohost/egohost/protocol"
)

func resolveVerbs() map[string]verb {
	return map[string]verb{
		"resolve": {
			use: "resolve TARGET", short: "count and list what TARGET matches (without acting)", group: "read",
			example: "  egohost resolve 'role=link'\n  egohost resolve @12 --center\n  egohost resolve '#late' --wait",
			args:    nArgs(1, 1), method: protocol.MethodResolve,
			flags: func(fs *pflag.FlagSet) paramsFunc {
				wait := fs.Bool("wait", false, "wait until something matches")
				center := fs.Bool("center", false, "also the centre of the single match")
				object := fs.Bool("object", false, "a remote object ID of the single match")
				return func(c common, args []string) (any, error) {
					mode := protocol.ResolveMatches
					if *center {
						mode = protocol.ResolveCenter
					}
					if *object {
						mode = protocol.ResolveObject
					}
					return protocol.ResolveParams{Target: c.Target, Element: args[0], Mode: mode, Wait: *wait, TimeoutMs: c.timeoutMs()}, nil
				}
			},
			human: printAs(printResolve),
		},
	}
}

func printResolve(w io.Writer, r protocol.ResolveResult) error {
	if r.Object != nil {
		_, err := fmt.Fprintf(w, "object %s (session %q) in %.1f ms\n", r.Object.ObjectID, r.Object.SessionID, r.TookMs)
		return err
	}
	if r.Center != nil && len(r.Matches) == 0 {
		_, err := fmt.Fprintf(w, "centre (%.1f, %.1f) in %.1f ms\n", r.Center.X, r.Center.Y, r.TookMs)
		return err
	}
	noun := "elements"
	if r.Count == 1 {
		noun = "element"
	}
	fmt.Fprintf(w, "%d %s", r.Count, noun)
	if r.Center != nil {
		fmt.Fprintf(w, ", centre (%.1f, %.1f)", r.Center.X, r.Center.Y)
	}
	fmt.Fprintf(w, " in %.1f ms\n", r.TookMs)
	if r.Count == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tBACKEND NODE\tROLE\tNAME\tBOX\tFRAME")
	for i, m := range r.Matches {
		box := "not rendered"
		if m.Box != nil {
			box = fmt.Sprintf("(%.0f, %.0f) %.0f×%.0f", m.Box.X, m.Box.Y, m.Box.Width, m.Box.Height)
		}
		frame := "main"
		if m.FrameID != "" {
			frame = clip(m.FrameID, 12)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", strconv.Itoa(i), m.BackendNodeID, m.Role, clip(strconv.Quote(m.Name), 40), box, frame)
	}
	return tw.Flush()
}
