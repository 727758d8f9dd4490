package protocol

// Confirmations (PROTOCOL.md §3.7.2): an act of a paired agent that its
// policy (agents.confirm) names waits for the person's yes.

// The owner's confirmation methods (the CLI's `egohost confirm`).
const (
	MethodConfirmList   = "confirm.list"
	MethodConfirmAnswer = "confirm.answer"
)

// The popup's (PROTOCOL.md §2.6).
const (
	MethodPopupConfirmList   = "popup.confirm.list"
	MethodPopupConfirmAnswer = "popup.confirm.answer"
)

// MayConfirm reports whether a call of method may wait for the person:
// the methods whose acts a policy can name (the service's registry rows
// with kinds; service.TestRegistry keeps the two the same). Their
// clients wait timeouts.confirm more than a request's deadline.
func MayConfirm(method string) bool {
	switch method {
	case MethodClick, MethodPress, MethodType, MethodUpload, MethodSelect, MethodFormFill,
		MethodGoto, MethodTabsOpen, MethodSpacesNew, MethodBack, MethodForward,
		MethodDownload, MethodCookiesSet, MethodCookiesClear, MethodCDPSend:
		return true
	}
	return false
}

// NotifyConfirmWaiting is the notification an agent's connection gets
// when one of its calls waits for the person (params ConfirmWaiting):
// the CLI prints it on stderr, the MCP server sends it as progress.
const NotifyConfirmWaiting = "confirm.waiting"

// NoticeConfirm is the topic of the notice the service pushes to a
// browser whose tab an ask is about, when asks come or go: params
// ConfirmNotice.
const NoticeConfirm = "confirm"

// Confirm is one act waiting for the person's answer.
type Confirm struct {
	ID     string `json:"id"`
	Agent  string `json:"agent"`
	Method string `json:"method"`
	Kind   string `json:"kind"` // submit, purchase, upload, download, cookie_write, navigate_new_origin
	// Action is the act in words: "click button 'Place order' on shop.example".
	Action  string `json:"action"`
	Origin  string `json:"origin"`
	Browser string `json:"browser,omitempty"`
	Tab     int    `json:"tab,omitempty"`
	// Since is when it started to wait (RFC 3339); ExpiresMs how long it
	// still waits.
	Since     string `json:"since"`
	ExpiresMs int64  `json:"expiresMs"`
	// Picture is a PNG of the element with its box drawn (popup only:
	// confirm.list leaves it out unless asked).
	Picture []byte `json:"picture,omitempty"`
}

// ConfirmWaiting are the params of the confirm.waiting notification: the
// ask the call waits on (no picture).
type ConfirmWaiting struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	Action string `json:"action"`
	Origin string `json:"origin"`
	// Message is the line to show: "waiting for the person to confirm: …".
	Message string `json:"message"`
}

// ConfirmListParams are confirm.list's (and popup.confirm.list's) params.
type ConfirmListParams struct {
	Pictures bool `json:"pictures,omitempty"`
}

// ConfirmListResult answers confirm.list.
type ConfirmListResult struct {
	Pending []Confirm `json:"pending"`
}

// ConfirmAnswerParams are confirm.answer's (and popup.confirm.answer's)
// params: the ask by its id, yes or no, and for a yes whether every later
// act of its kind by that agent on that origin goes through unasked.
type ConfirmAnswerParams struct {
	ID     string `json:"id"`
	Allow  bool   `json:"allow"`
	Always bool   `json:"always,omitempty"`
}

// ConfirmAnswerResult answers confirm.answer.
type ConfirmAnswerResult struct {
	ID       string `json:"id"`
	Decision string `json:"decision"` // allowed, always, denied
}

// ConfirmNotice are the params of the confirm notice: the icon's badge
// ("1", "2", … while asks wait on this browser; "" when none) and them.
type ConfirmNotice struct {
	Badge   string    `json:"badge"`
	Pending []Confirm `json:"pending"`
}
