package hub

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

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

// An event is the person's when its tab is held now, or when the page
// logged it during a hold (Chrome replays console lines and log entries at
// an enable, each with its own time): raw-CDP subscribers do not get it.
func TestHeldEvent(t *testing.T) {
	held := false
	l := &Link{HeldAt: func(tab int, at time.Time) bool {
		return tab == 7 && (held || (!at.IsZero() && !at.Before(time.UnixMilli(2000)) && at.Before(time.UnixMilli(3000))))
	}}
	ev := func(method, params string) *extwire.Message {
		return &extwire.Message{Event: "cdp", TabID: 7, Method: method, Params: json.RawMessage(params)}
	}
	for _, tt := range []struct {
		name string
		in   *extwire.Message
		now  bool
		want bool
	}{
		{"a console line logged during the hold, replayed", ev("Runtime.consoleAPICalled", `{"timestamp":2500}`), false, true},
		{"a log entry logged during the hold, replayed", ev("Log.entryAdded", `{"entry":{"timestamp":2500}}`), false, true},
		{"a console line logged after it", ev("Runtime.consoleAPICalled", `{"timestamp":3500}`), false, false},
		{"a request while nobody holds the tab", ev("Network.requestWillBeSent", `{}`), false, false},
		{"a request while the person holds it", ev("Network.requestWillBeSent", `{}`), true, true},
	} {
		held = tt.now
		if got := l.HeldEvent(tt.in); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
