package service

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// A call none of whose commands reached the page (Chrome refused them: the
// session was gone without a detach event) runs again, once, its first
// command marked reattach; one whose command may have run (detached while
// it ran) fails with detached and is not run again.
func TestCallRunsAgainWhenNothingReachedThePage(t *testing.T) {
	f := newFixture(t)
	agent := f.agent(t)
	ext, id := f.keyedExt(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	send := func(method string) chan error {
		errc := make(chan error, 1)
		go func() {
			var res json.RawMessage
			errc <- agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: protocol.Target{Browser: id, Tab: 7}, Method: method}, &res)
		}()
		return errc
	}

	errc := send("Runtime.evaluate")
	first := ext.Read()
	ext.Send(map[string]any{"event": "detached", "tabId": 7, "reason": "not_attached", "refused": true})
	ext.Send(map[string]any{"id": first["id"], "error": map[string]any{"code": "detached", "message": "m", "reason": "not_attached", "refused": true}})
	again := ext.Read()
	if again["method"] != "Runtime.evaluate" || again["reattach"] != true {
		t.Fatalf("the call's second run: got %v, want Runtime.evaluate with reattach", again)
	}
	ext.Send(map[string]any{"id": again["id"], "result": map[string]any{"ok": true}})
	if err := <-errc; err != nil {
		t.Fatalf("cdp.send refused once: got %v, want its second run's answer", err)
	}

	errc = send("Input.dispatchMouseEvent")
	ran := ext.Read()
	if ran["reattach"] != nil {
		t.Errorf("the next command: got reattach %v, want none", ran["reattach"])
	}
	ext.Send(map[string]any{"event": "detached", "tabId": 7, "reason": "not_attached"})
	ext.Send(map[string]any{"id": ran["id"], "error": map[string]any{"code": "detached", "message": "m", "reason": "not_attached"}})
	wantCode(t, <-errc, protocol.CodeDetached)
	errc = send("Page.enable")
	if m := ext.Read(); m["method"] != "Page.enable" {
		t.Fatalf("after a detach that may have run: got %v, want the next call's command, not a second run", m)
	} else {
		ext.Send(map[string]any{"id": m["id"], "result": map[string]any{}})
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}
