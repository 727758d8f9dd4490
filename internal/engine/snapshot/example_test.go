package snapshot_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/egohost/egohost/internal/engine/snapshot"
	"github.com/egohost/egohost/internal/link/cdptab"
)

// One Tab per browser tab: snapshot it, then resolve a ref the agent
// sends back.
func Example() {
	run := func(ctx context.Context, p *cdptab.Page) error {
		tab := snapshot.NewTab(p)
		s, err := tab.Snapshot(ctx, snapshot.Options{Interactive: true, MaxChars: 20000})
		if err != nil {
			return err
		}
		fmt.Print(s.Text) // e.g. `button "Save" @3`
		e, err := tab.Lookup(ctx, "@3")
		switch {
		case errors.Is(err, snapshot.ErrStaleRef):
			return err // the page navigated: take a new snapshot
		case err != nil:
			return err
		}
		fmt.Println(e.BackendNodeID, e.Role, e.Name)
		return nil
	}
	_ = run
}
