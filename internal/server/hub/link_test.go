package hub

import (
	"fmt"
	"slices"
	"testing"

	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
)

// A tab the browser reports in another group than the one the link knew
// is told to Regrouped, from and to, once the layout knows the new group;
// a report that changes no group, and another event, is not.
func TestRegroupedHearsGroupChanges(t *testing.T) {
	l := &Link{Tabs: page.NewTabs(func(int) cdptab.Sessions { return nil }, nil)}
	var heard []string
	l.regrouped = func(tab, from, to int) {
		heard = append(heard, fmt.Sprintf("tab %d: %d→%d (layout %d)", tab, from, to, l.Layout.GroupOf(tab)))
	}
	updated := func(tab, group int) *extwire.Message {
		return &extwire.Message{Event: "tab.updated", Tab: &protocol.Tab{ID: tab, GroupID: group}}
	}
	for _, in := range []*extwire.Message{
		{Event: "tab.created", Tab: &protocol.Tab{ID: 5, GroupID: 3}},
		updated(5, 3), // no change
		updated(5, 0), // dragged out
		updated(5, 8), // into another group
		{Event: "tab.activated", TabID: 5, WindowID: 1},
	} {
		l.event(in)
	}
	want := []string{"tab 5: 3→0 (layout 0)", "tab 5: 0→8 (layout 8)"}
	if !slices.Equal(heard, want) {
		t.Errorf("heard %q, want %q", heard, want)
	}
}
