package service

import (
	"context"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// A call of the person that names no tab asks the extension for the
// person's tab in one question (tabs.focused), and asks for the whole list
// only of an extension without that op.
func TestThePersonsTabIsAskedInOneQuestion(t *testing.T) {
	f := newFixture(t)
	agent := f.agent(t)
	ext, id := f.keyedExt(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	send := func() <-chan error {
		return callAsync(ctx, agent, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Browser: id}, Method: "Runtime.evaluate", Params: []byte(`{"expression":"1"}`)})
	}
	wantTab := func(errc <-chan error, tab float64) {
		t.Helper()
		cdp := ext.expectOp("cdp", map[string]any{"result": map[string]any{"type": "number", "value": 1}})
		if cdp["tabId"] != tab {
			t.Errorf("the command went to tab %v, want %v", cdp["tabId"], tab)
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}

	errc := send()
	ext.expectOp("tabs.focused", map[string]any{"tab": map[string]any{"id": 7, "windowId": 2, "active": true, "focused": true}})
	wantTab(errc, 7)

	errc = send()
	ext.expectOp("tabs.focused", map[string]any{"tab": nil})
	select {
	case err := <-errc:
		wantCode(t, err, protocol.CodeTabNotFound)
	case <-ctx.Done():
		t.Fatal("no answer without an active tab")
	}

	errc = send()
	m := ext.Read()
	if m["op"] != "tabs.focused" {
		t.Fatalf("got %v, want tabs.focused", m)
	}
	ext.Send(map[string]any{"id": m["id"], "error": map[string]any{"code": "unknown_op", "message": `unknown op "tabs.focused"`}})
	ext.expectOp("tabs.list", map[string]any{"tabs": []any{
		map[string]any{"id": 3, "windowId": 1, "active": true},
		map[string]any{"id": 9, "windowId": 2, "active": true, "focused": true},
	}})
	wantTab(errc, 9)
	errc = send() // that extension is not asked the question again
	ext.expectOp("tabs.list", map[string]any{"tabs": []any{map[string]any{"id": 9, "windowId": 2, "active": true, "focused": true}}})
	wantTab(errc, 9)

}
