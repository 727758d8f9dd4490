package tabmethods

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/protocol"
)

// TestTabs: tabs.list lists what the caller may see of the browser
// connected now, each tab with its space, and never waits for one.
func TestTabs(t *testing.T) {
	away := protocol.Browser{ID: "b2"}
	tests := []struct {
		name     string
		p        protocol.TabsListParams
		home     string // the popup's browser
		setup    func(*fakeBrowser, *fakeService)
		want     protocol.TabsListResult
		wantCode protocol.Code
		synced   int
	}{
		{
			name: "the tabs, with their spaces, less those hidden from the caller",
			setup: func(b *fakeBrowser, s *fakeService) {
				sp, _ := s.reg.For("bot", "b1")
				s.reg.Grouped(sp.ID, 7, 3)
				b.tabs = []protocol.Tab{{ID: 3, GroupID: 7}, {ID: 4}, {ID: 5, GroupID: 8}}
				b.hidden[4] = true
			},
			want:   protocol.TabsListResult{Tabs: []protocol.Tab{{ID: 3, Browser: "b1", GroupID: 7, Space: "s1"}, {ID: 5, Browser: "b1", GroupID: 8}}},
			synced: 1,
		},
		{
			name: "the popup's calls list its own browser", home: "b2",
			setup: func(b *fakeBrowser, s *fakeService) { s.reconnecting = []protocol.Browser{away} },
			want:  protocol.TabsListResult{Tabs: []protocol.Tab{}, Reconnecting: []protocol.Browser{away}},
		},
		{
			name: "a browser reconnecting: no tabs, listed as such", p: protocol.TabsListParams{Browser: "b2"},
			setup: func(b *fakeBrowser, s *fakeService) { s.reconnecting = []protocol.Browser{away} },
			want:  protocol.TabsListResult{Tabs: []protocol.Tab{}, Reconnecting: []protocol.Browser{away}},
		},
		{
			name:  "a browser that drops under the call is reconnecting",
			setup: func(b *fakeBrowser, s *fakeService) { b.tabsErr = protocol.Errorf(protocol.CodeBrowserGone, "gone") },
			want:  protocol.TabsListResult{Tabs: []protocol.Tab{}, Reconnecting: []protocol.Browser{{ID: "b1"}}},
		},
		{
			name: "automation stopped",
			setup: func(b *fakeBrowser, s *fakeService) {
				b.stopped = protocol.Errorf(protocol.CodeAutomationStopped, "stopped")
			},
			wantCode: protocol.CodeAutomationStopped,
		},
		{
			name: "the extension fails",
			setup: func(b *fakeBrowser, s *fakeService) {
				b.tabsErr = protocol.Errorf(protocol.CodeExtension, "tabs.list: bad reply")
			},
			wantCode: protocol.CodeExtension,
		},
		{
			name: "no such browser", p: protocol.TabsListParams{Browser: "b9"},
			setup:    func(b *fakeBrowser, s *fakeService) {},
			wantCode: protocol.CodeNoBrowser,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, b, c := fixture("bot")
			c.home = tt.home
			tt.setup(b, c.svc)
			got, err := m.Tabs(context.Background(), c, tt.p)
			if code := codeOf(err); code != tt.wantCode {
				t.Fatalf("got %v, want code %v", err, tt.wantCode)
			}
			if err != nil {
				return
			}
			res := got.(protocol.TabsListResult)
			for i, r := range res.Reconnecting {
				if r.ID == "b1" && (r.RelayPID != 0 || r.DisconnectedAt.IsZero()) {
					t.Errorf("the browser that dropped: got %+v, want no relay and when it dropped", r)
				}
				res.Reconnecting[i].DisconnectedAt = time.Time{} // checked above
			}
			if diff := cmp.Diff(tt.want, res); diff != "" {
				t.Errorf("tabs.list (-want +got):\n%s", diff)
			}
			if b.synced != tt.synced {
				t.Errorf("got the spaces synced %d times, want %d", b.synced, tt.synced)
			}
		})
	}
}

// TestClose: tabs.close closes the call's target tab.
func TestClose(t *testing.T) {
	m, b, c := fixture("bot")
	got, err := m.Close(context.Background(), c, protocol.TabParams{Target: protocol.Target{Tab: 7}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]any{"closed": true, "tab": 7}, got); diff != "" {
		t.Errorf("tabs.close (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tabs.close {TabID:7}"}, opList(b.ops)); diff != "" {
		t.Errorf("ops (-want +got):\n%s", diff)
	}
	c.targetErr = protocol.Errorf(protocol.CodeNotInSpace, "not yours")
	if _, err := m.Close(context.Background(), c, protocol.TabParams{Target: protocol.Target{Tab: 8}}); codeOf(err) != protocol.CodeNotInSpace {
		t.Errorf("a tab the caller may not reach: got %v, want not_in_space", err)
	}
	if len(b.ops) != 1 {
		t.Errorf("got ops %q, want the first close only", opList(b.ops))
	}
}

// TestCloseHeldByADialog: a close that a page's beforeunload dialog holds
// fails at once with dialog_open, naming the dialog and its two answers;
// one that nothing answers fails at its deadline with a timeout that says
// what may hold it.
func TestCloseHeldByADialog(t *testing.T) {
	m, b, c := fixture("")
	leave := &protocol.Dialog{Type: "beforeunload", URL: "http://127.0.0.1/edit"}
	b.answer("tabs.close", reply{hold: true, dialog: leave})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := m.Close(ctx, c, protocol.TabParams{Target: protocol.Target{Tab: 7}})
	if codeOf(err) != protocol.CodeDialogOpen {
		t.Fatalf("got %v, want dialog_open", err)
	}
	if ctx.Err() != nil {
		t.Errorf("the close waited for the call's deadline: %v", err)
	}
	for _, want := range []string{"beforeunload", "dialog accept", "dialog dismiss"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got %q, want it to say %q", err, want)
		}
	}
	if d, _ := protocol.AsError(err).Data["dialog"].(*protocol.Dialog); d != leave {
		t.Errorf("got the error's dialog %v, want %v", protocol.AsError(err).Data["dialog"], leave)
	}

	// An alert does not hold a close (Chrome closes the tab over it): only
	// the page's question whether to leave is the close's.
	b.dialog.Store(&protocol.Dialog{Type: "alert"})
	b.answer("tabs.close", reply{raw: `{"closed":true}`})
	if _, err := m.Close(ctx, c, protocol.TabParams{Target: protocol.Target{Tab: 8}}); err != nil {
		t.Errorf("a close over an alert: got %v, want it closed", err)
	}

	b.dialog.Store(nil)
	b.answer("tabs.close", reply{hold: true})
	short, cancelShort := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancelShort()
	_, err = m.Close(short, c, protocol.TabParams{Target: protocol.Target{Tab: 9}})
	if codeOf(err) != protocol.CodeTimeout || !strings.Contains(err.Error(), "beforeunload") {
		t.Errorf("a close nothing answers: got %v, want a timeout that names what may hold it", err)
	}
}

// TestSelect: tabs.select needs a tab the caller may reach, and answers
// with it as the browser shows it.
func TestSelect(t *testing.T) {
	tests := []struct {
		name     string
		tab      int
		setup    func(*fakeBrowser)
		want     protocol.TabResult
		wantCode protocol.Code
		wantOps  []string
	}{
		{
			name:    "a tab",
			tab:     7,
			setup:   func(b *fakeBrowser) { b.answer("tabs.activate", reply{raw: `{"tab":{"id":7,"active":true}}`}) },
			want:    protocol.TabResult{Tab: protocol.Tab{ID: 7, Browser: "b1", Active: true}},
			wantOps: []string{"tabs.activate {TabID:7 NoFocus:false}"},
		},
		{name: "no tab", setup: func(*fakeBrowser) {}, wantCode: protocol.CodeInvalidParams},
		{
			name:     "a tab out of the caller's scope",
			tab:      7,
			setup:    func(b *fakeBrowser) { b.scopeErr[7] = protocol.Errorf(protocol.CodeForbiddenOriginScope, "no") },
			wantCode: protocol.CodeForbiddenOriginScope,
		},
		{
			name:     "a reply that is not a tab",
			tab:      7,
			setup:    func(b *fakeBrowser) { b.answer("tabs.activate", reply{raw: `"x"`}) },
			wantCode: protocol.CodeExtension,
			wantOps:  []string{"tabs.activate {TabID:7 NoFocus:false}"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, b, c := fixture("bot")
			tt.setup(b)
			got, err := m.Select(context.Background(), c, protocol.TabParams{Target: protocol.Target{Tab: tt.tab}})
			if code := codeOf(err); code != tt.wantCode {
				t.Fatalf("got %v, want code %v", err, tt.wantCode)
			}
			if err == nil {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("tabs.select (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tt.wantOps, opList(b.ops)); diff != "" && len(tt.wantOps)+len(b.ops) > 0 {
				t.Errorf("ops (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTabReply: the extension's reply about a tab, read for its browser.
func TestTabReply(t *testing.T) {
	got, err := TabReply([]byte(`{"tab":{"id":3,"windowId":2}}`), "b1", "tabs.activate")
	if err != nil {
		t.Fatal(err)
	}
	if want := (protocol.TabResult{Tab: protocol.Tab{ID: 3, WindowID: 2, Browser: "b1"}}); !cmp.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	_, err = TabReply([]byte(`{"tab":1}`), "b1", "tabs.activate")
	want := "tabs.activate: bad reply: json: cannot unmarshal number into Go struct field TabResult.tab of type protocol.Tab"
	if codeOf(err) != protocol.CodeExtension || protocol.AsError(err).Message != want {
		t.Errorf("got %v, want extension_error %q", err, want)
	}
}
