package ownermethods

import (
	"context"
	"slices"
	"testing"

	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/protocol"
)

// pair.request: a refused request is a strike and no audit line; one that
// reached the person gets one line saying how it ended.
func TestPairRequest(t *testing.T) {
	few := pairing.DefaultLimits
	few.Burst = 0 // every request over the process's rate
	tests := []struct {
		name     string
		lim      pairing.Limits
		params   protocol.PairRequestParams
		answer   func(m *Methods, n protocol.PairingNotice) // the person, at the notice
		canceled bool                                       // the agent goes away at once
		code     protocol.Code
		reason   string
		strikes  int
		audited  []string // method and result of each audit line
	}{
		{name: "bad name", lim: pairing.DefaultLimits, params: protocol.PairRequestParams{Name: "no spaces"}, code: protocol.CodeInvalidParams, strikes: 1},
		{name: "bad scope", lim: pairing.DefaultLimits, params: protocol.PairRequestParams{Name: "bot", Scopes: []string{"root"}}, code: protocol.CodeInvalidParams, strikes: 1},
		{name: "busy", lim: few, params: protocol.PairRequestParams{Name: "bot"}, code: protocol.CodePairingBusy, strikes: 1},
		{name: "approved", lim: pairing.DefaultLimits, params: protocol.PairRequestParams{Name: "bot", Scopes: []string{"space", "read"}},
			answer: func(m *Methods, n protocol.PairingNotice) {
				m.AgentsApprove(context.Background(), &fakeCall{name: "owner"}, protocol.AgentsApproveParams{Name: n.Pending[0].ID, Scopes: []string{"read"}})
			},
			audited: []string{"agents.approve ok", "pair.request approved"}},
		{name: "denied", lim: pairing.DefaultLimits, params: protocol.PairRequestParams{Name: "bot"},
			answer: func(m *Methods, n protocol.PairingNotice) {
				m.AgentsDeny(context.Background(), &fakeCall{name: "owner"}, protocol.AgentNameParams{Name: "bot"})
			},
			code: protocol.CodePairingDenied, reason: "denied", audited: []string{"agents.deny ok", "pair.request denied"}},
		{name: "expired", lim: pairing.DefaultLimits, params: protocol.PairRequestParams{Name: "bot", WaitMs: 1}, code: protocol.CodePairingDenied, reason: "expired", audited: []string{"pair.request expired"}},
		{name: "canceled", lim: pairing.DefaultLimits, params: protocol.PairRequestParams{Name: "bot"}, canceled: true, code: protocol.CodeInternal, audited: []string{"pair.request canceled"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, f := newMethods(t, tt.lim)
			if tt.answer != nil {
				f.onNotice = func(n protocol.PairingNotice) { tt.answer(m, n) }
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.canceled {
				cancel()
			}
			c := &fakeCall{name: "(unpaired)"}
			res, err := m.PairRequest(ctx, c, tt.params)
			if got := codeOf(err); got != tt.code {
				t.Fatalf("got %v, want code %s", err, tt.code.Name())
			}
			if tt.reason != "" {
				if pe := err.(*protocol.Error); pe.Data["reason"] != tt.reason {
					t.Errorf("got reason %v, want %s", pe.Data["reason"], tt.reason)
				}
			}
			if c.strikes != tt.strikes {
				t.Errorf("got %d strikes, want %d", c.strikes, tt.strikes)
			}
			var got []string
			for _, e := range f.audits {
				got = append(got, e.Method+" "+e.Result)
			}
			if !slices.Equal(got, tt.audited) {
				t.Errorf("got audit lines %q, want %q", got, tt.audited)
			}
			if len(tt.audited) > 0 {
				last := f.audits[len(f.audits)-1]
				if last.Agent != "(unpaired)" || last.Target != tt.params.Name || last.Process != "/usr/bin/agent (pid 42, uid 1000)" {
					t.Errorf("got line %+v, want (unpaired)'s request for %s from /usr/bin/agent", last, tt.params.Name)
				}
			}
			if err != nil {
				return
			}
			r := res.(protocol.PairRequestResult)
			if r.Name != "bot" || r.Token == "" || !slices.Equal(r.Scopes, []string{"read"}) {
				t.Errorf("got %+v, want bot's token with the scope granted, read", r)
			}
			if ag, ok := f.pairs.Live("bot"); !ok || ag.Process == nil || ag.Process.PID != 42 {
				t.Errorf("got pairing %+v (%v), want bot's, by pid 42", ag, ok)
			}
			if f.revokes != 1 {
				t.Errorf("got %d cuts of revoked connections, want 1 (a replaced pairing)", f.revokes)
			}
			if got := f.audits[1].Scopes; !slices.Equal(got, []string{"read"}) {
				t.Errorf("got scopes %v in the line, want those granted, read", got)
			}
		})
	}
}

// The notice the extension gets while a request waits: its badge, and the
// live pairing it would replace.
func TestPairingNoticeAndList(t *testing.T) {
	m, f := newMethods(t, pairing.DefaultLimits)
	if _, _, err := f.pairs.Add("bot", []pairing.Scope{pairing.Space}, nil); err != nil {
		t.Fatal(err)
	}
	var list protocol.AgentsListResult
	f.onNotice = func(n protocol.PairingNotice) {
		if n.Badge != "1" || len(n.Pending) != 1 || n.Pending[0].Replaces == nil || n.Pending[0].Replaces.Connected != 2 {
			t.Errorf("got notice %+v, want one request replacing bot's pairing (2 connected)", n)
		}
		res, _ := m.AgentsList(context.Background(), &fakeCall{name: "owner"}, rpcparams.None{})
		list = res.(protocol.AgentsListResult)
		m.AgentsDeny(context.Background(), &fakeCall{name: "owner"}, protocol.AgentNameParams{Name: "bot"})
	}
	m.PairRequest(context.Background(), &fakeCall{}, protocol.PairRequestParams{Name: "bot"})
	if len(list.Agents) != 1 || list.Agents[0].Name != "bot" || len(list.Pending) != 1 || list.Pending[0].Name != "bot" {
		t.Errorf("agents.list while it waited: got %+v, want bot paired and bot's request", list)
	}
	if last := f.notices[len(f.notices)-1]; last.Badge != "" || len(last.Pending) != 0 {
		t.Errorf("got last notice %+v, want none waiting, no badge", last)
	}
}

// agents.approve, agents.deny and the popup's buttons with no request to
// answer: invalid_params, audited (but a malformed call is not).
func TestDecideRefused(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		call    func(m *Methods) (any, error)
		audited string // who, method, target; "" for none
	}{
		{"approve nobody", func(m *Methods) (any, error) {
			return m.AgentsApprove(ctx, &fakeCall{name: "owner"}, protocol.AgentsApproveParams{Name: "bot"})
		}, "owner agents.approve bot"},
		{"deny no name", func(m *Methods) (any, error) {
			return m.AgentsDeny(ctx, &fakeCall{name: "owner"}, protocol.AgentNameParams{})
		}, "owner agents.deny none"},
		{"approve a bad scope", func(m *Methods) (any, error) {
			return m.AgentsApprove(ctx, &fakeCall{name: "owner"}, protocol.AgentsApproveParams{Name: "bot", Scopes: []string{"root"}})
		}, ""},
		{"popup without id or name", func(m *Methods) (any, error) {
			return m.PopupPairingDecide(ctx, fakePopup{}, protocol.PopupPairingDecideParams{Approve: true})
		}, ""},
		{"popup by name", func(m *Methods) (any, error) {
			return m.PopupPairingDecide(ctx, fakePopup{}, protocol.PopupPairingDecideParams{Name: "bot", Approve: true})
		}, "person agents.approve bot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, f := newMethods(t, pairing.DefaultLimits)
			if _, err := tt.call(m); codeOf(err) != protocol.CodeInvalidParams {
				t.Errorf("got %v, want invalid_params", err)
			}
			var got string
			if len(f.audits) == 1 {
				e := f.audits[0]
				got = e.Agent + " " + e.Method + " " + e.Target
				if e.Result != "invalid_params" {
					t.Errorf("got result %s, want invalid_params", e.Result)
				}
			}
			if len(f.audits) > 1 || got != tt.audited {
				t.Errorf("got audit lines %+v, want %q", f.audits, tt.audited)
			}
		})
	}
}

// agents.revoke: a known agent's connections are cut and its spaces end,
// and the answer names the person's pages an agent's script ran in; an
// unknown name is invalid_params. Both are audited.
func TestAgentsRevoke(t *testing.T) {
	for _, tt := range []struct {
		name, agent string
		code        protocol.Code
	}{
		{"paired", "bot", 0},
		{"unknown", "nobody", protocol.CodeInvalidParams},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, f := newMethods(t, pairing.DefaultLimits)
			if _, _, err := f.pairs.Add("bot", []pairing.Scope{pairing.Space}, nil); err != nil {
				t.Fatal(err)
			}
			own, linked := []protocol.Target{{Browser: "b1", Tab: 7}}, []protocol.Target{{Browser: "b1", Tab: 9}}
			c := &fakeCall{name: "owner", scripted: own, closeFirst: linked}
			res, err := m.AgentsRevoke(context.Background(), c, protocol.AgentNameParams{Name: tt.agent})
			if codeOf(err) != tt.code {
				t.Fatalf("got %v, want code %s", err, tt.code.Name())
			}
			if len(f.audits) != 1 || f.audits[0].Method != protocol.MethodAgentsRevoke || f.audits[0].Target != tt.agent || f.audits[0].Agent != "owner" {
				t.Errorf("got audit lines %+v, want owner's agents.revoke of %s", f.audits, tt.agent)
			}
			if err != nil {
				if f.revokes != 0 || len(c.ended) != 0 {
					t.Errorf("got %d cuts and spaces ended %v, want none", f.revokes, c.ended)
				}
				return
			}
			if r := res.(protocol.AgentsRevokeResult); r.Name != "bot" || r.Cut != 1 || !slices.Equal(r.Scripted, own) || !slices.Equal(r.CloseFirst, linked) {
				t.Errorf("got %+v, want bot, 1 cut, tab 7 of b1 scripted, tab 9 to close first", r)
			}
			if !slices.Equal(c.ended, []string{"bot"}) {
				t.Errorf("got spaces ended of %v, want bot's", c.ended)
			}
			if _, ok := f.pairs.Live("bot"); ok {
				t.Error("bot is still paired")
			}
		})
	}
}
