package ownermethods

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/protocol"
)

// popup.agents: its bounds, the last calls from memory, each agent's
// last calls when asked, and the live connections.
func TestPopupAgents(t *testing.T) {
	tests := []struct {
		name      string
		params    protocol.PopupAgentsParams
		code      protocol.Code
		calls     int
		perAgent  int // calls of bot in Recent
		hasRecent bool
	}{
		{name: "defaults", calls: 20},
		{name: "limit", params: protocol.PopupAgentsParams{Limit: 3}, calls: 3},
		{name: "per agent", params: protocol.PopupAgentsParams{Limit: 200, PerAgent: 5}, calls: 25, perAgent: 5, hasRecent: true},
		{name: "an agent's, from the log", params: protocol.PopupAgentsParams{Agent: "bot"}, calls: 0},
		{name: "negative limit", params: protocol.PopupAgentsParams{Limit: -1}, code: protocol.CodeInvalidParams},
		{name: "limit over 200", params: protocol.PopupAgentsParams{Limit: 201}, code: protocol.CodeInvalidParams},
		{name: "per agent over what is kept", params: protocol.PopupAgentsParams{PerAgent: 21}, code: protocol.CodeInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, f := newMethods(t, pairing.DefaultLimits)
			f.conns = []protocol.AgentConnection{{ID: 1, Agent: "bot", Paired: true}}
			for i := range 25 {
				f.recent.Add(audit.Entry{Time: time.Unix(int64(i), 0), Agent: []string{"bot", "other"}[i%2], Method: protocol.MethodClick})
			}
			res, err := m.PopupAgents(context.Background(), fakePopup{}, tt.params)
			if codeOf(err) != tt.code {
				t.Fatalf("got %v, want code %s", err, tt.code.Name())
			}
			if err != nil {
				return
			}
			r := res.(protocol.PopupAgentsResult)
			if len(r.Calls) != tt.calls || r.Calls == nil {
				t.Errorf("got %d calls, want %d", len(r.Calls), tt.calls)
			}
			if len(r.Recent["bot"]) != tt.perAgent || (r.Recent != nil) != tt.hasRecent {
				t.Errorf("got recent %v, want %d of bot's", r.Recent, tt.perAgent)
			}
			if len(r.Connections) != 1 || r.Agents == nil || r.Pending == nil {
				t.Errorf("got %+v, want the connection and empty lists of agents and requests", r)
			}
		})
	}
}

// popup.disconnect cuts an agent's connections or the numbered ones,
// and audits the person's decision at that browser.
func TestPopupDisconnect(t *testing.T) {
	tests := []struct {
		name   string
		params protocol.PopupDisconnectParams
		code   protocol.Code
		target string
	}{
		{name: "by agent", params: protocol.PopupDisconnectParams{Agent: "bot"}, target: "bot"},
		{name: "by number", params: protocol.PopupDisconnectParams{Connections: []uint64{1, 2}}, target: "connections [1 2]"},
		{name: "neither", code: protocol.CodeInvalidParams},
		{name: "both", params: protocol.PopupDisconnectParams{Agent: "bot", Connections: []uint64{1}}, code: protocol.CodeInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, f := newMethods(t, pairing.DefaultLimits)
			res, err := m.PopupDisconnect(context.Background(), fakePopup{}, tt.params)
			if codeOf(err) != tt.code {
				t.Fatalf("got %v, want code %s", err, tt.code.Name())
			}
			if err != nil {
				if len(f.cut) != 0 || len(f.audits) != 0 {
					t.Errorf("got cuts %v and lines %+v, want none", f.cut, f.audits)
				}
				return
			}
			if r := res.(protocol.PopupDisconnectResult); r.Cut != 3 {
				t.Errorf("got %d cut, want 3", r.Cut)
			}
			if !slices.Equal(f.cut, []string{tt.params.Agent}) || !slices.Equal(f.cutIDs, tt.params.Connections) {
				t.Errorf("got cuts of %q %v, want %q %v", f.cut, f.cutIDs, tt.params.Agent, tt.params.Connections)
			}
			want := audit.Entry{Agent: "person", Method: protocol.MethodPopupDisconnect, Target: tt.target, Result: "ok", Browser: "b1"}
			if len(f.audits) != 1 || f.audits[0].Agent != want.Agent || f.audits[0].Method != want.Method || f.audits[0].Target != want.Target || f.audits[0].Browser != want.Browser || f.audits[0].Result != want.Result {
				t.Errorf("got lines %+v, want %+v", f.audits, want)
			}
		})
	}
}
