package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/protocol"
)

var update = flag.Bool("update", false, "rewrite testdata/tools.golden")

// fakeService records calls and answers them from a table.
type fakeService struct {
	mu      sync.Mutex
	calls   []string // method and params JSON
	answers map[string]any
	errs    map[string]error
}

func (f *fakeService) Call(ctx context.Context, method string, params, result any) error {
	b, _ := json.Marshal(params)
	f.mu.Lock()
	f.calls = append(f.calls, method+" "+string(b))
	ans, err := f.answers[method], f.errs[method]
	f.mu.Unlock()
	if err != nil {
		return err
	}
	if result != nil && ans != nil {
		raw, _ := json.Marshal(ans)
		return json.Unmarshal(raw, result)
	}
	return nil
}

func connect(t *testing.T, c Caller) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, c, Options{Version: "test", Caps: []string{"all"}})
}

// connectWith connects a client to a server with opts.
func connectWith(t *testing.T, c Caller, opts Options) *mcp.ClientSession {
	t.Helper()
	return connectAs(t, c, opts, "test", nil)
}

// connectAs connects a client named client (with copts) to a server with
// opts.
func connectAs(t *testing.T, c Caller, opts Options, client string, copts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	srv, err := New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: client}, nil).Connect(ctx, ct, copts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// listTools is the tool list the client session is given.
func listTools(t *testing.T, cs *mcp.ClientSession) *mcp.ListToolsResult {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestToolsGolden keeps the tool list (names, titles, descriptions, input
// schemas, annotations; every group) a deliberate change: agents pay for
// it on every turn, and prompts depend on it. Run with -update after
// changing a tool.
func TestToolsGolden(t *testing.T) {
	cs := connect(t, &fakeService{})
	res := listTools(t, cs)
	type tool struct {
		Name        string               `json:"name"`
		Title       string               `json:"title"`
		Description string               `json:"description"`
		InputSchema any                  `json:"inputSchema"`
		Annotations *mcp.ToolAnnotations `json:"annotations"`
	}
	var got []tool
	for _, tl := range res.Tools {
		got = append(got, tool{tl.Name, tl.Title, tl.Description, tl.InputSchema, tl.Annotations})
	}
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	path := filepath.Join("testdata", "tools.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if d := cmp.Diff(string(want), string(b)); d != "" {
		t.Errorf("tool list changed (-golden +now); if deliberate, run go test ./internal/front/mcpserver -run TestToolsGolden -update:\n%s", d)
	}
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError
}

func TestErrorsAreOneLineWithCodeAndNextStep(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"stale ref", protocol.Errorf(protocol.CodeStaleRef, "stale ref @8: the page navigated"), "stale_ref: stale ref @8: the page navigated; call browser_snapshot for fresh refs"},
		{"no browser", protocol.Errorf(protocol.CodeNoBrowser, "no browser is connected"), "no_browser: no browser is connected; start one with `egohost launch`, or open your browser with the egohost extension"},
		{"multi-line message", protocol.Errorf(protocol.CodeJSException, "page threw:\n  TypeError: x"), "js_exception: page threw: TypeError: x; fix the script"},
		{"service down", fmt.Errorf("%w: dial 127.0.0.1:47821: connection refused", ErrServiceDown), "service_down: the egohost service is not reachable: dial 127.0.0.1:47821: connection refused; start the service and a browser with `egohost launch` (or `egohost serve` and your browser with the extension)"},
		{"another error", errors.New("click: connection dropped"), "error: click: connection dropped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := connect(t, &fakeService{errs: map[string]error{protocol.MethodClick: tt.err}})
			got, isErr := callText(t, cs, "browser_click", map[string]any{"target": "@8"})
			if !isErr {
				t.Errorf("IsError = false, want true")
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRefIsAnAliasOfTarget(t *testing.T) {
	tests := []struct {
		name    string
		args    map[string]any
		want    string // the click's params
		wantErr string
	}{
		{"target", map[string]any{"target": "@3"}, `click {"target":"@3"}`, ""},
		{"playwright ref and element", map[string]any{"element": "Buy button", "ref": "@3"}, `click {"target":"@3"}`, ""},
		{"both the same", map[string]any{"target": "@3", "ref": "@3"}, `click {"target":"@3"}`, ""},
		{"both differ", map[string]any{"target": "@3", "ref": "@4"}, "", "invalid_params: target \"@3\" and ref \"@4\" differ: give one; fix the arguments"},
		{"neither", map[string]any{}, "", "invalid_params: no target: give a @ref from browser_snapshot or a locator; fix the arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeService{answers: map[string]any{protocol.MethodSnapshot: protocol.SnapshotResult{Text: "[no changes since the previous snapshot: 3 lines]"}}}
			cs := connect(t, f)
			got, isErr := callText(t, cs, "browser_click", tt.args)
			if tt.wantErr != "" {
				if !isErr || got != tt.wantErr {
					t.Errorf("got %q (error %t), want error %q", got, isErr, tt.wantErr)
				}
				if len(f.calls) != 0 {
					t.Errorf("calls %q, want none", f.calls)
				}
				return
			}
			if isErr || len(f.calls) == 0 || f.calls[0] != tt.want {
				t.Errorf("got %q (error %t), calls %q; want first call %q", got, isErr, f.calls, tt.want)
			}
		})
	}
}

func TestFillFormIsOneServiceCallThenOneDiff(t *testing.T) {
	checked := true
	f := &fakeService{answers: map[string]any{
		protocol.MethodFormFill: protocol.FormFillResult{Fields: []protocol.ActionResult{{Action: "fill"}, {Action: "check", Checked: &checked}}},
		protocol.MethodSnapshot: protocol.SnapshotResult{Text: "[diff against the previous snapshot: 1 added, 0 removed, 9 unchanged]"},
	}}
	cs := connect(t, f)
	got, isErr := callText(t, cs, "browser_fill_form", map[string]any{"fields": []map[string]any{
		{"name": "Email", "type": "textbox", "ref": "@1", "value": "ada@example.com"},
		{"name": "Terms", "type": "checkbox", "target": "@2", "value": "true"},
		{"name": "News", "type": "checkbox", "target": "@3", "value": "false"},
		{"name": "Country", "type": "combobox", "target": "label=Country", "value": "France"},
		{"name": "Express", "type": "radio", "target": "@5", "value": "true"},
		{"name": "Volume", "type": "slider", "target": "@6", "value": "7"},
	}})
	if isErr {
		t.Fatalf("error: %s", got)
	}
	want := []string{
		`form.fill {"fields":[{"target":"@1","action":"fill","text":"ada@example.com"},{"target":"@2","action":"check"},` +
			`{"target":"@3","action":"uncheck"},{"target":"label=Country","action":"select","values":["France"]},` +
			`{"target":"@5","action":"check"},{"target":"@6","action":"fill","text":"7"}]}`,
		`snapshot {"interactive":true,"diff":true}`,
	}
	if d := cmp.Diff(want, f.calls); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	if !strings.HasPrefix(got, "filled 6 fields (checked: true)\n[diff against") {
		t.Errorf("got %q, want the outcome line then the diff", got)
	}
}

// A field the service could not set: its error, which names the field
// and what was set before it, and no snapshot.
func TestFillFormSaysWhichFieldFailed(t *testing.T) {
	f := &fakeService{
		answers: map[string]any{},
		errs:    map[string]error{protocol.MethodFormFill: protocol.Errorf(protocol.CodeNotFound, "form.fill: field 2 (fill label=Nope): no element matches label=Nope; field 1 is set").With("field", 2).With("filled", 1)},
	}
	cs := connect(t, f)
	got, isErr := callText(t, cs, "browser_fill_form", map[string]any{"fields": []map[string]any{
		{"name": "Email", "type": "textbox", "target": "@1", "value": "a@b.c"},
		{"name": "Nope", "type": "textbox", "target": "label=Nope", "value": "x"},
	}})
	if !isErr || !strings.HasPrefix(got, "not_found: form.fill: field 2 (fill label=Nope): no element matches label=Nope; field 1 is set") {
		t.Errorf("got %q (error %t), want not_found naming field 2", got, isErr)
	}
	if len(f.calls) != 1 {
		t.Errorf("calls %q, want form.fill alone", f.calls)
	}
}

// A dialog a field opened: the fields set so far, the dialog, no snapshot
// (the page answers nothing until the dialog is answered).
func TestFillFormStopsAtADialog(t *testing.T) {
	f := &fakeService{answers: map[string]any{
		protocol.MethodFormFill: protocol.FormFillResult{Fields: []protocol.ActionResult{{Action: "fill"}, {Action: "select", Dialog: &protocol.Dialog{Type: "alert", Message: "sure?"}}}},
	}}
	cs := connect(t, f)
	got, isErr := callText(t, cs, "browser_fill_form", map[string]any{"fields": []map[string]any{
		{"name": "Email", "type": "textbox", "target": "@1", "value": "a@b.c"},
		{"name": "Country", "type": "combobox", "target": "@2", "value": "France"},
		{"name": "Terms", "type": "checkbox", "target": "@3", "value": "true"},
	}})
	if isErr || !strings.HasPrefix(got, `filled 2 of 3 fields; a alert dialog is open: "sure?"`) {
		t.Errorf("got %q (error %t), want 2 of 3 fields and the dialog", got, isErr)
	}
	if len(f.calls) != 1 {
		t.Errorf("calls %q, want form.fill alone", f.calls)
	}
}

// The MCP client's name reaches OnClient once, before the first tool's
// call to the service.
func TestOnClientNamesTheAgentFirst(t *testing.T) {
	f := &fakeService{answers: map[string]any{}}
	var names []string
	ctx := context.Background()
	opts := Options{Version: "test", OnClient: func(_ context.Context, name string) {
		f.mu.Lock()
		f.calls = append(f.calls, "OnClient "+name)
		f.mu.Unlock()
		names = append(names, name)
	}}
	cs := connectAs(t, f, opts, "Claude Code", nil)
	for range 2 {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_console_messages", Arguments: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
	}
	if len(names) != 1 || names[0] != "Claude Code" {
		t.Fatalf("OnClient got %q, want [Claude Code] once", names)
	}
	if len(f.calls) == 0 || f.calls[0] != "OnClient Claude Code" {
		t.Fatalf("calls %q: want OnClient before the first service call", f.calls)
	}
}

// The MCP server's instructions are the agent guide `egohost guide`
// prints: one text (protocol.Guide).
func TestInstructionsAreTheGuide(t *testing.T) {
	cs := connect(t, &fakeService{})
	if got := cs.InitializeResult().Instructions; got != protocol.Guide {
		t.Errorf("got instructions %q, want protocol.Guide", got)
	}
}

// browser_tabs new says when the service gave the agent its space's
// empty tab instead of a new one (tabs.open's reused).
func TestTabsNewSaysReused(t *testing.T) {
	for _, tt := range []struct {
		reused bool
		want   string
	}{{false, "opened tab 7"}, {true, "reused the space's empty tab 7"}} {
		f := &fakeService{answers: map[string]any{protocol.MethodTabsOpen: protocol.TabResult{Tab: protocol.Tab{ID: 7}, Reused: tt.reused}}}
		text, isErr := callText(t, connect(t, f), "browser_tabs", map[string]any{"action": "new"})
		if isErr || !strings.Contains(text, tt.want) {
			t.Errorf("reused %v: got %q (error %v), want %q", tt.reused, text, isErr, tt.want)
		}
	}
}

// browser_navigate is one service call: goto answers the page's snapshot
// with the navigation (interactive by default, full on request, none);
// a snapshot the service could not take is said in a line.
func TestNavigateIsOneServiceCall(t *testing.T) {
	for _, tt := range []struct {
		name, snapshot string
		answer         protocol.NavResult
		wantCall, want string
	}{
		{"interactive", "", protocol.NavResult{Tab: 3, URL: "https://a.example/", Reached: "load", Snapshot: &protocol.SnapshotResult{Text: "- button \"Go\" @1\n", URL: "https://a.example/", Title: "A", Tab: 3}},
			`goto {"url":"https://a.example/","snapshot":{"interactive":true}}`, "navigated to https://a.example/ (load in 0 ms)\npage: https://a.example/ \"A\" (tab 3)\n- button \"Go\" @1\n"},
		{"full", "full", protocol.NavResult{Tab: 3, URL: "https://a.example/", Reached: "load", Snapshot: &protocol.SnapshotResult{Text: "- heading \"A\"\n", URL: "https://a.example/", Title: "A", Tab: 3}},
			`goto {"url":"https://a.example/","snapshot":{}}`, "navigated to https://a.example/ (load in 0 ms)\npage: https://a.example/ \"A\" (tab 3)\n- heading \"A\"\n"},
		{"none", "none", protocol.NavResult{Tab: 3, URL: "https://a.example/", Reached: "load"},
			`goto {"url":"https://a.example/"}`, "navigated to https://a.example/ (load in 0 ms)"},
		{"no snapshot", "", protocol.NavResult{Tab: 3, URL: "https://a.example/", Reached: "load", SnapshotError: protocol.Errorf(protocol.CodeTimeout, "snapshot: timed out")},
			`goto {"url":"https://a.example/","snapshot":{"interactive":true}}`, "navigated to https://a.example/ (load in 0 ms)\n(no snapshot: timeout: snapshot: timed out)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeService{answers: map[string]any{protocol.MethodGoto: tt.answer}}
			cs := connect(t, f)
			args := map[string]any{"url": "https://a.example/"}
			if tt.snapshot != "" {
				args["snapshot"] = tt.snapshot
			}
			got, isErr := callText(t, cs, "browser_navigate", args)
			if isErr || got != tt.want {
				t.Errorf("got %q (error %t), want %q", got, isErr, tt.want)
			}
			if d := cmp.Diff([]string{tt.wantCall}, f.calls); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
		})
	}
}

// An action whose page closes its tab (a popup once its form is sent)
// says so, takes no snapshot of a tab that is gone, and the next call
// acts in the browser's active tab, not the closed one.
func TestAPageThatClosesItsTab(t *testing.T) {
	f := &fakeService{answers: map[string]any{
		protocol.MethodTabsList: protocol.TabsListResult{Tabs: []protocol.Tab{{ID: 9, URL: "https://a.example/popup"}}},
		protocol.MethodClick:    protocol.ActionResult{Tab: 9, Element: "<button>Save</button>", Settled: protocol.Settled{Navigated: true, Ended: "tab_not_found"}},
	}}
	cs := connect(t, f)
	if got, isErr := callText(t, cs, "browser_tabs", map[string]any{"action": "select", "index": 0}); isErr {
		t.Fatalf("browser_tabs select: %s", got)
	}
	got, isErr := callText(t, cs, "browser_click", map[string]any{"target": "#save"})
	if isErr || !strings.Contains(got, "then the page closed its tab") {
		t.Fatalf("click: got %q (error %t), want the tab's close said", got, isErr)
	}
	f.calls = nil
	callText(t, cs, "browser_click", map[string]any{"target": "#other"})
	if len(f.calls) == 0 || strings.Contains(f.calls[0], `"tab":9`) || !strings.HasPrefix(f.calls[0], protocol.MethodClick) {
		t.Errorf("the call after: got %q, want a click in the active tab (no tab 9)", f.calls)
	}
	for _, c := range f.calls {
		if strings.HasPrefix(c, protocol.MethodSnapshot) {
			t.Errorf("a snapshot was taken: %q", c)
		}
	}
}

// A click whose release landed elsewhere says so on its line: the page saw
// no click of the element.
func TestAClickWhoseReleaseLandedElsewhere(t *testing.T) {
	f := &fakeService{answers: map[string]any{
		protocol.MethodClick: protocol.ActionResult{Tab: 3, Element: "<button>Go</button>", ReleasedOn: `<div id="banner">`},
	}}
	cs := connect(t, f)
	got, isErr := callText(t, cs, "browser_click", map[string]any{"target": "#go"})
	if want := `clicked <button>Go</button>; the release landed on <div id="banner">, not on the element (it moved or was replaced after the press): the page saw a press of it and no click`; isErr || !strings.Contains(got, want) {
		t.Errorf("click: got %q (error %t), want %q", got, isErr, want)
	}
}

// A click that opened a tab names it, and a popup window (a sign-in
// window) as such.
func TestAClickSaysWhatItOpened(t *testing.T) {
	f := &fakeService{answers: map[string]any{
		protocol.MethodClick: protocol.ActionResult{Tab: 3, Element: "<button>Sign in</button>", Opened: []protocol.Tab{{ID: 8, URL: "https://id.example/", Popup: true}, {ID: 9, URL: "https://a.example/help"}}},
	}}
	cs := connect(t, f)
	got, isErr := callText(t, cs, "browser_click", map[string]any{"target": "#go"})
	for _, want := range []string{
		"; opened popup window, tab 8 on https://id.example/ (browser_tabs select acts there; this tab stays current)",
		"; opened tab 9 on https://a.example/help (browser_tabs select acts there; this tab stays current)",
	} {
		if isErr || !strings.Contains(got, want) {
			t.Errorf("click: got %q (error %t), want %q in it", got, isErr, want)
		}
	}
}
