package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/extension"
	"github.com/egohost/egohost/internal/testkit/cdpdirect"
	"github.com/egohost/egohost/protocol"
)

// popupPage opens the extension's popup page as a tab (over the test's
// DevTools connection, as a person's click on the icon would load it).
func popupPage(t testing.TB, c *chain) *cdpdirect.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, _, err := c.direct.NewPage(ctx, "chrome-extension://"+extension.ID+"/popup.html")
	if err != nil {
		t.Fatalf("open the popup page: %v", err)
	}
	return s
}

// serviceCall is the popup channel as a page of the extension uses it:
// chrome.runtime.sendMessage({type: "service.call", ...}) from the page.
type callAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Name    string         `json:"name"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

func serviceCall(ctx context.Context, page *cdpdirect.Session, method string, params any) (callAnswer, error) {
	msg := map[string]any{"type": "service.call", "method": method}
	if params != nil {
		msg["params"] = params
	}
	b, _ := json.Marshal(msg)
	var res evalReply
	err := page.Call(ctx, "Runtime.evaluate", map[string]any{
		"expression":    fmt.Sprintf("chrome.runtime.sendMessage(%s)", b),
		"awaitPromise":  true,
		"returnByValue": true,
	}, &res)
	if err != nil {
		return callAnswer{}, err
	}
	if e := res.ExceptionDetails; e != nil {
		if e.Exception != nil {
			return callAnswer{}, fmt.Errorf("page threw: %s", e.Exception.Description)
		}
		return callAnswer{}, fmt.Errorf("page threw: %s", e.Text)
	}
	var a callAnswer
	if err := json.Unmarshal(res.Result.Value, &a); err != nil {
		return a, fmt.Errorf("answer %s: %w", res.Result.Value, err)
	}
	return a, nil
}

// TestPopupChannel: a page of the extension calls the service through the
// real chain (worker → native port → relay → service) and gets answers:
// the popup's own methods, and the agents' methods run as the person at
// that browser, on that browser. Agents cannot call the popup's methods.
func TestPopupChannel(t *testing.T) {
	c := startChain(t)
	base := serve(t, map[string]string{"/": `<title>Shop</title><button>Buy now</button>`})
	tab := c.openTab(t, base+"/")
	page := popupPage(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// The worker connects the relay a moment after the page opens in a
	// fresh browser; the first calls may find it not yet connected.
	var a callAnswer
	var err error
	for {
		a, err = serviceCall(ctx, page, protocol.MethodPopupStatus, nil)
		if err == nil && a.Error == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("popup.status: %v %+v", err, a.Error)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var st protocol.PopupStatusResult
	json.Unmarshal(a.Result, &st)
	link := c.waitLink(t)
	if st.Browser != link.ID || !strings.HasPrefix(st.Endpoint, "ws://127.0.0.1:") || !strings.HasSuffix(st.TokenFile, "token") {
		t.Errorf("got popup.status %+v, want browser %s, a loopback endpoint and the token file", st, link.ID)
	}

	// An agent method, as the person: no browser named, this browser's tab.
	a, err = serviceCall(ctx, page, protocol.MethodSnapshot, protocol.SnapshotParams{Target: protocol.Target{Tab: tab.Tab}, Interactive: true})
	if err != nil || a.Error != nil {
		t.Fatalf("snapshot through the popup channel: %v %+v", err, a.Error)
	}
	var snap protocol.SnapshotResult
	json.Unmarshal(a.Result, &snap)
	if !strings.Contains(snap.Text, `button "Buy now"`) || snap.Tab != tab.Tab {
		t.Errorf("got snapshot of tab %d:\n%s\nwant tab %d with the button", snap.Tab, snap.Text, tab.Tab)
	}

	refusals := []struct {
		name, method string
		params       any
		wantName     string
	}{
		{"unknown popup method", "popup.nothing", nil, "method_not_found"},
		{"unknown method", "nothing.at.all", nil, "method_not_found"},
		{"subscriptions need an agent connection", protocol.MethodCDPSubscribe, map[string]any{"tab": tab.Tab}, "method_not_found"},
		{"bad params", protocol.MethodPopupStatus, map[string]any{"x": 1}, "invalid_params"},
		{"no method", "", nil, "invalid_request"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			a, err := serviceCall(ctx, page, tt.method, tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if a.Error == nil || a.Error.Name != tt.wantName {
				t.Errorf("got %s %+v, want error %s", a.Result, a.Error, tt.wantName)
			}
		})
	}

	// The agents' endpoint knows no popup method.
	err = c.agent.Call(ctx, protocol.MethodPopupStatus, nil, nil)
	if protocol.CodeOf(err) != protocol.CodeMethodNotFound {
		t.Errorf("agent called popup.status: got %v, want method_not_found", err)
	}

	// A dead service: the popup's call ends with service_down, not a hang.
	c.svc.stop()
	a, err = serviceCall(ctx, page, protocol.MethodPopupStatus, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Error == nil || a.Error.Name != "service_down" {
		t.Errorf("with the service stopped: got %s %+v, want service_down", a.Result, a.Error)
	}
}
