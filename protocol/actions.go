package protocol

import (
	"fmt"
	"strings"
)

// Actions, waits, navigation, evaluation, screenshots, dialogs and
// downloads: the methods that act on a tab's page (docs/protocol-actions.md).
// Every one takes a Target (browser, tab) and answers with a result that
// says what it did, what it waited for and for how long.
const (
	MethodClick      = "click"      // ClickParams → ActionResult (dblclick, right click: Count, Button)
	MethodHover      = "hover"      // ElementParams → ActionResult
	MethodFill       = "fill"       // FillParams → ActionResult
	MethodType       = "type"       // TypeParams → ActionResult
	MethodPress      = "press"      // PressParams → ActionResult
	MethodSelect     = "select"     // SelectParams → ActionResult
	MethodCheck      = "check"      // ElementParams → ActionResult
	MethodUncheck    = "uncheck"    // ElementParams → ActionResult
	MethodDrag       = "drag"       // DragParams → ActionResult
	MethodUpload     = "upload"     // UploadParams → ActionResult
	MethodScroll     = "scroll"     // ScrollParams → ActionResult
	MethodFocus      = "focus"      // ElementParams → ActionResult
	MethodWait       = "wait"       // WaitParams → WaitResult
	MethodGoto       = "goto"       // GotoParams → NavResult
	MethodBack       = "back"       // NavParams → NavResult
	MethodForward    = "forward"    // NavParams → NavResult
	MethodReload     = "reload"     // NavParams → NavResult
	MethodEval       = "eval"       // EvalParams → EvalResult
	MethodScreenshot = "screenshot" // ScreenshotParams → ScreenshotResult
	MethodDialog     = "dialog"     // DialogParams → DialogResult
	MethodDownload   = "download"   // DownloadParams → DownloadResult
	MethodFormFill   = "form.fill"  // FormFillParams → FormFillResult
)

// ActionOptions are the options every element action takes.
type ActionOptions struct {
	// TimeoutMs bounds the auto-wait for the element to be actionable
	// (default timeouts.action, 5 s). The request's own deadline
	// (timeouts.request) bounds everything.
	TimeoutMs int `json:"timeoutMs,omitempty"`
	// Force skips the checks that are not essential: visible, stable,
	// enabled, editable, receives events.
	Force bool `json:"force,omitempty"`
	// NoSettle replies right after the action, without waiting for a
	// navigation it started or for the DOM to go quiet.
	NoSettle bool `json:"noSettle,omitempty"`
	// SettleMs caps the settle (default 2000).
	SettleMs int `json:"settleMs,omitempty"`
}

// ActionOptionsOf is the options: every params type that embeds
// ActionOptions has it, so the service runs them with one helper.
func (o ActionOptions) ActionOptionsOf() ActionOptions { return o }

// ElementParams name one element: hover, check, uncheck, focus.
type ElementParams struct {
	Target
	// Element is a @ref or a locator.
	Element string `json:"target"`
	ActionOptions
}

// ClickParams are the params of click.
type ClickParams struct {
	Target
	Element string `json:"target"`
	// Button is left (default), right or middle.
	Button string `json:"button,omitempty"`
	// Count is 1 (default), or 2 for a double click.
	Count int `json:"count,omitempty"`
	// Modifiers are held during the click: Shift, Control, Alt, Meta,
	// ControlOrMeta.
	Modifiers []string `json:"modifiers,omitempty"`
	ActionOptions
}

// FillParams are the params of fill.
type FillParams struct {
	Target
	Element string `json:"target"`
	Text    string `json:"text"`
	// Append adds Text at the end instead of replacing the content.
	Append bool `json:"append,omitempty"`
	ActionOptions
}

// TypeParams are the params of type: Text typed key by key into Element
// (focused first) or into the focused element.
type TypeParams struct {
	Target
	Element string `json:"target,omitempty"`
	Text    string `json:"text"`
	// DelayMs waits between keys.
	DelayMs int `json:"delayMs,omitempty"`
	ActionOptions
}

// PressParams are the params of press: a key or a combo ("Enter",
// "Control+a", "Shift+Tab", "ControlOrMeta+a") pressed in Element
// (focused first) or in the focused element.
type PressParams struct {
	Target
	Element string `json:"target,omitempty"`
	Key     string `json:"key"`
	ActionOptions
}

// SelectParams are the params of select. A value matches an option's
// value or label; Labels match labels only; Indexes are 0-based. None at
// all deselects every option.
type SelectParams struct {
	Target
	Element string   `json:"target"`
	Values  []string `json:"values,omitempty"`
	Labels  []string `json:"labels,omitempty"`
	Indexes []int    `json:"indexes,omitempty"`
	ActionOptions
}

// DragParams are the params of drag: Element is dragged onto To.
type DragParams struct {
	Target
	Element string `json:"target"`
	To      string `json:"to"`
	ActionOptions
}

// UploadParams are the params of upload: the files set on an <input
// type=file>, Files then Payloads, in order; none clears the input.
type UploadParams struct {
	Target
	Element string `json:"target"`
	// Files are absolute paths on the browser's machine. The owner and
	// the person may name any regular file outside the service's state
	// dir; a paired agent only one inside a folder of agents.upload_dirs
	// (else CodeForbiddenPath).
	Files []string `json:"files,omitempty"`
	// Payloads are files given by their bytes: what a paired agent
	// uploads (at most agents.upload_max_bytes in all per call).
	Payloads []FilePayload `json:"payloads,omitempty"`
	ActionOptions
}

// FilePayload is a file given by its content (upload, script.run). The
// service writes it into a private folder of its own and hands that file
// to the page, which sees Name (sanitised: no folders, no control
// characters) and the type Chrome derives from its extension.
type FilePayload struct {
	Name string `json:"name"`
	// MimeType, when Name has no extension, picks one for it.
	MimeType string `json:"mimeType,omitempty"`
	// Data is the content (base64 in JSON).
	Data []byte `json:"data"`
}

// ScrollParams are the params of scroll: without a delta, Element is
// scrolled into view; with one, the mouse wheel turns by (DX, DY) CSS
// pixels over Element, or over the viewport's centre.
type ScrollParams struct {
	Target
	Element string  `json:"target,omitempty"`
	DX      float64 `json:"dx,omitempty"`
	DY      float64 `json:"dy,omitempty"`
	ActionOptions
}

// ActionResult answers the element actions.
type ActionResult struct {
	Action string `json:"action"`
	Tab    int    `json:"tab"`
	// Element describes the element acted on: `<button id="buy">Buy</button>`.
	Element string `json:"element,omitempty"`
	// Point is where a pointer action happened (top-level viewport).
	Point  *Point  `json:"point,omitempty"`
	TookMs float64 `json:"tookMs"`
	// Waited is the auto-wait before acting.
	Waited Waited `json:"waited"`
	// Settled is the settle after acting.
	Settled Settled `json:"settled"`
	// Dialog is a JavaScript dialog the action opened; it is still open
	// (answer it with the dialog method).
	Dialog *Dialog `json:"dialog,omitempty"`
	// Value is the element's value after fill, type or press in an element.
	Value *string `json:"value,omitempty"`
	// FocusMovedTo names the element the page moved the focus to when
	// fill focused its element: the text went there, not into the element
	// (whose value is Value).
	FocusMovedTo string `json:"focusMovedTo,omitempty"`
	// ReleasedOn (click) names the element the click's release landed on
	// when its press landed on the element and its release did not: the
	// element moved between the two (a layout shift) or was replaced, and
	// the page saw a press of it and no click. The click is not made
	// again.
	ReleasedOn string `json:"releasedOn,omitempty"`
	// Selected are the selected options' values after select.
	Selected []string `json:"selected,omitempty"`
	// SelectedLabels are their labels, in the same order, when one
	// differs from its value (<option value="2">Games</option>).
	SelectedLabels []string `json:"selectedLabels,omitempty"`
	// Checked is the state after check or uncheck.
	Checked *bool `json:"checked,omitempty"`
	// Scroll is the window's scroll position after scroll.
	Scroll *Point `json:"scroll,omitempty"`
	// Opened are the tabs the action opened (a link with target=_blank,
	// window.open, a form with a target) that the caller may reach, in
	// the order Chrome made them: Tab.ID is the tab to act in next.
	Opened []Tab `json:"opened,omitempty"`
}

// TabClosed says whether the page closed its tab in answer to the action
// (Ended is tab_not_found).
func (s Settled) TabClosed() bool { return s.Ended == CodeTabNotFound.Name() }

// EndNote says, for a person or an agent, what ended the settle: "" when
// nothing did.
func (s Settled) EndNote() string {
	switch {
	case s.Ended == "":
		return ""
	case s.TabClosed():
		return "then the page closed its tab"
	}
	return "then the call ended: " + s.Ended
}

// SelectedText says which options a select left selected: their values,
// each with its label where they differ (`"Games" (2)`), which is what a
// person reads on the page.
func (r ActionResult) SelectedText() string {
	parts := make([]string, len(r.Selected))
	for i, v := range r.Selected {
		parts[i] = v
		if i < len(r.SelectedLabels) && r.SelectedLabels[i] != v {
			parts[i] = fmt.Sprintf("%q (%s)", r.SelectedLabels[i], v)
		}
	}
	return strings.Join(parts, ", ")
}

// FormFillParams are the params of form.fill: several fields set in one
// call, in order, each as its own method sets it alone (fill, check,
// uncheck, select: the same checks, the same auto-wait); only the last
// settles (the action options' settle applies to it; their timeout to
// each field).
type FormFillParams struct {
	Target
	Fields []FormField `json:"fields"`
	ActionOptions
}

// FormField is one field of form.fill.
type FormField struct {
	// Element is a @ref or a locator.
	Element string `json:"target"`
	// Action is fill (Text), check, uncheck or select (Values, by value
	// or label).
	Action string   `json:"action"`
	Text   string   `json:"text,omitempty"`
	Values []string `json:"values,omitempty"`
}

// FormFillResult says what form.fill did: one ActionResult per field set,
// in order. A dialog a field opened ends the call there (Fields are the
// fields set; the last one's Dialog is open).
type FormFillResult struct {
	Tab    int            `json:"tab"`
	Fields []ActionResult `json:"fields"`
	TookMs float64        `json:"tookMs"`
}

// Waited says how long an action waited for its element and why.
type Waited struct {
	Ms       float64 `json:"ms"`
	Attempts int     `json:"attempts"`
	// Reasons are the distinct reasons seen while waiting, e.g.
	// `element is covered by <div id="cookie-banner">`.
	Reasons []string `json:"reasons,omitempty"`
}

// Settled says how the page settled after an action.
type Settled struct {
	Ms float64 `json:"ms"`
	// For lists what was waited for: navigation, domcontentloaded, network
	// (requests the action started), dom quiet.
	For []string `json:"for,omitempty"`
	// Navigated is set when the action started a navigation of the main
	// frame; URL is where it went.
	Navigated bool   `json:"navigated,omitempty"`
	URL       string `json:"url,omitempty"`
	// Capped is set when the settle ran out of time first.
	Capped bool `json:"capped,omitempty"`
	// Ended says what ended the settle before the page settled, the
	// error code's name: tab_not_found (the page closed its tab, as a
	// popup does once its form is sent), detached, browser_gone. The
	// action itself happened.
	Ended string `json:"ended,omitempty"`
	// Skipped says why there was no settle: "off", "dialog", "no action".
	Skipped string `json:"skipped,omitempty"`
}

// Dialog is a JavaScript dialog.
type Dialog struct {
	Type          string `json:"type"` // alert, confirm, prompt, beforeunload
	Message       string `json:"message"`
	DefaultPrompt string `json:"defaultPrompt,omitempty"`
	URL           string `json:"url,omitempty"`
}

// WaitParams say what to wait for: exactly one of Element (with State),
// Text, URL, Load or Function.
type WaitParams struct {
	Target
	// Element is a @ref or a locator; State is attached, visible
	// (default), hidden or detached.
	Element string `json:"target,omitempty"`
	State   string `json:"state,omitempty"`
	// Text is text to appear in the page (case-insensitive, white space
	// normalised) or, with Gone, to disappear.
	Text string `json:"text,omitempty"`
	Gone bool   `json:"gone,omitempty"`
	// URL is the main frame's URL to wait for: exact, a glob (* within a
	// path segment, ** across) or /a regular expression/flags.
	URL string `json:"url,omitempty"`
	// Load is a load state of the current document: load,
	// domcontentloaded, networkidle.
	Load string `json:"load,omitempty"`
	// Function is a JavaScript expression or function to become truthy.
	Function  string `json:"function,omitempty"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
}

// WaitResult answers wait.
type WaitResult struct {
	Tab      int     `json:"tab"`
	What     string  `json:"what"`
	TookMs   float64 `json:"tookMs"`
	Attempts int     `json:"attempts"`
	// Value is the truthy value (function) or the URL (url, load).
	Value any `json:"value,omitempty"`
	// Element describes the element waited for, when it is there.
	Element string `json:"element,omitempty"`
}

// NavParams are the params of back, forward and reload.
type NavParams struct {
	Target
	// Until is the load state to wait for: load (default),
	// domcontentloaded, networkidle or commit.
	Until     string `json:"until,omitempty"`
	TimeoutMs int    `json:"timeoutMs,omitempty"` // default 20000
}

// GotoParams are the params of goto.
type GotoParams struct {
	Target
	URL       string `json:"url"`
	Until     string `json:"until,omitempty"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
	// Snapshot, when set, answers the new page's snapshot with the
	// navigation (NavResult.Snapshot), taken once the load state is
	// reached: one call instead of goto then snapshot.
	Snapshot *PageSnapshot `json:"snapshot,omitempty"`
}

// PageSnapshot is the snapshot a navigation answers: the snapshot
// method's options that apply to a whole new page.
type PageSnapshot struct {
	Interactive bool `json:"interactive,omitempty"`
	URLs        bool `json:"urls,omitempty"`
	MaxChars    int  `json:"maxChars,omitempty"`
}

// NavResult answers goto, back, forward and reload.
type NavResult struct {
	Tab   int    `json:"tab"`
	URL   string `json:"url"`
	Title string `json:"title"`
	// Reached is the load state reached.
	Reached      string  `json:"reached,omitempty"`
	SameDocument bool    `json:"sameDocument,omitempty"`
	Download     bool    `json:"download,omitempty"`
	TookMs       float64 `json:"tookMs"`
	// Dialog is a JavaScript dialog the page opened while loading.
	Dialog *Dialog `json:"dialog,omitempty"`
	// Snapshot is the new page's snapshot (GotoParams.Snapshot); when it
	// could not be taken, SnapshotError says why (the navigation itself
	// succeeded).
	Snapshot      *SnapshotResult `json:"snapshot,omitempty"`
	SnapshotError *Error          `json:"snapshotError,omitempty"`
}

// EvalParams are the params of eval: a JavaScript expression (or a
// function, which is called) evaluated in the page; promises are awaited.
type EvalParams struct {
	Target
	Expression string `json:"expression"`
	// Element, a @ref or a locator of one element, is passed to the
	// function the expression is: (element) => element.value.
	Element   string `json:"target,omitempty"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
}

// EvalResult answers eval.
type EvalResult struct {
	Tab int `json:"tab"`
	// Value is the value as JSON (null for undefined and for what JSON
	// cannot hold: Description then says what it was).
	Value       any     `json:"value"`
	Type        string  `json:"type"`
	Description string  `json:"description,omitempty"`
	TookMs      float64 `json:"tookMs"`
	Dialog      *Dialog `json:"dialog,omitempty"`
}

// ScreenshotParams are the params of screenshot: the viewport, the full
// page, or one element.
type ScreenshotParams struct {
	Target
	FullPage bool `json:"fullPage,omitempty"`
	// Element captures one element (a @ref or a locator).
	Element string `json:"target,omitempty"`
	// Path makes the service write the PNG to a new file instead of
	// returning it in Data: a plain file name goes into the output folder
	// (agents.output_dir), the only form a paired agent may use; the owner
	// and the person may also give an absolute path. Never inside the
	// state dir, never through a symlink, never over an existing file
	// (else CodeForbiddenPath).
	Path      string `json:"path,omitempty"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
}

// ScreenshotResult answers screenshot.
type ScreenshotResult struct {
	Tab int `json:"tab"`
	// Data is the PNG (base64 in JSON) unless Path was given.
	Data    []byte `json:"data,omitempty"`
	Path    string `json:"path,omitempty"`
	Bytes   int    `json:"bytes"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	Element string `json:"element,omitempty"`
	// FullPage is set when the image is the whole page, not the viewport.
	FullPage bool    `json:"fullPage,omitempty"`
	TookMs   float64 `json:"tookMs"`
}

// DialogParams are the params of dialog: answer the open JavaScript
// dialog, or the next one to open within TimeoutMs.
type DialogParams struct {
	Target
	Accept bool `json:"accept"`
	// PromptText is the answer to a prompt.
	PromptText string `json:"promptText,omitempty"`
	TimeoutMs  int    `json:"timeoutMs,omitempty"`
}

// DialogResult answers dialog.
type DialogResult struct {
	Tab      int     `json:"tab"`
	Accepted bool    `json:"accepted"`
	Dialog   *Dialog `json:"dialog,omitempty"`
	TookMs   float64 `json:"tookMs"`
	// Unreported is set when the dialog had opened before egohost attached:
	// Chrome never said what it was (Dialog.Type is "unknown") and lets
	// egohost only dismiss it, so Accepted is false even for accept.
	Unreported bool `json:"unreported,omitempty"`
	// TabClosed is set when the tab closed as the dialog was answered,
	// before Chrome's reply came (a beforeunload dialog that held the
	// tab's close, accepted).
	TabClosed bool `json:"tabClosed,omitempty"`
}

// DownloadParams are the params of download: wait for the next download
// of the browser to start and finish. With Click, the element is clicked
// first (after the wait has started, so a fast download is not missed).
type DownloadParams struct {
	Target
	Click     string `json:"click,omitempty"`
	TimeoutMs int    `json:"timeoutMs,omitempty"` // default 30000
}

// DownloadResult answers download: the finished download (chrome.downloads).
type DownloadResult struct {
	ID  int    `json:"id"`
	URL string `json:"url"`
	// Filename is the absolute path the browser saved the file to.
	Filename string `json:"filename"`
	Mime     string `json:"mime,omitempty"`
	Bytes    int64  `json:"bytes"`
	// State is complete, or interrupted (Error says why).
	State  string  `json:"state"`
	Error  string  `json:"error,omitempty"`
	TookMs float64 `json:"tookMs"`
}
