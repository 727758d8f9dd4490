package page

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/refmap"
)

// The layout follows the hello and the tab events: each tab's group, each
// window's active tab.
func TestLayoutFollowsTheTabEvents(t *testing.T) {
	var y Layout
	y.Reset([]protocol.Tab{{ID: 1, WindowID: 10, GroupID: 5, Active: true}, {ID: 2, WindowID: 10, GroupID: 5}, {ID: 3, WindowID: 11}})
	if got := y.TabsInGroup(5); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("group 5: got tabs %v, want [1 2]", got)
	}
	if !y.IsActive(1) || y.IsActive(2) {
		t.Errorf("got active 1 %v, 2 %v, want true, false", y.IsActive(1), y.IsActive(2))
	}
	y.Track(&extwire.Message{Event: "tab.created", Tab: &protocol.Tab{ID: 4, WindowID: 10, GroupID: 5, Active: true}})
	y.Track(&extwire.Message{Event: "tab.updated", Tab: &protocol.Tab{ID: 2, WindowID: 10}}) // out of its group
	y.Track(&extwire.Message{Event: "tab.activated", TabID: 3, WindowID: 11})
	if got := y.TabsInGroup(5); !slices.Equal(got, []int{1, 4}) {
		t.Errorf("group 5: got tabs %v, want [1 4]", got)
	}
	if y.IsActive(1) || !y.IsActive(4) || !y.IsActive(3) {
		t.Errorf("got active 1 %v, 4 %v, 3 %v, want false, true, true", y.IsActive(1), y.IsActive(4), y.IsActive(3))
	}
	y.Track(&extwire.Message{Event: "tab.removed", TabID: 4})
	if y.GroupOf(4) != 0 || y.IsActive(4) {
		t.Errorf("a removed tab: got group %d, active %v, want 0, false", y.GroupOf(4), y.IsActive(4))
	}
	if got := y.TabsInGroup(0); len(got) != 0 {
		t.Errorf("group 0: got %v, want none", got)
	}
}

// The followed tabs: a tab is made on first use and opened once; a
// removed or detached tab's engine goes (and is closed); a dialog event
// reaches the tab, a record event only a followed tab's record, and not
// while the person holds it.
func TestTabsFollowAndDrop(t *testing.T) {
	sess := cdpfake.New()
	for _, m := range []string{"Page.enable", "Target.setAutoAttach", "Network.enable", "Runtime.enable", "Runtime.runIfWaitingForDebugger"} {
		sess.Reply(m, struct{}{})
	}
	ts := NewTabs(func(int) cdptab.Sessions { return sess }, refmap.NewCounter())
	if ts.Followed(7) != nil || ts.HasPage(7) || ts.RecordOf(7) != nil || ts.Dialog(7) != nil {
		t.Fatal("a tab is followed before any use")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tab, _, err := ts.Open(ctx, 7)
	if err != nil {
		t.Fatal(err)
	}
	if ts.Followed(7) != tab || !ts.HasPage(7) || ts.RecordOf(7) == nil {
		t.Fatal("an opened tab is not followed with its page and record")
	}
	// The person holds the tab at times 2000–3000 ms after the epoch (a
	// message replayed later still has its own time), and now while held.
	held := false
	var asked []time.Time
	heldAt := func(_ int, at time.Time) bool {
		asked = append(asked, at)
		return held || (!at.IsZero() && !at.Before(time.UnixMilli(2000)) && at.Before(time.UnixMilli(3000)))
	}
	logged := func(text, stamp string) *extwire.Message {
		return &extwire.Message{Event: "cdp", TabID: 7, Method: "Runtime.consoleAPICalled", Params: json.RawMessage(`{"type":"error","args":[{"type":"string","value":"` + text + `"}],"timestamp":` + stamp + `}`)}
	}
	ts.Track(logged("mine", "1000.5"), heldAt)
	ts.Track(logged("the person's, replayed", "2500"), heldAt)
	ts.Track(&extwire.Message{Event: "cdp", TabID: 7, Method: "Runtime.exceptionThrown", Params: json.RawMessage(`{"timestamp":2600,"exceptionDetails":{"exceptionId":1,"text":"the person's error","lineNumber":0,"columnNumber":0}}`)}, heldAt)
	ts.Track(logged("mine again", "3000"), heldAt)
	held = true
	ts.Track(logged("the person's, now", "4000"), heldAt)
	msgs, _ := ts.RecordOf(7).ConsoleMessages("", false, nil)
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m.Text)
	}
	if want := []string{"mine", "mine again"}; !slices.Equal(texts, want) {
		t.Errorf("got console %q, want %q: those logged while the person did not hold the tab", texts, want)
	}
	if len(asked) != 5 || !asked[0].Equal(time.UnixMicro(1000500)) || !asked[2].Equal(time.UnixMilli(2600)) {
		t.Errorf("held asked at %v, want each message's own time (1000.5 ms, …, the exception's 2600 ms)", asked)
	}
	asked = nil
	ts.Track(&extwire.Message{Event: "cdp", TabID: 7, Method: "Network.requestWillBeSent", Params: json.RawMessage(`{"requestId":"1","timestamp":5,"wallTime":6000,"request":{"url":"https://a.example/","method":"GET"}}`)}, heldAt)
	if len(asked) != 1 || !asked[0].IsZero() {
		t.Errorf("held asked about a request at %v, want now (the zero time)", asked)
	}
	ts.Track(&extwire.Message{Event: "cdp", TabID: 8, Method: "Page.javascriptDialogOpening", Params: json.RawMessage(`{"url":"https://a.example/","message":"hi","type":"alert"}`)}, nil)
	if ts.Dialog(8) == nil {
		t.Error("a dialog on a tab not followed yet: got none, want it kept")
	}
	ts.Track(&extwire.Message{Event: "detached", TabID: 7}, nil)
	if ts.Followed(7) != nil {
		t.Error("a detached tab is still followed")
	}
	deadline := time.Now().Add(10 * time.Second)
	for !tab.Closed() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !tab.Closed() {
		t.Error("a detached tab's engine was not closed")
	}
	ts.CloseAll()
	if ts.Followed(8) != nil {
		t.Error("CloseAll left a tab followed")
	}
}

// LoggedAt reads the page's own time of the events Chrome replays at an
// enable: a console line, an exception, a log entry; none for the rest.
func TestLoggedAt(t *testing.T) {
	for _, tt := range []struct {
		method, params string
		want           time.Time
	}{
		{"Runtime.consoleAPICalled", `{"type":"log","args":[],"timestamp":2500.5}`, time.UnixMicro(2500500)},
		{"Runtime.exceptionThrown", `{"timestamp":2600,"exceptionDetails":{}}`, time.UnixMilli(2600)},
		{"Log.entryAdded", `{"entry":{"source":"network","level":"error","text":"x","timestamp":2700}}`, time.UnixMilli(2700)},
		{"Network.requestWillBeSent", `{"timestamp":5,"wallTime":6000}`, time.Time{}},
		{"Log.entryAdded", `{"entry":{"timestamp":"soon"}}`, time.Time{}},
		{"Runtime.consoleAPICalled", `{"timestamp":-1}`, time.Time{}},
	} {
		if got := LoggedAt(tt.method, json.RawMessage(tt.params)); !got.Equal(tt.want) {
			t.Errorf("%s %s: got %v, want %v", tt.method, tt.params, got, tt.want)
		}
	}
}
