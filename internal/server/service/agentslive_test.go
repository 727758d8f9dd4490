package service

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// popupResult makes one popup.* call through the fake extension and
// decodes its result into out.
func (e *fakeExt) popupResult(id int, method string, params, out any) *protocol.Error {
	e.T.Helper()
	m := e.popupCall(id, method, params)
	if m["error"] != nil {
		b, _ := json.Marshal(m["error"])
		var pe protocol.Error
		if err := json.Unmarshal(b, &pe); err != nil {
			e.T.Fatalf("%s: decode error %s: %v", method, b, err)
		}
		return &pe
	}
	b, _ := json.Marshal(m["result"])
	if err := json.Unmarshal(b, out); err != nil {
		e.T.Fatalf("%s: decode %s: %v", method, b, err)
	}
	return nil
}

// The Agents panel's live view: a call waiting on the browser shows as in
// flight on its connection, with its method, target and tab; Disconnect
// cuts the connection (the waiting call ends with an error), revokes
// nothing, and the agent connects again.
func TestPopupAgentsInFlightAndDisconnect(t *testing.T) {
	f := newFixture(t)
	ext := f.linkedExt(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	you := f.agent(t) // the owner token without a name: the person's CLI
	alice, err := f.agentNamed(t, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if err := alice.Call(ctx, protocol.MethodPing, nil, nil); err != nil {
		t.Fatal(err)
	}

	errc := callAsync(ctx, you, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Tab: 3}, Method: "Page.reload"})
	if req := ext.Read(); req["method"] == nil {
		t.Fatalf("got %v, want the CDP request on its way to the browser", req)
	}
	var panel protocol.PopupAgentsResult
	if e := ext.popupResult(1, protocol.MethodPopupAgents, map[string]any{"perAgent": 20}, &panel); e != nil {
		t.Fatalf("popup.agents: %v", e)
	}
	byName := map[string]protocol.AgentConnection{}
	for _, c := range panel.Connections {
		byName[c.Agent] = c
	}
	mine, ok := byName[""]
	if !ok || mine.Paired || len(mine.Calls) != 1 {
		t.Fatalf("connections: got %+v, want the unnamed owner's with one call in flight", panel.Connections)
	}
	if c := mine.Calls[0]; c.Method != protocol.MethodCDPSend || c.Target != "Page.reload" || c.Tab != 3 || c.Since.IsZero() {
		t.Errorf("in flight: got %+v, want cdp.send Page.reload on tab 3", c)
	}
	if a, ok := byName["alice"]; !ok || len(a.Calls) != 0 || a.ID == mine.ID {
		t.Errorf("alice: got %+v (present %v), want her idle connection", a, ok)
	}

	var cut protocol.PopupDisconnectResult
	if e := ext.popupResult(2, protocol.MethodPopupDisconnect, map[string]any{"connections": []uint64{mine.ID}}, &cut); e != nil || cut.Cut != 1 {
		t.Fatalf("popup.disconnect by id: got %+v, %v; want 1 cut", cut, e)
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("the call in flight succeeded after its connection was cut")
		}
	case <-ctx.Done():
		t.Fatal("the call in flight hung after Disconnect")
	}

	if e := ext.popupResult(3, protocol.MethodPopupDisconnect, map[string]any{"agent": "alice"}, &cut); e != nil || cut.Cut != 1 {
		t.Fatalf("popup.disconnect alice: got %+v, %v; want 1 cut", cut, e)
	}
	if err := alice.Call(ctx, protocol.MethodPing, nil, nil); err == nil {
		t.Error("alice's cut connection still answers")
	}
	again, err := f.agentNamed(t, "alice")
	if err != nil {
		t.Fatalf("alice reconnects after Disconnect: %v", err)
	}
	if err := again.Call(ctx, protocol.MethodPing, nil, nil); err != nil {
		t.Fatalf("alice's new connection: %v", err)
	}

	if e := ext.popupResult(4, protocol.MethodPopupAgents, map[string]any{"perAgent": 20}, &panel); e != nil {
		t.Fatalf("popup.agents: %v", e)
	}
	if r := panel.Recent["owner"]; len(r) != 1 || r[0].Method != protocol.MethodCDPSend || r[0].Result == "ok" {
		t.Errorf("recent calls of the owner: got %+v, want the cut cdp.send, failed", r)
	}
	for _, bad := range []map[string]any{{}, {"agent": "alice", "connections": []uint64{1}}} {
		wantPopupCode(t, ext.popupResult(5, protocol.MethodPopupDisconnect, bad, &cut), protocol.CodeInvalidParams)
	}
	wantPopupCode(t, ext.popupResult(6, protocol.MethodPopupAgents, map[string]any{"perAgent": 21}, &panel), protocol.CodeInvalidParams)
	// The panel's Revoke is agents.revoke run as the person, who may: an
	// unknown name is the answer, not a refusal.
	wantPopupCode(t, ext.popupResult(7, protocol.MethodAgentsRevoke, map[string]any{"name": "nobody"}, &cut), protocol.CodeInvalidParams)
}

func wantPopupCode(t *testing.T, e *protocol.Error, want protocol.Code) {
	t.Helper()
	if e == nil || e.Code != want {
		t.Errorf("got %v, want %s", e, want.Name())
	}
}
