package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool groups: what --caps adds and --tools may name. Every tool is in
// one; the agent is offered the default groups unless told otherwise
// (fewer tools, fewer tokens in every prompt).
const (
	GroupCore    = "core"    // navigation, snapshots, actions, waits, scripts, console, network
	GroupTabs    = "tabs"    // browser_tabs
	GroupSpaces  = "spaces"  // the agent's side of its spaces: wait for the person, complete
	GroupStorage = "storage" // cookies, localStorage and sessionStorage
	GroupTesting = "testing" // verify_* and generate_locator, as Playwright MCP's testing caps
)

// Groups are the tool groups, in the order the tools are listed.
func Groups() []string {
	return []string{GroupCore, GroupTabs, GroupSpaces, GroupStorage, GroupTesting}
}

// DefaultGroups are the groups offered when Options names none.
func DefaultGroups() []string {
	return []string{GroupCore, GroupTabs, GroupSpaces, GroupStorage}
}

// hints are a tool's MCP annotations: what calling it does to the
// browser, for clients that ask before a tool with consequences.
type hints struct {
	readOnly    bool // changes nothing
	destructive bool // may undo or lose something (submit a form, close a tab, delete a cookie)
	idempotent  bool // calling it again with the same arguments changes nothing more
	openWorld   bool // reaches web pages (their content is a stranger's)
}

var (
	// reads the page: snapshots, lists, waits, verifications.
	reads = hints{readOnly: true, idempotent: true, openWorld: true}
	// acts on the page: anything may follow (a click buys, a key submits).
	acts = hints{destructive: true, openWorld: true}
	// sets a state: doing it again leaves the same state (fill, select).
	sets = hints{destructive: true, idempotent: true, openWorld: true}
)

// toolDef is one tool of the catalog.
type toolDef struct {
	name, title, desc, group string
	hints                    hints
	// add registers the tool on srv for the session t.
	add func(t *tools, srv *mcp.Server, d toolDef) error
}

// tool defines a tool whose arguments are an In. body is its method on
// the session's tools, as a method expression ((*tools).navigate): it
// returns the tool's result, already rendered (errors too).
func tool[In any](group, name, title, desc string, h hints, body func(t *tools, ctx context.Context, in In) *mcp.CallToolResult) toolDef {
	return toolDef{name: name, title: title, desc: desc, group: group, hints: h,
		add: func(t *tools, srv *mcp.Server, d toolDef) error {
			ts, err := schemasFor[In]()
			if err != nil {
				return fmt.Errorf("tool %s: %w", d.name, err)
			}
			// The SDK's raw AddTool: the arguments are checked here, so that
			// a bad one gets the one-line invalid_params every error has.
			srv.AddTool(d.mcpTool(ts), func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var args json.RawMessage
				if req != nil && req.Params != nil {
					args = req.Params.Arguments
				}
				if err := ts.check(args); err != nil {
					return badArgs(err), nil
				}
				var in In
				if len(args) > 0 && string(args) != "null" {
					if err := json.Unmarshal(args, &in); err != nil {
						return badArgs(fmt.Errorf("arguments: %w", err)), nil
					}
				}
				return body(t, withWaiting(ctx, req), in), nil
			})
			return nil
		}}
}

// mcpTool is the tool as MCP lists it.
func (d toolDef) mcpTool(ts toolSchemas) *mcp.Tool {
	h := d.hints
	return &mcp.Tool{
		Name: d.name, Title: d.title, Description: d.desc, InputSchema: ts.offered,
		Annotations: &mcp.ToolAnnotations{
			Title:           d.title,
			ReadOnlyHint:    h.readOnly,
			DestructiveHint: &h.destructive,
			IdempotentHint:  h.idempotent,
			OpenWorldHint:   &h.openWorld,
		},
	}
}

// offered returns the tools o selects: o.Tools (names and groups) when
// set, else the default groups, plus the groups of o.Caps ("all": every
// group). An unknown name is an error naming the known ones.
func (o Options) offered() ([]toolDef, error) {
	all := catalog()
	groups := Groups()
	want := map[string]bool{}
	pick := func(flag string, names []string, toolsToo bool) error {
		for _, n := range names {
			n = strings.TrimSpace(n)
			switch {
			case n == "":
			case n == "all":
				for _, g := range groups {
					want[g] = true
				}
			case slices.Contains(groups, n):
				want[n] = true
			case toolsToo && slices.ContainsFunc(all, func(d toolDef) bool { return d.name == n }):
				want[n] = true
			case toolsToo:
				return fmt.Errorf("%s: %q is neither a tool nor a group (groups: all, %s; tools: see docs/mcp.md)", flag, n, strings.Join(groups, ", "))
			default:
				return fmt.Errorf("%s: %q is not a group: want all or %s", flag, n, strings.Join(groups, ", "))
			}
		}
		return nil
	}
	if len(o.Tools) == 0 {
		_ = pick("", DefaultGroups(), false)
	} else if err := pick("--tools", o.Tools, true); err != nil {
		return nil, err
	}
	if err := pick("--caps", o.Caps, false); err != nil {
		return nil, err
	}
	var out []toolDef
	for _, d := range all {
		if want[d.group] || want[d.name] {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--tools: no tool selected")
	}
	return out, nil
}

// Check reports whether o's Caps and Tools name known groups and tools.
func (o Options) Check() error {
	_, err := o.offered()
	return err
}

// catalog is every tool, in the order they are listed: Playwright MCP's
// names and arguments where it has the tool (prompts written for it work
// here), and egohost's own besides.
func catalog() []toolDef {
	return []toolDef{
		tool(GroupCore, "browser_navigate", "Navigate to a URL", "Open a URL in the current tab; returns the page's snapshot (interactive elements by default).", acts, (*tools).navigate),
		tool(GroupCore, "browser_navigate_back", "Go back", "Go back in the current tab's history; returns the page's snapshot.", acts, (*tools).back),
		tool(GroupCore, "browser_navigate_forward", "Go forward", "Go forward in the current tab's history; returns the page's snapshot.", acts, (*tools).forward),
		tool(GroupCore, "browser_reload", "Reload the page", "Reload the current tab; returns the page's snapshot.", acts, (*tools).reload),
		tool(GroupCore, "browser_snapshot", "Page snapshot", "The current page as an accessibility tree with @refs (interactive elements only unless interactive=false).", reads, (*tools).snapshotTool),
		tool(GroupCore, "browser_click", "Click", "Click an element; returns what changed.", acts, (*tools).click),
		tool(GroupCore, "browser_type", "Type text", "Fill a text field (optionally key by key, then Enter); returns what changed.", acts, (*tools).typeText),
		tool(GroupCore, "browser_fill_form", "Fill form", "Fill several fields in one call; returns what changed.", sets, (*tools).fillForm),
		tool(GroupCore, "browser_select_option", "Select option", "Select options in a <select>, or one entry of a combobox, listbox or menu button by its name (opened and clicked as a person does); returns what changed.", sets, (*tools).selectOption),
		tool(GroupCore, "browser_press_key", "Press a key", "Press a key or combo; returns what changed.", acts, (*tools).press),
		tool(GroupCore, "browser_hover", "Hover mouse", "Move the mouse over an element; returns what changed.", hints{idempotent: true, openWorld: true}, (*tools).hover),
		tool(GroupCore, "browser_drag", "Drag mouse", "Drag an element onto another; returns what changed.", acts, (*tools).drag),
		tool(GroupCore, "browser_file_upload", "Upload files", "Set the files of a file input (default: the page's only input[type=file]): files you give by their content, or paths inside the folders the user allowed.", sets, (*tools).upload),
		tool(GroupCore, "browser_handle_dialog", "Handle a dialog", "Accept or dismiss the open (or next) JavaScript dialog.", acts, (*tools).dialog),
		tool(GroupCore, "browser_wait_for", "Wait for", "Wait for text to appear or go, an element state, a URL, or some seconds.", reads, (*tools).waitFor),
		tool(GroupCore, "browser_evaluate", "Evaluate JavaScript", "Run JavaScript in the page (with target: a function of that element) and return its JSON value.", acts, (*tools).evaluate),
		tool(GroupCore, "browser_run_script", "Run a script", "Run a whole task as one script in egohost's sandbox (Playwright-shaped page API, no file or network access): fewer calls and tokens than one tool per step.", acts, (*tools).runScript),
		// With a filename it writes a new file (never over one): not
		// read-only, not destructive.
		tool(GroupCore, "browser_take_screenshot", "Take a screenshot", "PNG of the viewport, the full page or one element.", hints{openWorld: true}, (*tools).screenshot),
		tool(GroupCore, "browser_console_messages", "Get console messages", "Console messages and uncaught errors of the current tab, oldest first.", reads, (*tools).console),
		tool(GroupCore, "browser_network_requests", "List network requests", "Requests of the current tab, oldest first, numbered for browser_network_request (static resources left out by default).", reads, (*tools).network),
		tool(GroupCore, "browser_network_request", "Show network request details", "One request's headers and bodies, by its number in browser_network_requests.", reads, (*tools).networkRequest),
		tool(GroupCore, "browser_resolve", "Resolve a locator", "What a locator or @ref matches: the count and each element.", reads, (*tools).resolve),
		tool(GroupCore, "browser_resize", "Resize the viewport", "Set the current tab's viewport size in CSS pixels (0 × 0: back to its window's).", hints{idempotent: true}, (*tools).resize),
		tool(GroupCore, "browser_close", "Close the page", "Close the current tab (to finish the whole task, browser_space_complete).", hints{destructive: true}, (*tools).closePage),

		tool(GroupTabs, "browser_tabs", "Manage tabs", "List, open, select or close tabs; new and select return the page's snapshot.", acts, (*tools).tabs),

		tool(GroupSpaces, "browser_spaces", "List your spaces", "Your spaces (the tab groups your tabs live in), who is in control of each, and their tabs.", hints{readOnly: true, idempotent: true}, (*tools).spacesList),
		tool(GroupSpaces, "browser_space_new", "Start a space", "Start a new task in a space of its own (a tab group the user sees titled with the task); returns its first page.", hints{openWorld: true}, (*tools).spaceNew),
		tool(GroupSpaces, "browser_space_wait", "Wait for the user", "After user_in_control: wait until the user hands your space back; returns the page as they left it.", reads, (*tools).spaceWait),
		tool(GroupSpaces, "browser_space_complete", "Complete the task", "End your space when the task is done: its tabs are closed, or with keep left to the user.", hints{destructive: true}, (*tools).spaceComplete),

		tool(GroupStorage, "browser_cookies", "Cookies", "The current page's cookies. set and clear change the user's real browser profile.", acts, (*tools).cookies),
		tool(GroupStorage, "browser_storage", "Read web storage", "The current page's localStorage or sessionStorage items.", reads, (*tools).storage),

		tool(GroupTesting, "browser_generate_locator", "Create locator for element", "Locators for an element, best first, each checked to match it alone.", reads, (*tools).generateLocator),
		tool(GroupTesting, "browser_verify_element_visible", "Verify element visible", "Check that an element with this role and accessible name is visible (waits up to 5 s).", reads, (*tools).verifyElement),
		tool(GroupTesting, "browser_verify_text_visible", "Verify text visible", "Check that this text is visible on the page (waits up to 5 s).", reads, (*tools).verifyText),
		tool(GroupTesting, "browser_verify_value", "Verify value", "Check a field's value, or a checkbox's or radio button's state.", reads, (*tools).verifyValue),
	}
}
