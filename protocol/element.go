package protocol

// Reading one element, naming it, and the page's viewport (PROTOCOL.md
// §3.1): what the MCP tools generate_locator, verify_value and
// browser_resize call.
const (
	MethodInspect  = "inspect"  // InspectParams → InspectResult
	MethodLocators = "locators" // LocatorsParams → LocatorsResult
	MethodResize   = "resize"   // ResizeParams → ResizeResult
)

// InspectParams are the params of inspect.
type InspectParams struct {
	Target
	// Element is a @ref or a locator of one element.
	Element string `json:"target"`
	// TimeoutMs is how long the element may take to appear (default
	// timeouts.action).
	TimeoutMs int `json:"timeoutMs,omitempty"`
}

// InspectResult answers inspect: the element's state now.
type InspectResult struct {
	Tab     int    `json:"tab"`
	Element string `json:"element"` // <input id="q">
	Visible bool   `json:"visible"`
	Enabled bool   `json:"enabled"`
	// Checked is a checkbox's, radio button's or switch's state.
	Checked *bool `json:"checked,omitempty"`
	// Value is what an input, a textarea, a select or a contenteditable
	// element holds; a password field's shows as dots, never the text.
	Value *string `json:"value,omitempty"`
}

// LocatorsParams are the params of locators.
type LocatorsParams struct {
	Target
	// Element is a @ref or a locator of one element.
	Element   string `json:"target"`
	TimeoutMs int    `json:"timeoutMs,omitempty"`
}

// LocatorsResult answers locators: the locators that name the element, as
// the popup's picker ranks them, each checked by the resolver.
type LocatorsResult struct {
	Tab int `json:"tab"`
	// Locator is the best one that matches the element alone (or, when
	// none does, the first that matches it among others, with nth=).
	Locator    string          `json:"locator"`
	Ref        string          `json:"ref,omitempty"`
	Role       string          `json:"role,omitempty"`
	Name       string          `json:"name,omitempty"`
	Candidates []PickCandidate `json:"candidates"`
}

// ResizeParams are the params of resize: the viewport's size in CSS
// pixels (1 to MaxViewport each); 0 and 0 give the tab its window's size
// back.
type ResizeParams struct {
	Target
	Width  int `json:"width"`
	Height int `json:"height"`
}

// MaxViewport is the largest width or height resize sets.
const MaxViewport = 8192

// ResizeResult answers resize: the viewport's size now.
type ResizeResult struct {
	Tab    int `json:"tab"`
	Width  int `json:"width"`
	Height int `json:"height"`
}
