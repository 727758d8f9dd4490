package mcpserver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/protocol"
)

// elementArg names one element. Target is ours; Ref and Element are what
// prompts written for Playwright MCP send.
type elementArg struct {
	Target string `json:"target,omitempty" jsonschema:"@ref from a snapshot, or a locator: role=button[name=\"Save\"], text=…, label=…, CSS"`
	Ref    string `json:"ref,omitempty" jsonschema:"same as target"`
	About  string `json:"element,omitempty" jsonschema:"what the element is, for the user (not used to find it)"`
}

// target returns the element's @ref or locator.
func (e elementArg) target() (string, error) {
	switch {
	case e.Target != "" && e.Ref != "" && e.Target != e.Ref:
		return "", fmt.Errorf("target %q and ref %q differ: give one", e.Target, e.Ref)
	case e.Target != "":
		return e.Target, nil
	case e.Ref != "":
		return e.Ref, nil
	}
	return "", fmt.Errorf("no target: give a @ref from browser_snapshot or a locator")
}

// oneOf returns the one value given under several names (aliases).
func oneOf(values ...string) (string, error) {
	got := ""
	for _, v := range values {
		switch {
		case v == "" || v == got:
		case got != "":
			return "", fmt.Errorf("%q and %q differ: give one", got, v)
		default:
			got = v
		}
	}
	if got == "" {
		return "", fmt.Errorf("no target: give a @ref from browser_snapshot or a locator")
	}
	return got, nil
}

// optTarget is target for tools where the element is optional.
func (e elementArg) optTarget() (string, error) {
	if e.Target == "" && e.Ref == "" {
		return "", nil
	}
	return e.target()
}

// badArgs is the one-line error of arguments that do not fit.
func badArgs(err error) *mcp.CallToolResult {
	return failure(protocol.Errorf(protocol.CodeInvalidParams, "%v", err))
}

// The tools' arguments: the SDK infers each tool's input schema from its
// type (descriptions from the jsonschema tags; fields without omitempty
// are required). testdata/tools.golden keeps the result.

type navigateIn struct {
	URL      string `json:"url" jsonschema:"the URL to open in the current tab"`
	Snapshot string `json:"snapshot,omitempty" enum:"interactive,full,none" jsonschema:"what to return of the page: interactive elements (default), full (every element and text) or none"`
}

type noIn struct{}

type snapshotIn struct {
	Interactive *bool  `json:"interactive,omitempty" jsonschema:"only elements you can act on, with their context (default true); false: every element and text"`
	Scope       string `json:"scope,omitempty" jsonschema:"only this element's subtree: a @ref or a locator"`
	MaxChars    int    `json:"maxChars,omitempty" jsonschema:"cap on the text; a last line says how to page on"`
	Start       int    `json:"start,omitempty" jsonschema:"first line to show (paging after a cut)"`
	Diff        bool   `json:"diff,omitempty" jsonschema:"only what changed since the previous snapshot"`
	URLs        bool   `json:"urls,omitempty" jsonschema:"with interactive=false: write each link's URL (url=), left out by default"`
}

type clickIn struct {
	elementArg
	DoubleClick bool     `json:"doubleClick,omitempty" jsonschema:"double click"`
	Button      string   `json:"button,omitempty" enum:"left,right,middle" jsonschema:"mouse button (default left)"`
	Modifiers   []string `json:"modifiers,omitempty" enum:"Alt,Control,ControlOrMeta,Meta,Shift" jsonschema:"keys held while clicking"`
}

type typeIn struct {
	elementArg
	Text   string `json:"text" jsonschema:"text to put in the field (replaces its content)"`
	Submit bool   `json:"submit,omitempty" jsonschema:"press Enter after"`
	Slowly bool   `json:"slowly,omitempty" jsonschema:"type key by key (for pages that react to each key)"`
}

type formField struct {
	Target string `json:"target,omitempty" jsonschema:"@ref or locator of the field"`
	Ref    string `json:"ref,omitempty" jsonschema:"same as target"`
	Name   string `json:"name,omitempty" jsonschema:"the field's name, for the user"`
	Type   string `json:"type" enum:"textbox,checkbox,radio,combobox,slider" jsonschema:"the kind of field"`
	Value  string `json:"value" jsonschema:"text; true or false for checkbox and radio; the option's label for combobox"`
}

type fillFormIn struct {
	Fields []formField `json:"fields" jsonschema:"fields to fill, in order"`
}

type selectIn struct {
	elementArg
	Values []string `json:"values" jsonschema:"options to select, by value or label"`
}

type pressIn struct {
	Key    string `json:"key" jsonschema:"a key or combo: Enter, ArrowLeft, a, Control+a, Shift+Tab"`
	Target string `json:"target,omitempty" jsonschema:"element to press it in (default: the focused one)"`
}

type dragIn struct {
	Target       string `json:"target,omitempty" jsonschema:"element to drag: @ref or locator"`
	To           string `json:"to,omitempty" jsonschema:"element to drop it on: @ref or locator"`
	StartTarget  string `json:"startTarget,omitempty" jsonschema:"same as target"`
	EndTarget    string `json:"endTarget,omitempty" jsonschema:"same as to"`
	StartRef     string `json:"startRef,omitempty" jsonschema:"same as target"`
	EndRef       string `json:"endRef,omitempty" jsonschema:"same as to"`
	StartElement string `json:"startElement,omitempty" jsonschema:"what is dragged, for the user"`
	EndElement   string `json:"endElement,omitempty" jsonschema:"where it is dropped, for the user"`
}

type uploadIn struct {
	elementArg
	Paths []string     `json:"paths,omitempty" jsonschema:"absolute paths of files inside the folders the user allowed (agents.upload_dirs); none at all clears the input"`
	Files []inlineFile `json:"files,omitempty" jsonschema:"files given by their content (what you have yourself): sent after paths"`
}

// inlineFile is a file an upload gives by its content.
type inlineFile struct {
	Name     string `json:"name" jsonschema:"the file's name, as the page sees it"`
	Content  string `json:"content,omitempty" jsonschema:"the file's bytes, base64"`
	Text     string `json:"text,omitempty" jsonschema:"or the file's text (UTF-8)"`
	MimeType string `json:"mimeType,omitempty" jsonschema:"its type, used for the extension when the name has none"`
}

type dialogIn struct {
	Accept     bool   `json:"accept" jsonschema:"accept (true) or dismiss (false)"`
	PromptText string `json:"promptText,omitempty" jsonschema:"the answer to a prompt"`
}

type tabsIn struct {
	Action string `json:"action" enum:"list,new,select,close" jsonschema:"what to do"`
	Index  *int   `json:"index,omitempty" jsonschema:"tab index from the list, for select and close (close: default the current tab)"`
	URL    string `json:"url,omitempty" jsonschema:"URL for new"`
}

type waitIn struct {
	Text     string  `json:"text,omitempty" jsonschema:"text to appear"`
	TextGone string  `json:"textGone,omitempty" jsonschema:"text to disappear"`
	Time     float64 `json:"time,omitempty" jsonschema:"seconds to wait (at most 30)"`
	Target   string  `json:"target,omitempty" jsonschema:"element to wait for: @ref or locator"`
	State    string  `json:"state,omitempty" enum:"visible,hidden,attached,detached" jsonschema:"with target: the state to wait for (default visible)"`
	URL      string  `json:"url,omitempty" jsonschema:"URL to reach: exact, glob (**/done) or /regexp/"`
	Timeout  float64 `json:"timeout,omitempty" jsonschema:"seconds before giving up (default 5)"`
}

type evaluateIn struct {
	elementArg
	Function string `json:"function" jsonschema:"JavaScript expression or () => { … } run in the page, or with a target (element) => { … } called with that element; promises are awaited"`
}

type runScriptIn struct {
	Script    string `json:"script" jsonschema:"Playwright-style JavaScript run in egohost's sandbox against the current tab (await page.getByLabel('Email').fill('a@b.c'); console.log(await page.title())); returns what it logs and its last expression; help() lists the API"`
	TimeoutMs int    `json:"timeoutMs,omitempty" jsonschema:"bound on the whole script in ms (default 30000)"`
}

type screenshotIn struct {
	elementArg
	FullPage bool   `json:"fullPage,omitempty" jsonschema:"the whole scrollable page"`
	Filename string `json:"filename,omitempty" jsonschema:"a file name (no folders): save the PNG as a new file in egohost's output folder (agents.output_dir) instead of returning it"`
	Type     string `json:"type,omitempty" enum:"png" jsonschema:"image format (png, the only one)"`
}

type consoleIn struct {
	Level      string `json:"level,omitempty" enum:"error,warning,info,debug" jsonschema:"that level and worse (default info)"`
	OnlyErrors bool   `json:"onlyErrors,omitempty" jsonschema:"same as level error"`
	Clear      bool   `json:"clear,omitempty" jsonschema:"forget them after reading"`
}

type networkIn struct {
	Static        bool `json:"static,omitempty" jsonschema:"also images, fonts, scripts, style sheets, media"`
	IncludeStatic bool `json:"includeStatic,omitempty" jsonschema:"same as static"`
	Clear         bool `json:"clear,omitempty" jsonschema:"forget them after reading"`
}

type resolveIn struct {
	elementArg
}

type cookiesIn struct {
	Action   string  `json:"action,omitempty" enum:"get,set,clear" jsonschema:"what to do (default get)"`
	Name     string  `json:"name,omitempty" jsonschema:"cookie name (get, clear: only this one; set: required)"`
	Value    string  `json:"value,omitempty" jsonschema:"set: the value"`
	Domain   string  `json:"domain,omitempty" jsonschema:"set: domain (default the page's host)"`
	Path     string  `json:"path,omitempty" jsonschema:"set: path"`
	Expires  float64 `json:"expires,omitempty" jsonschema:"set: expiry, seconds since the epoch (default: a session cookie)"`
	HTTPOnly bool    `json:"httpOnly,omitempty" jsonschema:"set: hidden from the page's scripts"`
	Secure   bool    `json:"secure,omitempty" jsonschema:"set: sent over https only"`
	SameSite string  `json:"sameSite,omitempty" enum:"Strict,Lax,None" jsonschema:"set: when it goes with cross-site requests"`
}

// identifying is a middleware that tells Options.OnClient the MCP
// client's name, once, as soon as a message carries it: the legacy
// initialize (clientInfo, in the session from then on), or any request of
// the stateless protocol (clientInfo in its _meta: server/discover first);
// before a tool's body runs in any case.
func (t *tools) identifying(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		t.identify(ctx, req)
		res, err := next(ctx, method, req)
		t.identify(ctx, req) // initialize: the session knows the client now
		return res, err
	}
}

func (t *tools) identify(ctx context.Context, req mcp.Request) {
	r, ok := req.(interface{ ClientInfo() *mcp.Implementation })
	if t.opts.OnClient == nil || !ok {
		return
	}
	info := r.ClientInfo()
	if info == nil || info.Name == "" {
		return
	}
	t.named.Do(func() { t.opts.OnClient(ctx, info.Name) })
}

func (t *tools) navigate(ctx context.Context, in navigateIn) *mcp.CallToolResult {
	switch in.Snapshot {
	case "", "interactive", "full", "none":
	default:
		return badArgs(fmt.Errorf("snapshot %q is not interactive, full or none", in.Snapshot))
	}
	full := in.Snapshot == "full" || (in.Snapshot == "" && t.opts.FullSnapshots)
	p := protocol.GotoParams{Target: t.target(), URL: in.URL}
	if in.Snapshot != "none" {
		// The page's snapshot comes with the navigation: one service call.
		p.Snapshot = &protocol.PageSnapshot{Interactive: !full, MaxChars: t.opts.MaxChars}
	}
	var r protocol.NavResult
	if err := t.call(ctx, protocol.MethodGoto, p, &r); err != nil {
		return failure(err)
	}
	t.setTab(r.Tab)
	outcome := navOutcome("navigated to "+r.URL, r)
	if r.Dialog != nil {
		t.sawDialog(r.Dialog)
		return text(outcome)
	}
	if in.Snapshot == "none" {
		return text(outcome)
	}
	return t.navPage(outcome, r, full)
}

// navPage renders a navigation's outcome with the snapshot it answered
// (GotoParams.Snapshot).
func (t *tools) navPage(outcome string, r protocol.NavResult, full bool) *mcp.CallToolResult {
	switch {
	case r.SnapshotError != nil:
		return text(outcome + "\n(no snapshot: " + errorLine(r.SnapshotError) + ")")
	case r.Snapshot == nil:
		return text(outcome + "\n(no snapshot: the service answered none)")
	}
	t.mu.Lock()
	t.full = full
	t.mu.Unlock()
	return text(outcome + "\n" + pageHeader(*r.Snapshot) + "\n" + r.Snapshot.Text)
}

func navOutcome(what string, r protocol.NavResult) string {
	s := fmt.Sprintf("%s (%s in %.0f ms)", what, r.Reached, r.TookMs)
	if r.Dialog != nil {
		s += "; " + dialogLine(r.Dialog)
	}
	return s
}

// sawDialog remembers the dialog an action opened, so browser_handle_dialog
// can name what it answered.
func (t *tools) sawDialog(d *protocol.Dialog) {
	t.mu.Lock()
	t.dialogOpen = d
	t.mu.Unlock()
}

func dialogLine(d *protocol.Dialog) string {
	return fmt.Sprintf("a %s dialog is open: %q (answer it with browser_handle_dialog)", d.Type, d.Message)
}

func (t *tools) snapshotTool(ctx context.Context, in snapshotIn) *mcp.CallToolResult {
	full := in.Interactive != nil && !*in.Interactive
	var res protocol.SnapshotResult
	err := t.call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{
		Target: t.target(), Interactive: !full, Scope: in.Scope, MaxChars: in.MaxChars, Start: in.Start, Diff: in.Diff, URLs: in.URLs,
	}, &res)
	if err != nil {
		return failure(err)
	}
	if in.Scope == "" && in.Start == 0 {
		t.mu.Lock()
		t.full = full
		t.mu.Unlock()
	}
	return text(pageHeader(res) + "\n" + res.Text)
}

// acted renders an element action's result.
func (t *tools) acted(ctx context.Context, verb string, r protocol.ActionResult) *mcp.CallToolResult {
	line := verb
	if r.Element != "" {
		line += " " + r.Element
	}
	switch {
	case r.Checked != nil:
		line += fmt.Sprintf(" (checked: %t)", *r.Checked)
	case r.Selected != nil:
		line += fmt.Sprintf(" (selected: %s)", r.SelectedText())
	}
	if r.FocusMovedTo != "" {
		line += "; the page moved the focus to " + r.FocusMovedTo + ": the text went there"
	}
	if r.ReleasedOn != "" {
		line += "; the release landed on " + r.ReleasedOn + ", not on the element (it moved or was replaced after the press): the page saw a press of it and no click"
	}
	if r.Settled.Navigated {
		line += "; navigated to " + r.Settled.URL
	}
	for _, o := range r.Opened {
		kind := "tab"
		if o.Popup {
			kind = "popup window, tab"
		}
		line += fmt.Sprintf("; opened %s %d on %s (browser_tabs select acts there; this tab stays current)", kind, o.ID, o.URL)
	}
	if r.Dialog != nil {
		t.sawDialog(r.Dialog)
		line += "; " + dialogLine(r.Dialog)
		return text(line) // the page is blocked: a snapshot would fail
	}
	switch n := r.Settled.EndNote(); {
	case r.Settled.TabClosed():
		t.forgetTab(r.Tab)
		return text(line + "; " + n + ": the next call acts in the browser's active tab (browser_tabs list shows the tabs left)") // nothing to snapshot
	case n != "":
		return text(line + "; " + n)
	}
	return t.changes(ctx, line, r.Settled.Navigated)
}

// act calls the element action method with params and renders its
// result (verb says what was done: "clicked").
func (t *tools) act(ctx context.Context, verb, method string, params any) *mcp.CallToolResult {
	var r protocol.ActionResult
	if err := t.call(ctx, method, params, &r); err != nil {
		return failure(err)
	}
	return t.acted(ctx, verb, r)
}

func (t *tools) click(ctx context.Context, in clickIn) *mcp.CallToolResult {
	target, err := in.target()
	if err != nil {
		return badArgs(err)
	}
	p := protocol.ClickParams{Target: t.target(), Element: target, Button: in.Button, Modifiers: in.Modifiers}
	verb := "clicked"
	if in.DoubleClick {
		p.Count, verb = 2, "double-clicked"
	}
	return t.act(ctx, verb, protocol.MethodClick, p)
}

func (t *tools) typeText(ctx context.Context, in typeIn) *mcp.CallToolResult {
	target, err := in.target()
	if err != nil {
		return badArgs(err)
	}
	var r protocol.ActionResult
	if in.Slowly {
		err = t.call(ctx, protocol.MethodType, protocol.TypeParams{Target: t.target(), Element: target, Text: in.Text, ActionOptions: protocol.ActionOptions{NoSettle: in.Submit}}, &r)
	} else {
		err = t.call(ctx, protocol.MethodFill, protocol.FillParams{Target: t.target(), Element: target, Text: in.Text, ActionOptions: protocol.ActionOptions{NoSettle: in.Submit}}, &r)
	}
	if err != nil {
		return failure(err)
	}
	verb := "filled"
	if in.Submit {
		if err := t.call(ctx, protocol.MethodPress, protocol.PressParams{Target: t.target(), Element: target, Key: "Enter"}, &r); err != nil {
			return failure(err)
		}
		verb = "filled and submitted"
	}
	return t.acted(ctx, verb, r)
}

func (t *tools) fillForm(ctx context.Context, in fillFormIn) *mcp.CallToolResult {
	if len(in.Fields) == 0 {
		return badArgs(fmt.Errorf("no fields"))
	}
	// One service call sets every field (form.fill): each as its own
	// method would, in order; only the last settles.
	p := protocol.FormFillParams{Target: t.target(), Fields: make([]protocol.FormField, len(in.Fields))}
	for i, f := range in.Fields {
		target, err := elementArg{Target: f.Target, Ref: f.Ref}.target()
		if err != nil {
			return badArgs(fmt.Errorf("field %d (%s): %w", i+1, f.Name, err))
		}
		field := protocol.FormField{Element: target}
		switch f.Type {
		case "textbox", "slider":
			field.Action, field.Text = "fill", f.Value
		case "checkbox", "radio":
			switch f.Value {
			case "true":
				field.Action = "check"
			case "false":
				field.Action = "uncheck"
			default:
				return badArgs(fmt.Errorf("field %d (%s): a %s's value is true or false, not %q", i+1, f.Name, f.Type, f.Value))
			}
		case "combobox":
			field.Action, field.Values = "select", []string{f.Value}
		default:
			return badArgs(fmt.Errorf("field %d (%s): type %q is not textbox, checkbox, radio, combobox or slider", i+1, f.Name, f.Type))
		}
		p.Fields[i] = field
	}
	var r protocol.FormFillResult
	if err := t.call(ctx, protocol.MethodFormFill, p, &r); err != nil {
		return failure(err)
	}
	if len(r.Fields) == 0 {
		return failure(fmt.Errorf("form.fill answered no field"))
	}
	last := r.Fields[len(r.Fields)-1]
	if last.Dialog != nil {
		t.sawDialog(last.Dialog)
		return text(fmt.Sprintf("filled %d of %d fields; %s", len(r.Fields), len(in.Fields), dialogLine(last.Dialog)))
	}
	last.Element = ""
	return t.acted(ctx, fmt.Sprintf("filled %d fields", len(in.Fields)), last)
}

func (t *tools) selectOption(ctx context.Context, in selectIn) *mcp.CallToolResult {
	target, err := in.target()
	if err != nil {
		return badArgs(err)
	}
	return t.act(ctx, "selected in", protocol.MethodSelect, protocol.SelectParams{Target: t.target(), Element: target, Values: in.Values})
}

func (t *tools) press(ctx context.Context, in pressIn) *mcp.CallToolResult {
	return t.act(ctx, "pressed "+in.Key+" in", protocol.MethodPress, protocol.PressParams{Target: t.target(), Element: in.Target, Key: in.Key})
}

func (t *tools) hover(ctx context.Context, in elementArg) *mcp.CallToolResult {
	target, err := in.target()
	if err != nil {
		return badArgs(err)
	}
	return t.act(ctx, "hovered", protocol.MethodHover, protocol.ElementParams{Target: t.target(), Element: target})
}

func (t *tools) drag(ctx context.Context, in dragIn) *mcp.CallToolResult {
	from, err := oneOf(in.Target, in.StartTarget, in.StartRef)
	if err != nil {
		return badArgs(fmt.Errorf("what to drag: %w", err))
	}
	to, err := oneOf(in.To, in.EndTarget, in.EndRef)
	if err != nil {
		return badArgs(fmt.Errorf("where to drop: %w", err))
	}
	return t.act(ctx, "dragged", protocol.MethodDrag, protocol.DragParams{Target: t.target(), Element: from, To: to})
}

func (t *tools) upload(ctx context.Context, in uploadIn) *mcp.CallToolResult {
	target, err := in.optTarget()
	if err != nil {
		return badArgs(err)
	}
	if target == "" {
		target = "css=input[type=file]"
	}
	// Paths go to the service as they are: its rules for this agent decide
	// (this process never reads a file for the model).
	p := protocol.UploadParams{Target: t.target(), Element: target, Files: in.Paths}
	for i, f := range in.Files {
		data := []byte(f.Text)
		if f.Content != "" {
			if f.Text != "" {
				return badArgs(fmt.Errorf("files[%d] (%s): give content or text, not both", i, f.Name))
			}
			var err error
			if data, err = base64.StdEncoding.DecodeString(f.Content); err != nil {
				return badArgs(fmt.Errorf("files[%d] (%s): content is not base64: %v", i, f.Name, err))
			}
		}
		p.Payloads = append(p.Payloads, protocol.FilePayload{Name: f.Name, MimeType: f.MimeType, Data: data})
	}
	return t.act(ctx, fmt.Sprintf("set %d file(s) on", len(p.Files)+len(p.Payloads)), protocol.MethodUpload, p)
}

func (t *tools) dialog(ctx context.Context, in dialogIn) *mcp.CallToolResult {
	var r protocol.DialogResult
	if err := t.call(ctx, protocol.MethodDialog, protocol.DialogParams{Target: t.target(), Accept: in.Accept, PromptText: in.PromptText}, &r); err != nil {
		return failure(err)
	}
	verb := "dismissed"
	if r.Accepted {
		verb = "accepted"
	}
	line := verb + " the dialog"
	t.mu.Lock()
	if r.Dialog == nil {
		r.Dialog = t.dialogOpen
	}
	t.dialogOpen = nil
	t.mu.Unlock()
	if r.Dialog != nil {
		line = fmt.Sprintf("%s the %s dialog %q", verb, r.Dialog.Type, r.Dialog.Message)
	}
	if r.TabClosed {
		t.forgetTab(r.Tab)
		return text(line + "; the tab closed: the next call acts in the browser's active tab (browser_tabs list shows the tabs left)")
	}
	return t.changes(ctx, line, false)
}

// tabList lists the browser's tabs; the session's tab (or the active one)
// is marked current.
func (t *tools) tabList(ctx context.Context) ([]protocol.Tab, int, error) {
	var r protocol.TabsListResult
	if err := t.call(ctx, protocol.MethodTabsList, protocol.TabsListParams{}, &r); err != nil {
		return nil, 0, err
	}
	cur := t.target().Tab
	if cur == 0 {
		for _, tab := range r.Tabs {
			if tab.Active && (tab.Focused || cur == 0) {
				cur = tab.ID
			}
		}
	}
	return r.Tabs, cur, nil
}

func renderTabs(tabs []protocol.Tab, cur int) string {
	lines := make([]string, len(tabs))
	for i, tab := range tabs {
		lines[i] = tabLine(i, tab, cur)
	}
	return strings.Join(lines, "\n")
}

// tabLine is a tab as browser_tabs list and browser_spaces show it: its
// index in the list (what browser_tabs select takes), title, URL and ID.
func tabLine(i int, tab protocol.Tab, cur int) string {
	s := fmt.Sprintf("%d: %q %s [tab %d]", i, tab.Title, tab.URL, tab.ID)
	if tab.ID == cur {
		s += " (current)"
	}
	return s
}

func (t *tools) tabs(ctx context.Context, in tabsIn) *mcp.CallToolResult {
	// pick is the tab of the list at in.Index.
	pick := func() (protocol.Tab, error) {
		tabs, _, err := t.tabList(ctx)
		if err != nil {
			return protocol.Tab{}, err
		}
		if in.Index == nil || *in.Index < 0 || *in.Index >= len(tabs) {
			return protocol.Tab{}, protocol.Errorf(protocol.CodeInvalidParams, "index must be 0 to %d (see browser_tabs list)", len(tabs)-1)
		}
		return tabs[*in.Index], nil
	}
	switch in.Action {
	case "list":
		tabs, cur, err := t.tabList(ctx)
		if err != nil {
			return failure(err)
		}
		return text(renderTabs(tabs, cur))
	case "new":
		var r protocol.TabResult
		if err := t.call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{}, &r); err != nil {
			return failure(err)
		}
		t.setTab(r.Tab.ID)
		outcome := fmt.Sprintf("opened tab %d", r.Tab.ID)
		if r.Reused { // the agent's space had an empty tab: no new one
			outcome = fmt.Sprintf("reused the space's empty tab %d", r.Tab.ID)
		}
		if in.URL != "" && in.URL != "about:blank" {
			// goto waits for the load of the document it navigated to
			// (tabs.open returns once the tab exists).
			var nav protocol.NavResult
			if err := t.call(ctx, protocol.MethodGoto, protocol.GotoParams{Target: t.target(), URL: in.URL}, &nav); err != nil {
				return failure(err)
			}
			outcome = navOutcome(outcome+" at "+nav.URL, nav)
		}
		return t.page(ctx, outcome)
	case "select":
		tab, err := pick()
		if err != nil {
			return failure(err)
		}
		if err := t.call(ctx, protocol.MethodTabsSelect, protocol.TabParams{Target: protocol.Target{Tab: tab.ID}}, nil); err != nil {
			return failure(err)
		}
		t.setTab(tab.ID)
		return t.page(ctx, fmt.Sprintf("selected tab %d", tab.ID))
	case "close":
		target := t.target()
		if in.Index != nil {
			tab, err := pick()
			if err != nil {
				return failure(err)
			}
			target = protocol.Target{Tab: tab.ID}
		}
		var r struct {
			Tab int `json:"tab"`
		}
		if err := t.call(ctx, protocol.MethodTabsClose, protocol.TabParams{Target: target}, &r); err != nil {
			return failure(err)
		}
		if t.target().Tab == r.Tab {
			t.setTab(0)
		}
		tabs, cur, err := t.tabList(ctx)
		if err != nil {
			return failure(err)
		}
		return text(fmt.Sprintf("closed tab %d\n%s", r.Tab, renderTabs(tabs, cur)))
	}
	return badArgs(fmt.Errorf("action %q is not list, new, select or close", in.Action))
}

func (t *tools) waitFor(ctx context.Context, in waitIn) *mcp.CallToolResult {
	if in.Text == "" && in.TextGone == "" && in.Time <= 0 && in.Target == "" && in.URL == "" {
		return badArgs(fmt.Errorf("give text, textGone, time, target or url"))
	}
	if in.Time > 0 {
		d := time.Duration(min(in.Time, 30) * float64(time.Second))
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return failure(ctx.Err())
		}
	}
	timeout := int(in.Timeout * 1000)
	var done []string
	if in.Time > 0 {
		done = append(done, fmt.Sprintf("%gs", min(in.Time, 30)))
	}
	steps := []struct {
		p    protocol.WaitParams
		what string
	}{
		{protocol.WaitParams{Text: in.TextGone, Gone: true}, fmt.Sprintf("%q to go", in.TextGone)},
		{protocol.WaitParams{Text: in.Text}, fmt.Sprintf("%q", in.Text)},
		{protocol.WaitParams{Element: in.Target, State: in.State}, in.Target + " " + cmpOr(in.State, "visible")},
		{protocol.WaitParams{URL: in.URL}, "URL " + in.URL},
	}
	for _, s := range steps {
		if s.p.Text == "" && s.p.Element == "" && s.p.URL == "" {
			continue
		}
		s.p.Target, s.p.TimeoutMs = t.target(), timeout
		var r protocol.WaitResult
		if err := t.call(ctx, protocol.MethodWait, s.p, &r); err != nil {
			return failure(err)
		}
		done = append(done, s.what)
	}
	return t.changes(ctx, "waited for "+strings.Join(done, ", "), in.URL != "")
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (t *tools) evaluate(ctx context.Context, in evaluateIn) *mcp.CallToolResult {
	target, err := in.optTarget()
	if err != nil {
		return badArgs(err)
	}
	var r protocol.EvalResult
	if err := t.call(ctx, protocol.MethodEval, protocol.EvalParams{Target: t.target(), Expression: in.Function, Element: target}, &r); err != nil {
		return failure(err)
	}
	out := jsonText(r.Value)
	if r.Description != "" && r.Value == nil {
		out = r.Description
	}
	if r.Dialog != nil {
		t.sawDialog(r.Dialog)
		out += "\n" + dialogLine(r.Dialog)
	}
	return text(out)
}

// runScript runs script.run on the current tab: its log, its value and
// its screenshots come back; a failing script's error line is followed by
// what it logged before it failed.
func (t *tools) runScript(ctx context.Context, in runScriptIn) *mcp.CallToolResult {
	if strings.TrimSpace(in.Script) == "" {
		return badArgs(fmt.Errorf("script is empty"))
	}
	var r protocol.ScriptRunResult
	err := t.call(ctx, protocol.MethodScriptRun, protocol.ScriptRunParams{Target: t.target(), Script: in.Script, TimeoutMs: in.TimeoutMs}, &r)
	if err != nil {
		res := failure(err)
		var pe *protocol.Error
		if errors.As(err, &pe) {
			if out, _ := pe.Data["output"].(string); out != "" {
				res.Content = append(res.Content, &mcp.TextContent{Text: "logged before it failed:\n" + strings.TrimRight(out, "\n")})
			}
		}
		return res
	}
	out := strings.TrimRight(r.Output, "\n")
	if len(r.Value) > 0 {
		if out != "" {
			out += "\n"
		}
		out += "=> " + string(r.Value)
	}
	if out == "" {
		out = fmt.Sprintf("done (%d calls, %.0f ms, nothing logged)", r.Calls, r.TookMs)
	}
	content := []mcp.Content{&mcp.TextContent{Text: out}}
	for _, shot := range r.Screenshots {
		content = append(content, &mcp.ImageContent{MIMEType: "image/png", Data: shot.Data})
	}
	return &mcp.CallToolResult{Content: content}
}

func (t *tools) screenshot(ctx context.Context, in screenshotIn) *mcp.CallToolResult {
	target, err := in.optTarget()
	if err != nil {
		return badArgs(err)
	}
	if in.Type != "" && in.Type != "png" {
		return badArgs(fmt.Errorf("type %q: only png is supported", in.Type))
	}
	if in.Filename != "" && (strings.ContainsAny(in.Filename, `/\`) || in.Filename == "." || in.Filename == "..") {
		return badArgs(fmt.Errorf("filename %q: give a file name without folders; the PNG is saved as a new file in egohost's output folder (agents.output_dir)", in.Filename))
	}
	var r protocol.ScreenshotResult
	if err := t.call(ctx, protocol.MethodScreenshot, protocol.ScreenshotParams{Target: t.target(), FullPage: in.FullPage, Element: target, Path: in.Filename}, &r); err != nil {
		return failure(err)
	}
	line := fmt.Sprintf("screenshot %dx%d, %d bytes", r.Width, r.Height, r.Bytes)
	if r.Path != "" {
		return text(line + " saved to " + r.Path)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: line},
		&mcp.ImageContent{MIMEType: "image/png", Data: r.Data},
	}}
}

func (t *tools) console(ctx context.Context, in consoleIn) *mcp.CallToolResult {
	level := cmpOr(in.Level, "info")
	if in.OnlyErrors {
		level = "error"
	}
	var r protocol.ConsoleListResult
	if err := t.call(ctx, protocol.MethodConsoleList, protocol.ConsoleListParams{Target: t.target(), Level: level, Clear: in.Clear}, &r); err != nil {
		return failure(err)
	}
	var b strings.Builder
	b.WriteString(recordHeader(len(r.Messages), "console messages", r.Tab, r.Dropped))
	for _, m := range r.Messages {
		fmt.Fprintf(&b, "\n[%s] %s", m.Level, m.Text)
		if m.URL != "" {
			fmt.Fprintf(&b, " (%s:%d)", m.URL, m.Line)
		}
	}
	return text(b.String())
}

func (t *tools) network(ctx context.Context, in networkIn) *mcp.CallToolResult {
	var r protocol.NetworkListResult
	if err := t.call(ctx, protocol.MethodNetworkList, protocol.NetworkListParams{Target: t.target(), Static: in.Static || in.IncludeStatic, Clear: in.Clear}, &r); err != nil {
		return failure(err)
	}
	var b strings.Builder
	b.WriteString(recordHeader(len(r.Requests), "requests", r.Tab, r.Dropped))
	for _, q := range r.Requests {
		fmt.Fprintf(&b, "\n%s", requestLine(q))
	}
	return text(b.String())
}

// recordHeader is the first line of what browser_console_messages and
// browser_network_requests show: how many of what, the tab, and how many
// older ones the service dropped.
func recordHeader(n int, what string, tab, dropped int) string {
	s := fmt.Sprintf("%d %s (tab %d)", n, what, tab)
	if dropped > 0 {
		s += fmt.Sprintf("; %d older ones were dropped", dropped)
	}
	return s
}

// requestLine renders a request as "#3 [GET] url => [200] OK": #3 is
// what browser_network_request takes.
func requestLine(q protocol.NetworkRequest) string {
	s := fmt.Sprintf("#%d [%s] %s", q.ID, q.Method, q.URL)
	switch {
	case q.Failed != "":
		s += " => failed: " + q.Failed
	case q.Status != 0:
		s += fmt.Sprintf(" => [%d] %s", q.Status, q.StatusText)
	default:
		s += " => pending"
	}
	return s
}

func (t *tools) resolve(ctx context.Context, in resolveIn) *mcp.CallToolResult {
	target, err := in.target()
	if err != nil {
		return badArgs(err)
	}
	var r protocol.ResolveResult
	if err := t.call(ctx, protocol.MethodResolve, protocol.ResolveParams{Target: t.target(), Element: target}, &r); err != nil {
		return failure(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s matches %d element(s)", target, r.Count)
	for i, m := range r.Matches {
		fmt.Fprintf(&b, "\n%d: %s %q", i+1, m.Role, m.Name)
		if m.Box == nil {
			b.WriteString(" (not rendered)")
		} else {
			fmt.Fprintf(&b, " at (%.0f, %.0f) %.0fx%.0f", m.Box.X, m.Box.Y, m.Box.Width, m.Box.Height)
		}
	}
	return text(b.String())
}

func (t *tools) cookies(ctx context.Context, in cookiesIn) *mcp.CallToolResult {
	var r protocol.CookiesResult
	switch cmpOr(in.Action, "get") {
	case "get":
		if err := t.call(ctx, protocol.MethodCookiesGet, protocol.CookiesGetParams{Target: t.target(), Name: in.Name}, &r); err != nil {
			return failure(err)
		}
	case "set":
		p := protocol.CookiesSetParams{Target: t.target(), Name: in.Name, Value: in.Value, Domain: in.Domain, Path: in.Path,
			Expires: in.Expires, HTTPOnly: in.HTTPOnly, Secure: in.Secure, SameSite: in.SameSite}
		if err := t.call(ctx, protocol.MethodCookiesSet, p, &r); err != nil {
			return failure(err)
		}
	case "clear":
		var c protocol.CookiesClearResult
		if err := t.call(ctx, protocol.MethodCookiesClear, protocol.CookiesClearParams{Target: t.target(), Name: in.Name}, &c); err != nil {
			return failure(err)
		}
		return text(fmt.Sprintf("deleted %d cookie(s) of %s", c.Deleted, c.URL))
	default:
		return badArgs(fmt.Errorf("action %q is not get, set or clear", in.Action))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d cookie(s) of %s", len(r.Cookies), r.URL)
	for _, c := range r.Cookies {
		fmt.Fprintf(&b, "\n%s=%s (domain %s, path %s", c.Name, c.Value, c.Domain, c.Path)
		if c.HTTPOnly {
			b.WriteString(", httpOnly")
		}
		if c.Secure {
			b.WriteString(", secure")
		}
		if c.SameSite != "" {
			b.WriteString(", sameSite " + c.SameSite)
		}
		b.WriteString(")")
	}
	return text(b.String())
}
