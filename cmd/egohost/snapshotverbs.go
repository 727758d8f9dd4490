package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/egohost/egohost/protocol"
)

func snapshotVerbs() map[string]verb {
	const usage = "snapshot [-i|--interactive] [--scope @REF|LOCATOR] [--viewport] [--max N] [--start N] [--diff] [--timeout D] [--json]"
	return map[string]verb{
		"snapshot": {
			usage: usage, method: protocol.MethodSnapshot,
			params: func(a *argv, t protocol.Target) (any, error) {
				p := protocol.SnapshotParams{
					Target:      t,
					Interactive: a.boolean("-i", "--interactive"),
					Scope:       a.flag("--scope", "-s"),
					Viewport:    a.boolean("--viewport"),
					MaxChars:    a.int("--max"),
					Start:       a.int("--start"),
					Diff:        a.boolean("--diff"),
					TimeoutMs:   a.timeoutMs(),
				}
				rest, err := a.rest(usage)
				if err != nil {
					return nil, err
				}
				if len(rest) > 0 {
					return nil, usageError("usage: egohost " + usage)
				}
				return p, nil
			},
			// --json also carries every ref with its backendNodeId.
			jsonParams: func(p any) any {
				sp := p.(protocol.SnapshotParams)
				sp.Refs = true
				return sp
			},
			human: func(w io.Writer, raw json.RawMessage) error {
				var r protocol.SnapshotResult
				if err := json.Unmarshal(raw, &r); err != nil {
					return err
				}
				_, err := fmt.Fprint(w, r.Text)
				if len(r.Text) > 0 && r.Text[len(r.Text)-1] != '\n' {
					fmt.Fprintln(w)
				}
				return err
			},
		},
	}
}
