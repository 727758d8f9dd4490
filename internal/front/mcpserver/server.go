// Package mcpserver is egohost's MCP front end: browser tools named and
// shaped like Playwright MCP's, each one a call (or a few) of the running
// service's agent API, answering in few characters (one line of outcome and
// a diff of the page after an action).
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/protocol"
)

// ErrServiceDown marks a Caller's error that means the service cannot be
// reached (not running, never started): tools answer it as service_down
// with the fix.
var ErrServiceDown = errors.New("the egohost service is not reachable")

// Caller is the service's agent API: client.Client implements it.
type Caller interface {
	Call(ctx context.Context, method string, params, result any) error
}

// Options tune a server.
type Options struct {
	// Version is reported to MCP clients.
	Version string
	// FullSnapshots makes navigation and tab tools return every element,
	// not only the interactive ones with their context.
	FullSnapshots bool
	// MaxChars caps the snapshots navigation, tab and action tools return
	// (0: no cap); the agent pages on with browser_snapshot.
	MaxChars int
	// OnClient, if set, gets the MCP client's name (its clientInfo) once,
	// when the session is initialized and before its first tool runs
	// (egohost mcp names its agent after it).
	OnClient func(ctx context.Context, name string)
	// Tools, if set, are the tools offered: tool names and group names
	// (Groups). Empty: the default groups (DefaultGroups).
	Tools []string
	// Caps are groups offered besides (Playwright MCP's --caps): testing,
	// or all.
	Caps []string
}

// New returns an MCP server whose tools call c. Each MCP session should
// get its own server: it remembers the session's current tab. It fails
// only on Options that name an unknown tool or group (Options.Check).
func New(c Caller, opts Options) (*mcp.Server, error) {
	if opts.Version == "" {
		opts.Version = "dev"
	}
	defs, err := opts.offered()
	if err != nil {
		return nil, err
	}
	t := &tools{c: c, opts: opts}
	srv := mcp.NewServer(&mcp.Implementation{Name: "egohost", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: protocol.Guide, // the text `egohost guide` prints
	})
	srv.AddReceivingMiddleware(t.identifying)
	for _, d := range defs {
		if err := d.add(t, srv, d); err != nil {
			return nil, err
		}
	}
	return srv, nil
}

// tools is one session's state: the tab it works on and the kind of its
// latest snapshot (diffs compare like with like).
type tools struct {
	c    Caller
	opts Options

	named sync.Once // OnClient was told the client's name

	mu   sync.Mutex
	tab  int  // 0: the browser's active tab
	full bool // the latest snapshot showed every element
	// dialogOpen is the JavaScript dialog a tool saw open, until answered.
	dialogOpen *protocol.Dialog
}

func (t *tools) target() protocol.Target {
	t.mu.Lock()
	defer t.mu.Unlock()
	return protocol.Target{Tab: t.tab}
}

func (t *tools) setTab(id int) {
	t.mu.Lock()
	t.tab = id
	t.mu.Unlock()
}

// forgetTab makes the browser's active tab the session's tab again when
// the session's tab was id (a page closed it).
func (t *tools) forgetTab(id int) {
	t.mu.Lock()
	if t.tab == id {
		t.tab = 0
	}
	t.mu.Unlock()
}

// call calls the service on the session's tab. When that tab is gone it
// forgets it, so the next call goes to the browser's active tab.
func (t *tools) call(ctx context.Context, method string, params, result any) error {
	err := t.c.Call(ctx, method, params, result)
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Code == protocol.CodeTabNotFound {
		t.setTab(0)
	}
	return err
}

// text is a tool result of text lines.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// failure is a tool error: one line with the stable code and what to do.
func failure(err error) *mcp.CallToolResult {
	r := text(errorLine(err))
	r.IsError = true
	return r
}

// errorLine renders an error as one line: "code_name: message; next step".
func errorLine(err error) string {
	var pe *protocol.Error
	switch {
	case errors.Is(err, ErrServiceDown):
		return "service_down: " + oneLine(err.Error()) + "; start the service and a browser with `egohost launch` (or `egohost serve` and your browser with the extension)"
	case !errors.As(err, &pe):
		return "error: " + oneLine(err.Error())
	}
	line := pe.Code.Name() + ": " + oneLine(pe.Message)
	if hint := nextStep[pe.Code]; hint != "" && !strings.Contains(line, hint) {
		line += "; " + hint
	}
	return line
}

// nextStep says what an agent should do after an error with this code.
var nextStep = map[protocol.Code]string{
	protocol.CodeStaleRef:        "call browser_snapshot for fresh refs",
	protocol.CodeUnknownRef:      "call browser_snapshot for fresh refs",
	protocol.CodeNotFound:        "check the target with browser_snapshot or browser_resolve",
	protocol.CodeAmbiguous:       "use a @ref or a more exact locator (add nth=N)",
	protocol.CodeSyntax:          "fix the locator (see docs/locators.md) or use a @ref",
	protocol.CodeNotActionable:   "wait with browser_wait_for, or act on another element",
	protocol.CodeDialogOpen:      "answer it with browser_handle_dialog",
	protocol.CodeTabNotFound:     "list tabs with browser_tabs",
	protocol.CodeNoBrowser:       "start one with `egohost launch`, or open your browser with the egohost extension",
	protocol.CodeBrowserGone:     "the browser disconnected; retry once it is back",
	protocol.CodeDetached:        "retry: the next call attaches again",
	protocol.CodeAttachFailed:    "this page cannot be automated (chrome:// or another extension's page); use browser_navigate",
	protocol.CodeAlreadyAttached: "close DevTools (or the other debugger) on this tab",
	protocol.CodeJSException:     "fix the script",
	protocol.CodeNavigation:      "check the URL",
	protocol.CodeInvalidParams:   "fix the arguments",
	protocol.CodeUserInControl:   "wait with browser_space_wait until the user hands your space back; do not retry in a loop",
	protocol.CodeNotInSpace:      "use your own tabs (browser_tabs list), or open one with browser_tabs new or browser_space_new",
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}

// snapshot takes a snapshot of the session's tab: the page after a
// navigation (diff false) or what changed since the previous one (of the
// same kind as the previous one).
func (t *tools) snapshot(ctx context.Context, diff bool) (protocol.SnapshotResult, error) {
	t.mu.Lock()
	full := t.full
	t.mu.Unlock()
	if !diff {
		full = t.opts.FullSnapshots
	}
	return t.snapshotAs(ctx, diff, full)
}

func (t *tools) snapshotAs(ctx context.Context, diff, full bool) (protocol.SnapshotResult, error) {
	var res protocol.SnapshotResult
	err := t.call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{
		Target: t.target(), Interactive: !full, Diff: diff, MaxChars: t.opts.MaxChars,
	}, &res)
	if err == nil {
		t.mu.Lock()
		t.full = full
		t.mu.Unlock()
	}
	return res, err
}

// page renders a navigation's outcome with the new page's snapshot.
func (t *tools) page(ctx context.Context, outcome string) *mcp.CallToolResult {
	return t.pageAs(ctx, outcome, t.opts.FullSnapshots)
}

// pageAs is page with every element (full) or the interactive ones.
func (t *tools) pageAs(ctx context.Context, outcome string, full bool) *mcp.CallToolResult {
	snap, err := t.snapshotAs(ctx, false, full)
	if err != nil {
		return text(outcome + "\n(no snapshot: " + errorLine(err) + ")")
	}
	return text(outcome + "\n" + pageHeader(snap) + "\n" + snap.Text)
}

func pageHeader(s protocol.SnapshotResult) string {
	return fmt.Sprintf("page: %s %q (tab %d)", s.URL, s.Title, s.Tab)
}

// changes renders an action's outcome with what changed on the page.
func (t *tools) changes(ctx context.Context, outcome string, navigated bool) *mcp.CallToolResult {
	if navigated {
		return t.page(ctx, outcome)
	}
	snap, err := t.snapshot(ctx, true)
	if err != nil {
		return text(outcome + "\n(no diff: " + errorLine(err) + ")")
	}
	return text(outcome + "\n" + snap.Text)
}

// jsonText renders a value as compact JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
