package service

import (
	"context"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// popupCallOf makes one popup-channel call as the fake extension and
// returns the reply.
func (e *fakeExt) popupCall(call int, method string, params any) map[string]any {
	e.T.Helper()
	msg := map[string]any{"call": call, "method": method}
	if params != nil {
		msg["params"] = params
	}
	e.Send(msg)
	for {
		m := e.Read()
		if m["event"] == "callReply" && m["call"] == float64(call) {
			return m
		}
	}
}

func TestStopAllAutomationRefusesAgentsUntilSwitchedBack(t *testing.T) {
	f := newFixture(t)
	ext := f.connectExt(t, "chrome-extension://"+testExt+"/")
	ext.hello()
	c := f.agent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	if r := ext.popupCall(1, protocol.MethodPopupAutomation, map[string]any{"stopped": true}); r["result"].(map[string]any)["stopped"] != true {
		t.Fatalf("popup.automation stop: got %v, want stopped", r)
	}
	err := c.Call(ctx, protocol.MethodTabsList, nil, nil)
	wantCode(t, err, protocol.CodeAutomationStopped)
	var bl protocol.BrowsersListResult
	if err := c.Call(ctx, protocol.MethodBrowsersList, nil, &bl); err != nil || len(bl.Browsers) != 1 || !bl.Browsers[0].AutomationStopped {
		t.Fatalf("browsers.list while stopped: got %+v, %v; want the browser, automationStopped", bl, err)
	}
	// Reading the switch changes nothing.
	if r := ext.popupCall(2, protocol.MethodPopupAutomation, nil); r["result"].(map[string]any)["stopped"] != true {
		t.Fatalf("popup.automation read: got %v, want stopped", r)
	}
	if r := ext.popupCall(3, protocol.MethodPopupAutomation, map[string]any{"stopped": false}); r["result"].(map[string]any)["stopped"] != false {
		t.Fatalf("popup.automation back on: got %v", r)
	}
	// Back on: the call gets past the switch and reaches the extension again
	// (the first frame the browser gets is the call's op; it need not finish).
	cctx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- c.Call(cctx, protocol.MethodTabsList, nil, nil) }()
	if m := ext.Read(); m["op"] == nil {
		t.Fatalf("after switching back on: got %v, want an op for the browser", m)
	}
	stop()
	<-done
}

// A new link of a browser whose extension says hello with the switch on
// (its worker or the service restarted) is refused from the start.
func TestStopAllAutomationComesWithTheHello(t *testing.T) {
	f := newFixture(t)
	ext := f.connectExt(t, "chrome-extension://"+testExt+"/")
	ext.Send(map[string]any{"event": "hello", "extensionId": testExt, "version": "0.1.0", "userAgent": "fake", "automationStopped": true})
	if m := ext.Read(); m["event"] != "welcome" {
		t.Fatalf("after hello: got %v, want welcome", m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := f.agent(t).Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{}, nil)
	wantCode(t, err, protocol.CodeAutomationStopped)
}

func TestPopupFrontParamsAreStrict(t *testing.T) {
	f := newFixture(t)
	ext := f.connectExt(t, "chrome-extension://"+testExt+"/")
	ext.hello()
	for i, tt := range []struct {
		method string
		params any
	}{
		{protocol.MethodPopupHighlight, map[string]any{"targets": "#a"}},
		{protocol.MethodPopupPick, map[string]any{"tabId": 3}},
		{protocol.MethodPopupAutomation, map[string]any{"stopped": "yes"}},
		{protocol.MethodPopupLastPick, map[string]any{"tab": 1}},
	} {
		r := ext.popupCall(10+i, tt.method, tt.params)
		e, _ := r["error"].(map[string]any)
		if e == nil || e["code"] != float64(protocol.CodeInvalidParams) {
			t.Errorf("%s %v: got %v, want invalid_params", tt.method, tt.params, r)
		}
	}
	if r := ext.popupCall(20, protocol.MethodPopupLastPick, nil); r["result"].(map[string]any)["pick"] != nil {
		t.Errorf("popup.lastPick before any pick: got %v, want pick null", r)
	}
}

// Closing a popup that drew nothing must not attach the debugger to the
// tab just to clear it.
func TestPopupClearOfAnUnattachedTabAsksNothing(t *testing.T) {
	f := newFixture(t)
	ext := f.connectExt(t, "chrome-extension://"+testExt+"/")
	ext.hello()
	ext.Send(map[string]any{"call": 1, "method": protocol.MethodPopupClear, "params": map[string]any{"tab": 5}})
	m := ext.Read()
	if m["event"] != "callReply" || m["result"].(map[string]any)["cleared"] != true {
		t.Fatalf("got %v, want the call's reply (cleared) before any request to the extension", m)
	}
}
