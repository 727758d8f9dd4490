package protocol

import (
	"encoding/json"
	"time"
)

// Method names (requests an agent sends).
const (
	MethodPing           = "ping"
	MethodBrowsersList   = "browsers.list"
	MethodTabsList       = "tabs.list"
	MethodTabsOpen       = "tabs.open"
	MethodTabsClose      = "tabs.close"
	MethodTabsSelect     = "tabs.select"
	MethodCDPSend        = "cdp.send"
	MethodCDPSubscribe   = "cdp.subscribe"
	MethodCDPUnsubscribe = "cdp.unsubscribe"
	MethodDebugEcho      = "debug.echo"
)

// Notification names (messages the service sends without an ID).
const (
	NotifyCDPEvent    = "cdp.event"
	NotifyTabDetached = "tab.detached"
	// NotifySubscriptionEnded says a cdp.subscribe subscription ended
	// without the agent asking (its tab is gone).
	NotifySubscriptionEnded = "cdp.subscriptionEnded"
	// NotifySubscriptionResumed says a cdp.subscribe subscription delivers
	// events again after its browser link came back.
	NotifySubscriptionResumed = "cdp.subscriptionResumed"
)

// Target names a tab. Browser may be empty when one browser is connected;
// Tab 0 means the browser's active tab.
type Target struct {
	Browser string `json:"browser,omitempty"`
	Tab     int    `json:"tab,omitempty"`
}

// TargetOf is the target: every params type that embeds a Target has it,
// so the service routes them with one helper.
func (t Target) TargetOf() Target { return t }

// Browser is one browser link (one profile with the extension): a
// connected one, or one that is reconnecting (BrowsersListResult.Reconnecting).
type Browser struct {
	ID          string    `json:"id"`
	ExtensionID string    `json:"extensionId"`
	Version     string    `json:"version"`
	UserAgent   string    `json:"userAgent"`
	ConnectedAt time.Time `json:"connectedAt"`
	RelayPID    int       `json:"relayPid"`
	// AutomationStopped: the person switched off all automation of this
	// browser in the popup; its calls fail with automation_stopped.
	AutomationStopped bool `json:"automationStopped,omitempty"`
	// DisconnectedAt and GoneMs, for a browser that is reconnecting: when
	// its link dropped, and how long ago that was.
	DisconnectedAt time.Time `json:"disconnectedAt,omitzero"`
	GoneMs         int64     `json:"goneMs,omitempty"`
}

// Tab is a browser tab.
type Tab struct {
	ID       int    `json:"id"`
	Browser  string `json:"browser"`
	WindowID int    `json:"windowId"`
	URL      string `json:"url"`
	Title    string `json:"title"`
	Active   bool   `json:"active"`
	Status   string `json:"status,omitempty"`
	Attached bool   `json:"attached"`
	Focused  bool   `json:"focused,omitempty"` // in the last focused window
	// GroupID is Chrome's tab group, if any; a popup window's tab, which
	// Chrome groups in none, has its opener's.
	GroupID int    `json:"groupId,omitempty"`
	Space   string `json:"space,omitempty"` // the egohost space the tab is in, if any
	// OpenerTabID is the tab that opened this one (a link with
	// target=_blank, window.open), while that tab exists.
	OpenerTabID int `json:"openerTabId,omitempty"`
	// Popup: the tab is a popup window's (window.open with features: a
	// sign-in or payment window).
	Popup bool `json:"popup,omitempty"`
}

// PingResult answers ping.
type PingResult struct {
	Version  string `json:"version"`
	PID      int    `json:"pid"`
	Browsers int    `json:"browsers"`
	// Tokenless counts what connections without a token did since the
	// service started (the owner's ping only).
	Tokenless *TokenlessStats `json:"tokenless,omitempty"`
	// StateDir and DataDir are the service's folders (the owner's ping
	// only): live files, and durable state.
	StateDir string `json:"stateDir,omitempty"`
	DataDir  string `json:"dataDir,omitempty"`
	// Reconnecting counts the browsers that are reconnecting.
	Reconnecting int `json:"reconnecting,omitempty"`
}

// TokenlessStats count the connections without a token: they may only
// ask to pair, and what else they send is refused and counted here,
// never written to the audit log.
type TokenlessStats struct {
	Connections int64 `json:"connections"` // connections opened without a token
	Refused     int64 `json:"refused"`     // their calls refused (anything but pair.request, or one over the caps)
	// RefusedHandshakes are handshakes refused: a wrong or revoked token,
	// a web page's Origin, a Host that is not loopback.
	RefusedHandshakes int64 `json:"refusedHandshakes"`
}

// BrowsersListResult answers browsers.list.
type BrowsersListResult struct {
	Browsers []Browser `json:"browsers"` // connected now
	// Reconnecting are the browsers whose link dropped less than
	// timeouts.reconnect ago and that are not back yet.
	Reconnecting []Browser `json:"reconnecting,omitempty"`
}

// TabsListParams are the params of tabs.list.
type TabsListParams struct {
	Browser string `json:"browser,omitempty"`
}

// TabsListResult answers tabs.list.
type TabsListResult struct {
	Tabs []Tab `json:"tabs"`
	// Reconnecting are the browsers asked for (the named one, or any when
	// none was named) that are reconnecting: their tabs are listed once
	// they are back.
	Reconnecting []Browser `json:"reconnecting,omitempty"`
}

// TabsOpenParams are the params of tabs.open.
type TabsOpenParams struct {
	Browser string `json:"browser,omitempty"`
	// URL is a URL or a bare host ("example.com" → https://, a loopback
	// host → http://); empty means about:blank.
	URL string `json:"url"`
	// Background opens the tab without activating it.
	Background bool `json:"background,omitempty"`
	// Until is the load state to wait for, as goto's: load (default),
	// domcontentloaded, networkidle or commit.
	Until string `json:"until,omitempty"`
	// NoWait returns as soon as the tab exists, without waiting for its load.
	NoWait bool `json:"noWait,omitempty"`
	// TimeoutMs bounds the wait for the load state (default: the
	// navigation timeout, as goto's).
	TimeoutMs int `json:"timeoutMs,omitempty"`
}

// TabResult answers tabs.open and tabs.select.
type TabResult struct {
	Tab Tab `json:"tab"`
	// Nav is what tabs.open's wait for the load reached (absent with noWait).
	Nav *NavResult `json:"nav,omitempty"`
	// Reused: tabs.open loaded the URL in the agent's space's empty tab
	// (about:blank, the new tab page) instead of opening another.
	Reused bool `json:"reused,omitempty"`
}

// TabParams names one tab (tabs.close, tabs.select).
type TabParams struct {
	Target
}

// CDPSendParams are the params of cdp.send.
type CDPSendParams struct {
	Target
	SessionID string          `json:"sessionId,omitempty"` // flattened child session (iframe)
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params,omitempty"`
	TimeoutMs int             `json:"timeoutMs,omitempty"`
}

// CDPSubscribeParams are the params of cdp.subscribe.
type CDPSubscribeParams struct {
	Target
	// Methods filters events by method name; empty means every event of the tab.
	Methods []string `json:"methods,omitempty"`
}

// CDPSubscribeResult answers cdp.subscribe.
type CDPSubscribeResult struct {
	Subscription string `json:"subscription"`
	Tab          int    `json:"tab"`
	Browser      string `json:"browser"`
}

// CDPUnsubscribeParams are the params of cdp.unsubscribe.
type CDPUnsubscribeParams struct {
	Subscription string `json:"subscription"`
}

// CDPEvent is the params of a cdp.event notification.
type CDPEvent struct {
	Subscription string          `json:"subscription"`
	Browser      string          `json:"browser"`
	Tab          int             `json:"tab"`
	SessionID    string          `json:"sessionId,omitempty"`
	Method       string          `json:"method"`
	Params       json.RawMessage `json:"params,omitempty"`
}

// TabDetached is the params of a tab.detached notification.
type TabDetached struct {
	Subscription string `json:"subscription"`
	Browser      string `json:"browser"`
	Tab          int    `json:"tab"`
	Reason       string `json:"reason"`
}

// SubscriptionEnded is the params of a cdp.subscriptionEnded notification:
// the subscription is gone (cdp.unsubscribe no longer knows it) and no
// event follows on it. Reason is "tab_closed" when its tab was closed (or
// was not there when its browser came back), "browser_disconnected" when
// its browser was not back within timeouts.reconnect.
type SubscriptionEnded struct {
	Subscription string `json:"subscription"`
	Browser      string `json:"browser"`
	Tab          int    `json:"tab"`
	Reason       string `json:"reason"`
	Message      string `json:"message"`
}

// SubscriptionResumed is the params of a cdp.subscriptionResumed
// notification: the subscription's browser link came back (after a relay
// restart, a stop of the extension's worker) and its events flow again.
// MissedMs is how long no event could arrive. Reattached says the tab's
// debugger session was lost and attached again, with Reenabled the
// domains the agent had enabled through cdp.send, enabled again.
type SubscriptionResumed struct {
	Subscription string   `json:"subscription"`
	Browser      string   `json:"browser"`
	Tab          int      `json:"tab"`
	MissedMs     int64    `json:"missedMs"`
	Reattached   bool     `json:"reattached,omitempty"`
	Reenabled    []string `json:"reenabled,omitempty"`
}

// DebugEchoParams are the params of debug.echo: Data goes to the extension
// and back (chunked on the way there when it is large).
type DebugEchoParams struct {
	Browser string `json:"browser,omitempty"`
	Data    string `json:"data"`
}

// DebugEchoResult answers debug.echo.
type DebugEchoResult struct {
	Length int    `json:"length"`
	SHA256 string `json:"sha256"`
}
