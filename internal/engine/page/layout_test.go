package page

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/protocol"
)

func created(id, opener int) *extwire.Message {
	return &extwire.Message{Event: "tab.created", Tab: &protocol.Tab{ID: id, OpenerTabID: opener}}
}

func windowOpen(tab int, gesture bool) *extwire.Message {
	return windowOpenURL(tab, gesture, "http://127.0.0.1/p2")
}

func windowOpenURL(tab int, gesture bool, url string) *extwire.Message {
	params, _ := json.Marshal(map[string]any{"url": url, "userGesture": gesture})
	return &extwire.Message{Event: "cdp", TabID: tab, Method: "Page.windowOpen", Params: params}
}

func ids(tabs []protocol.Tab) []int {
	out := []int{}
	for _, t := range tabs {
		out = append(out, t.ID)
	}
	return out
}

func urls(tabs []protocol.Tab) []string {
	out := []string{}
	for _, t := range tabs {
		out = append(out, t.URL)
	}
	return out
}

func TestWatchOpened(t *testing.T) {
	tests := []struct {
		name   string
		events []*extwire.Message // before Done
		late   []*extwire.Message // while Done waits
		want   []int
		urls   []string // the tabs' URLs, when not all http://127.0.0.1/p2
	}{
		{"a tab it opened", []*extwire.Message{windowOpen(1, true), created(7, 1)}, nil, []int{7}, nil},
		{"two, in order", []*extwire.Message{created(7, 1), created(8, 1)}, nil, []int{7, 8}, []string{"", ""}},
		{"another tab's opening is not its", []*extwire.Message{windowOpen(2, true), created(9, 2)}, nil, []int{}, nil},
		{"a tab with no opener", []*extwire.Message{created(9, 0)}, nil, []int{}, nil},
		{"a tab Chrome made before its navigation has the URL the page asked for", []*extwire.Message{
			windowOpenURL(1, true, "http://127.0.0.1/a"), windowOpenURL(1, true, "http://127.0.0.1/b"), created(7, 1), created(8, 1)}, nil,
			[]int{7, 8}, []string{"http://127.0.0.1/a", "http://127.0.0.1/b"}},
		{"a blocked popup's URL is not taken for the tab that came", []*extwire.Message{
			windowOpenURL(1, false, "http://127.0.0.1/blocked"), windowOpenURL(1, true, "http://127.0.0.1/b"), created(8, 1)}, nil,
			[]int{8}, []string{"http://127.0.0.1/b"}},
		{"a tab window.open('') made comes with no opener: it is the announced window's", []*extwire.Message{
			windowOpenURL(1, true, "about:blank"), created(7, 0)}, nil, []int{7}, []string{"about:blank"}},
		{"one with no opener on another address is not", []*extwire.Message{
			windowOpenURL(1, true, "about:blank"), {Event: "tab.created", Tab: &protocol.Tab{ID: 9, URL: "chrome://newtab/"}}}, nil, []int{}, nil},
		{"one with no opener once the announced window has its tab is not", []*extwire.Message{
			windowOpen(1, true), created(7, 1), created(9, 0)}, nil, []int{7}, nil},
		{"a tab that came unannounced keeps its own URL", []*extwire.Message{created(7, 1)}, nil, []int{7}, []string{""}},
		{"an announced tab that comes late is waited for", []*extwire.Message{windowOpen(1, true)}, []*extwire.Message{created(7, 1)}, []int{7}, nil},
		{"an announced tab that never comes ends the wait at its bound", []*extwire.Message{windowOpen(1, true)}, nil, []int{}, nil},
		{"a window opened without a gesture (a blocked popup) is not waited for", []*extwire.Message{windowOpen(1, false)}, nil, []int{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var y Layout
			w := y.WatchOpened(1)
			for _, ev := range tt.events {
				y.Track(ev)
			}
			go func() {
				for _, ev := range tt.late {
					time.Sleep(10 * time.Millisecond)
					y.Track(ev)
				}
			}()
			wait := 50 * time.Millisecond
			if tt.late != nil {
				wait = 10 * time.Second // ends when the tab comes
			}
			tabs := w.Done(context.Background(), wait)
			got := ids(tabs)
			wantURLs := tt.urls
			if wantURLs == nil {
				wantURLs = []string{}
				for range tt.want {
					wantURLs = append(wantURLs, "http://127.0.0.1/p2")
				}
			}
			if g := urls(tabs); strings.Join(g, " ") != strings.Join(wantURLs, " ") {
				t.Errorf("got URLs %q, want %q", g, wantURLs)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got tabs %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got tabs %v, want %v", got, tt.want)
				}
			}
			y.mu.Lock()
			left := len(y.opened)
			y.mu.Unlock()
			if left != 0 {
				t.Errorf("got %d watches after Done, want 0", left)
			}
		})
	}
}

func TestWatchOpenedEndsWithItsContext(t *testing.T) {
	var y Layout
	w := y.WatchOpened(1)
	y.Track(windowOpen(1, true))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan []protocol.Tab)
	go func() { done <- w.Done(ctx, time.Hour) }()
	select {
	case got := <-done:
		if len(got) != 0 {
			t.Errorf("got %v, want no tabs", ids(got))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Done waited past its context")
	}
}

// A popup window's tab, which Chrome groups in none, counts in the group
// its opener was in when it came (a popup's popup too), and stays there
// when the opener moves or closes; the person's popups (an opener in no
// group then) are in none, even once their opener joins a group; a tab
// moved out of its popup window is an ordinary tab. A hello's list places
// no popup: a layout takes them from the one before (KeepPopups), for
// the tabs still in the same window.
func TestPopupsCountInTheirOpenersGroup(t *testing.T) {
	var y Layout
	y.Reset([]protocol.Tab{
		{ID: 1, GroupID: 50, WindowID: 1},
		{ID: 2, WindowID: 1},                               // the person's
		{ID: 20, Popup: true, OpenerTabID: 1, WindowID: 9}, // from before this link: placed by no one
	})
	track := func(in *extwire.Message) { y.Track(in) }
	tab := func(event string, t protocol.Tab) { track(&extwire.Message{Event: event, Tab: &t}) }
	check := func(what string, wantGroups map[int]int, wantTabs []int) {
		t.Helper()
		for id, want := range wantGroups {
			if got := y.GroupOf(id); got != want {
				t.Errorf("%s: GroupOf(%d) = %d, want %d", what, id, got, want)
			}
		}
		if got := y.TabsInGroup(50); !slices.Equal(got, wantTabs) {
			t.Errorf("%s: TabsInGroup(50) = %v, want %v", what, got, wantTabs)
		}
	}
	check("at the hello", map[int]int{1: 50, 2: 0, 20: 0}, []int{1})

	tab("tab.created", protocol.Tab{ID: 3, Popup: true, OpenerTabID: 1, WindowID: 3}) // the space's sign-in window
	tab("tab.created", protocol.Tab{ID: 4, Popup: true, OpenerTabID: 2, WindowID: 4}) // the person's
	tab("tab.created", protocol.Tab{ID: 5, OpenerTabID: 1, GroupID: 50, WindowID: 1}) // a tab Chrome grouped itself
	tab("tab.created", protocol.Tab{ID: 6, Popup: true, OpenerTabID: 6, WindowID: 6}) // its own opener
	tab("tab.created", protocol.Tab{ID: 7, Popup: true, OpenerTabID: 3, WindowID: 7}) // the sign-in window's own popup
	tab("tab.updated", protocol.Tab{ID: 3, WindowID: 3})                              // an update that does not say popup
	check("popups opened", map[int]int{3: 50, 4: 0, 5: 50, 6: 0, 7: 50}, []int{1, 3, 5, 7})
	if got := y.SpaceGroup(protocol.Tab{ID: 3, Popup: true, OpenerTabID: 1, WindowID: 3}); got != 50 {
		t.Errorf("SpaceGroup of the listed popup 3 = %d, want 50", got)
	}

	tab("tab.updated", protocol.Tab{ID: 2, GroupID: 50, WindowID: 1}) // the person's tab joins the group
	tab("tab.updated", protocol.Tab{ID: 1, WindowID: 1})              // the opener dragged out
	check("openers moved", map[int]int{1: 0, 2: 50, 3: 50, 4: 0, 7: 50}, []int{2, 3, 5, 7})
	track(&extwire.Message{Event: "tab.removed", TabID: 1})
	check("the opener closed", map[int]int{3: 50, 7: 50}, []int{2, 3, 5, 7})

	tab("tab.updated", protocol.Tab{ID: 3, Popup: true, OpenerTabID: 1, WindowID: 30}) // shown as a tab in a new window
	check("moved out of its window", map[int]int{3: 0, 7: 50}, []int{2, 5, 7})
	if got := y.SpaceGroup(protocol.Tab{ID: 7, WindowID: 70}); got != 0 {
		t.Errorf("SpaceGroup of popup 7 listed in another window = %d, want 0", got)
	}

	var next Layout
	next.Reset([]protocol.Tab{{ID: 5, GroupID: 50, WindowID: 1}, {ID: 7, Popup: true, WindowID: 7}, {ID: 20, Popup: true, WindowID: 9}})
	carried := y.Popups()
	carried[8] = PopupTab{Group: 50, Window: 8}   // its tab is open in another window now
	carried[11] = PopupTab{Group: 50, Window: 11} // closed meanwhile
	windows := map[int]int{5: 1, 7: 7, 8: 80, 20: 9}
	next.KeepPopups(carried, func(tab, window int) bool { w, ok := windows[tab]; return ok && w == window })
	if got := next.TabsInGroup(50); !slices.Equal(got, []int{5, 7}) {
		t.Errorf("the next link's TabsInGroup(50) = %v, want [5 7]", got)
	}
}
