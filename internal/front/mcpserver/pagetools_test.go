package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/protocol"
)

// The MCP client's name reaches OnClient, once, when the session starts,
// before any tool is called (egohost mcp pairs under that name then):
// from the legacy initialize and from the stateless protocol's
// server/discover alike.
func TestOnClientAtConnect(t *testing.T) {
	for _, version := range []string{"", "2025-06-18", "2024-11-05"} {
		t.Run("protocol "+cmpOr(version, "latest"), func(t *testing.T) {
			got := make(chan string, 2)
			ctx := context.Background()
			cs := connectAs(t, &fakeService{}, Options{OnClient: func(_ context.Context, name string) { got <- name }}, "Gemini CLI", &mcp.ClientSessionOptions{ProtocolVersion: version})
			select {
			case name := <-got:
				if name != "Gemini CLI" {
					t.Errorf("OnClient got %q, want Gemini CLI", name)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("OnClient was not called when the session started")
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			select {
			case name := <-got:
				t.Errorf("OnClient called again with %q", name)
			default:
			}
		})
	}
}

// Each new tool is the service call it says, rendered in one line (and
// the page's diff or snapshot where the page may have changed).
func TestNewToolsCallTheService(t *testing.T) {
	yes, no, val := true, false, "ada@example.com"
	snap := protocol.SnapshotResult{Text: "[no changes since the previous snapshot: 3 lines]", URL: "http://x/", Title: "x", Tab: 7}
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		answers map[string]any
		errs    map[string]error
		calls   []string // the first calls, in order
		want    []string // in the text
		isErr   bool
	}{
		{
			name: "forward", tool: "browser_navigate_forward",
			answers: map[string]any{protocol.MethodForward: protocol.NavResult{Tab: 7, URL: "http://x/b", Reached: "load"}, protocol.MethodSnapshot: snap},
			calls:   []string{`forward {}`, `snapshot {"interactive":true}`},
			want:    []string{"went forward to http://x/b (load in 0 ms)", `page: http://x/ "x" (tab 7)`},
		},
		{
			name: "reload", tool: "browser_reload",
			answers: map[string]any{protocol.MethodReload: protocol.NavResult{Tab: 7, URL: "http://x/", Reached: "load"}, protocol.MethodSnapshot: snap},
			calls:   []string{`reload {}`},
			want:    []string{"reloaded http://x/"},
		},
		{
			name: "evaluate on an element", tool: "browser_evaluate", args: map[string]any{"function": "(el) => el.value", "ref": "@4"},
			answers: map[string]any{protocol.MethodEval: protocol.EvalResult{Value: "hi"}},
			calls:   []string{`eval {"expression":"(el) =\u003e el.value","target":"@4"}`},
			want:    []string{`"hi"`},
		},
		{
			name: "resize", tool: "browser_resize", args: map[string]any{"width": 390, "height": 844},
			answers: map[string]any{protocol.MethodResize: protocol.ResizeResult{Tab: 7, Width: 390, Height: 844}, protocol.MethodSnapshot: snap},
			calls:   []string{`resize {"width":390,"height":844}`, `snapshot {"interactive":true,"diff":true}`},
			want:    []string{"the viewport of tab 7 is 390 × 844\n[no changes"},
		},
		{
			name: "close", tool: "browser_close",
			answers: map[string]any{protocol.MethodTabsClose: map[string]any{"closed": true, "tab": 7}},
			calls:   []string{`tabs.close {}`},
			want:    []string{"closed tab 7"},
		},
		{
			name: "one request", tool: "browser_network_request", args: map[string]any{"index": 3},
			answers: map[string]any{protocol.MethodNetworkRequest: protocol.NetworkRequestResult{
				Tab: 7, Request: protocol.NetworkRequest{ID: 3, Method: "POST", URL: "http://x/api", Status: 201, StatusText: "Created", MimeType: "application/json"},
				RequestHeaders: map[string]string{"Content-Type": "application/json"}, ResponseHeaders: map[string]string{"X-Id": "9"},
				RequestBody: &protocol.Body{Text: `{"a":1}`, Bytes: 7}, ResponseBody: &protocol.Body{Text: `{"id":9`, Bytes: 9, Cut: 2},
			}},
			calls: []string{`network.request {"id":3,"body":true,"maxBytes":20000}`},
			want:  []string{"#3 [POST] http://x/api => [201] Created (application/json)\nrequest headers:\n  Content-Type: application/json\nrequest body:\n{\"a\":1}\nresponse headers:\n  X-Id: 9\nresponse body:\n{\"id\":9\n[cut: 7 of 9 bytes shown]"},
		},
		{
			name: "one request's response headers only", tool: "browser_network_request", args: map[string]any{"index": 3, "part": "response-headers"},
			answers: map[string]any{protocol.MethodNetworkRequest: protocol.NetworkRequestResult{Request: protocol.NetworkRequest{ID: 3, Method: "GET", URL: "http://x/"}, ResponseHeaders: map[string]string{"X-Id": "9"}}},
			calls:   []string{`network.request {"id":3,"maxBytes":20000}`},
			want:    []string{"#3 [GET] http://x/ => pending\nresponse headers:\n  X-Id: 9"},
		},
		{
			name: "storage", tool: "browser_storage", args: map[string]any{"type": "session"},
			answers: map[string]any{protocol.MethodStorageGet: protocol.StorageGetResult{Tab: 7, Origin: "http://x", Kind: "session", Items: []protocol.StorageItem{{Key: "cart", Value: "a\nb", Length: 3}, {Key: "n", Value: "1", Length: 1}}}},
			calls:   []string{`storage.get {"kind":"session"}`},
			want:    []string{"2 sessionStorage item(s) of http://x (tab 7)\ncart = \"a\\nb\"\nn = 1"},
		},
		{
			name: "one storage item", tool: "browser_storage", args: map[string]any{"key": "cart"},
			answers: map[string]any{protocol.MethodStorageGet: protocol.StorageGetResult{Tab: 7, Origin: "http://x", Kind: "local", Items: []protocol.StorageItem{{Key: "cart", Value: "x", Length: 70000, Cut: true}}}},
			calls:   []string{`storage.get {"name":"cart"}`},
			want:    []string{"1 localStorage item(s) of http://x (tab 7)\ncart = x … (cut: 70000 characters in all)"},
		},
		{
			name: "generate a locator", tool: "browser_generate_locator", args: map[string]any{"target": "@5"},
			answers: map[string]any{protocol.MethodLocators: protocol.LocatorsResult{Locator: `role=button[name="Save"]`, Ref: "@5", Candidates: []protocol.PickCandidate{
				{Locator: `role=button[name="Save"]`, Count: 1, Unique: true}, {Locator: `text="Save"`, Count: 2}, {Locator: "css=#save", Count: 1, Unique: true}}}},
			calls: []string{`locators {"target":"@5"}`},
			want:  []string{"role=button[name=\"Save\"]  (ref @5)\nalso: text=\"Save\" (2 matches), css=#save (unique)"},
		},
		{
			name: "verify an element", tool: "browser_verify_element_visible", args: map[string]any{"role": "button", "accessibleName": `Say "hi"`},
			calls: []string{`wait {"target":"role=button[name=\"Say \\\"hi\\\"\"] \u003e\u003e visible=true \u003e\u003e nth=0","state":"visible","timeoutMs":5000}`},
			want:  []string{`verified: button "Say \"hi\"" is visible`},
		},
		{
			name: "verify an element that is not there", tool: "browser_verify_element_visible", args: map[string]any{"role": "button", "accessibleName": "Save"},
			errs:  map[string]error{protocol.MethodWait: protocol.Errorf(protocol.CodeTimeout, "wait: timeout")},
			want:  []string{`verify_failed: no visible button "Save" on the page (waited 5 s)`},
			isErr: true,
		},
		{
			name: "verify text", tool: "browser_verify_text_visible", args: map[string]any{"text": "Thank you"},
			calls: []string{`wait {"text":"Thank you","timeoutMs":5000}`},
			want:  []string{`verified: "Thank you" is visible`},
		},
		{
			name: "verify a value", tool: "browser_verify_value", args: map[string]any{"type": "textbox", "element": "Email", "target": "@2", "value": "ada@example.com"},
			answers: map[string]any{protocol.MethodInspect: protocol.InspectResult{Element: `<input name="email">`, Value: &val}},
			calls:   []string{`inspect {"target":"@2","timeoutMs":5000}`},
			want:    []string{`verified: <input name="email"> is "ada@example.com"`},
		},
		{
			name: "verify a wrong value", tool: "browser_verify_value", args: map[string]any{"type": "textbox", "target": "@2", "value": "bob"},
			answers: map[string]any{protocol.MethodInspect: protocol.InspectResult{Element: `<input name="email">`, Value: &val}},
			want:    []string{`verify_failed: <input name="email">: the value is "ada@example.com", want "bob"`},
			isErr:   true,
		},
		{
			name: "verify a checkbox", tool: "browser_verify_value", args: map[string]any{"type": "checkbox", "target": "@3", "value": "false"},
			answers: map[string]any{protocol.MethodInspect: protocol.InspectResult{Element: `<input type="checkbox">`, Checked: &yes}},
			want:    []string{`verify_failed: <input type="checkbox">: checked is true, want false`},
			isErr:   true,
		},
		{
			name: "verify a radio button", tool: "browser_verify_value", args: map[string]any{"type": "radio", "target": "@3", "value": "false"},
			answers: map[string]any{protocol.MethodInspect: protocol.InspectResult{Element: `<input type="radio">`, Checked: &no}},
			want:    []string{`verified: <input type="radio"> is "false"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeService{answers: tt.answers, errs: tt.errs}
			cs := connect(t, f)
			got, isErr := callText(t, cs, tt.tool, tt.args)
			if isErr != tt.isErr {
				t.Errorf("IsError = %t, want %t: %s", isErr, tt.isErr, got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got\n%s\nwant it to contain\n%s", got, w)
				}
			}
			if len(f.calls) < len(tt.calls) {
				t.Fatalf("calls %q, want them to start %q", f.calls, tt.calls)
			}
			if d := cmp.Diff(tt.calls, f.calls[:len(tt.calls)], cmpopts.EquateEmpty()); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
		})
	}
}

// The spaces flow as an MCP agent sees it: user_in_control tells it to
// wait; browser_space_wait waits on the session tab's space and answers
// the page as the user left it; a timeout says to call again;
// browser_space_complete ends that space.
func TestSpaceTools(t *testing.T) {
	taken := protocol.Errorf(protocol.CodeUserInControl, "the person has taken over space s2 (agent bot): stop and wait until they hand it back (spaces.waitForControl, `egohost space wait`); do not retry in a loop").With("space", "s2")
	f := &fakeService{
		answers: map[string]any{
			protocol.MethodSpacesNew:            protocol.SpaceResult{Space: protocol.Space{ID: "s2", Title: "🤖 bot: buy milk"}, Tab: &protocol.Tab{ID: 12}},
			protocol.MethodSnapshot:             protocol.SnapshotResult{Text: "- button \"Pay\" @3", URL: "http://shop/", Title: "shop", Tab: 12},
			protocol.MethodTabsList:             protocol.TabsListResult{Tabs: []protocol.Tab{{ID: 12, URL: "http://shop/", Title: "shop", Space: "s2"}}},
			protocol.MethodSpacesWaitForControl: protocol.SpaceResult{Space: protocol.Space{ID: "s2"}},
			protocol.MethodSpacesComplete:       protocol.SpacesCompleteResult{Space: "s2", Closed: []int{12}},
			protocol.MethodSpacesList:           protocol.SpacesListResult{Spaces: []protocol.Space{{ID: "s2", Title: "✋ bot: buy milk", State: "person", Tabs: []int{12}, Current: true}}},
		},
		errs: map[string]error{protocol.MethodClick: taken},
	}
	cs := connect(t, f)
	step := func(tool string, args map[string]any, wantErr bool, want ...string) {
		t.Helper()
		got, isErr := callText(t, cs, tool, args)
		if isErr != wantErr {
			t.Errorf("%s: IsError %t, want %t: %s", tool, isErr, wantErr, got)
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: got\n%s\nwant it to contain %q", tool, got, w)
			}
		}
	}
	step("browser_space_new", map[string]any{"task": "buy milk", "url": "http://shop/"}, false, `started space s2 "🤖 bot: buy milk" with tab 12`, `button "Pay" @3`)
	step("browser_click", map[string]any{"target": "@3"}, true, "user_in_control: ", "; wait with browser_space_wait until the user hands your space back")
	step("browser_spaces", nil, false, `s2 "✋ bot: buy milk": the user has it (wait with browser_space_wait) (current)`, `0: "shop" http://shop/ [tab 12] (current)`)
	step("browser_space_wait", nil, false, "you are in control of space s2 again", `page: http://shop/ "shop" (tab 12)`)
	f.mu.Lock()
	f.errs[protocol.MethodSpacesWaitForControl] = protocol.Errorf(protocol.CodeTimeout, "spaces.waitForControl: the person still has space s2")
	f.mu.Unlock()
	step("browser_space_wait", map[string]any{"timeout": 0.2}, true, "timeout: the user still has space s2 after", "call browser_space_wait again")
	step("browser_space_complete", nil, false, "completed space s2; closed tab 12")
	var waits, completes []string
	for _, c := range f.calls {
		switch {
		case strings.HasPrefix(c, protocol.MethodSpacesWaitForControl):
			waits = append(waits, c)
		case strings.HasPrefix(c, protocol.MethodSpacesComplete):
			completes = append(completes, c)
		}
	}
	want := []string{`spaces.waitForControl {"space":"s2"}`, `spaces.waitForControl {"space":"s2","timeoutMs":200}`}
	if d := cmp.Diff(want, waits); d != "" {
		t.Errorf("waits (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{`spaces.complete {"space":"s2"}`}, completes); d != "" {
		t.Errorf("completes (-want +got):\n%s", d)
	}
	// The session's tab went with the space: the next call names none.
	if tgt := f.lastParams(protocol.MethodSpacesComplete); !strings.Contains(tgt, "s2") {
		t.Errorf("complete's params %s", tgt)
	}
}

// lastParams is the params of the last call of method.
func (f *fakeService) lastParams(method string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.calls) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(f.calls[i], method+" "); ok {
			return rest
		}
	}
	return ""
}
