// Package protocol is the agents' wire contract: JSON-RPC 2.0 messages over
// a WebSocket, the method names, and the error codes (append-only; see
// PROTOCOL.md). Both the service and its clients import it.
package protocol

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// Version is the JSON-RPC version string.
const Version = "2.0"

// Path is the HTTP path of the agents' WebSocket endpoint.
const Path = "/rpc"

// StateFile is the name of the file (in the state dir) where a running
// service says where it listens (PROTOCOL.md §3): a ServiceState.
const StateFile = "service.json"

// ServiceState is the content of StateFile: where agents connect, the
// service's process, its relay socket and its version.
type ServiceState struct {
	Addr    string `json:"addr"`
	PID     int    `json:"pid"`
	Socket  string `json:"socket"`
	Version string `json:"version"`
}

// HelloPath is where a client makes the service prove it holds the token
// before the client sends it: GET /hello?c=<64 hex characters of random
// challenge> answers {"service": "egohost", "version", "proof"}, proof
// being Proof(token, challenge). A process that took the port while the
// service was down cannot answer, and never sees the token.
const HelloPath = "/hello"

// Proof is the service's answer to a hello challenge: hex HMAC-SHA256 of
// "egohost-service-proof:" + challenge, keyed with the token.
func Proof(token, challenge string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("egohost-service-proof:" + challenge))
	return hex.EncodeToString(m.Sum(nil))
}

// Request is a JSON-RPC request, or a notification when ID is empty.
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// Response is a JSON-RPC response.
type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Message is anything the service sends an agent: a Response (ID set) or a
// notification (Method set).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Code is a JSON-RPC error code. Ours are stable and append-only.
type Code int

// JSON-RPC's own codes.
const (
	CodeParseError     Code = -32700
	CodeInvalidRequest Code = -32600
	CodeMethodNotFound Code = -32601
	CodeInvalidParams  Code = -32602
	CodeInternal       Code = -32603
)

// egohost's codes. Never renumber; only append.
const (
	CodeUnauthorized     Code = 1000 // missing or wrong bearer token (HTTP 401)
	CodeNoBrowser        Code = 1001 // no browser is connected (extension not running, relay down)
	CodeTabNotFound      Code = 1002 // no such tab, or the tab was closed
	CodeCDP              Code = 1003 // Chrome answered the CDP command with an error; data.cdpCode/cdpMessage
	CodeTimeout          Code = 1004 // the request's deadline passed; data.cause has the last cause if any
	CodeAlreadyAttached  Code = 1005 // another debugger (DevTools, another extension) holds the tab
	CodeDetached         Code = 1006 // the debugger was detached (tab closed, user pressed Cancel); data.reason
	CodeBrowserGone      Code = 1007 // the browser link dropped while the request was in flight
	CodeTooLarge         Code = 1008 // a message exceeded a size cap
	CodeAmbiguousBrowser Code = 1009 // several browsers are connected and none was named
	CodeAttachFailed     Code = 1010 // chrome.debugger.attach failed (e.g. a chrome:// page)
	CodeExtension        Code = 1011 // the extension reported another error; data.extensionCode
	CodeForbiddenOrigin  Code = 1012 // the request carried a browser Origin header (HTTP 403)
	CodeForbiddenHost    Code = 1013 // the Host header is not a loopback address (HTTP 403)
	CodeBadFrame         Code = 1014 // a malformed or oversized frame on the browser leg
	CodeNotFound         Code = 1100 // no element matches (transient: may appear later)
	CodeAmbiguous        Code = 1101 // several elements match a single-element target; data.count
	CodeStaleRef         Code = 1102 // the ref's document navigated away, or its removed element cannot be found for certain; take a new snapshot
	CodeUnknownRef       Code = 1103 // no such ref in the tab's snapshot
	CodeSyntax           Code = 1104 // the locator does not parse; data.offset
	CodeNotActionable    Code = 1105 // the element is not visible/stable/enabled/editable or is covered; data.reason
	CodeJSException      Code = 1106 // the page threw while evaluating; data.exception
	CodeNavigation       Code = 1107 // navigation failed (net error, aborted)
	CodeUnsupported      Code = 1108 // the operation is not possible on this target
	CodeDialogOpen       Code = 1109 // a JavaScript dialog blocks the page; data.dialog (answer it with the dialog method)
	CodeDownloadFailed   Code = 1110 // the download was interrupted; data.download
	CodeBusy             Code = 1111 // the connection's in-flight cap stayed full for a whole request deadline; data.limit
	CodeForeignRef       Code = 1112 // the target is another tool's ref (@e12, e12, ref=e5); refs here are @N
	// A browser the service knows (seen within timeouts.reconnect) is
	// reconnecting and did not come back within the call's timeout; data.browser.
	CodeBrowserReconnecting Code = 1015
	CodeScript              Code = 1120 // a script threw or does not compile; data.line, data.column, data.output
	CodeScriptLimit         Code = 1121 // a script hit the memory, call-depth or screenshot guard; data.output
	CodeNotInSpace          Code = 1130 // the tab (or the ref's tab) is not in the calling agent's spaces; data.tab, data.claim
	CodeUserInControl       Code = 1131 // the person took the space over: stop, and wait (spaces.waitForControl); data.space
	// Pairing, scopes and origin rules (PROTOCOL.md §3.7).
	CodeScopeDenied          Code = 1140 // the agent's scopes do not grant the method; data.need, data.scope
	CodeForbiddenOriginScope Code = 1141 // the tab's origin is denied to this agent by its origin rules; data.origin, data.rule
	CodePairingDenied        Code = 1142 // the person denied the pairing request, or nobody answered in time; data.reason
	CodeRevoked              Code = 1143 // the agent's token was revoked (HTTP 401, or the live connection is cut)
	CodePairingBusy          Code = 1144 // too many pairing requests wait or came lately, or one for the name already waits
	CodeForbiddenPath        Code = 1145 // a file the call names may not be read or written (the state dir, outside agents.upload_dirs, a symlink, an existing file); data.path, data.reason
	CodeDeniedByPerson       Code = 1146 // the person said no to the act (agents.confirm): do not retry it; ask the person. data.kind, data.action
	CodeConfirmTimeout       Code = 1147 // nobody answered the act's confirmation in time: nothing was done. data.kind, data.action
	// The person switched off all automation of this browser in the
	// popup (Stop all automation); nothing reaches its tabs until they
	// switch it back on. data.browser.
	CodeAutomationStopped Code = 1150
)

// The CLI's own codes, in its --json errors; never on the wire.
const (
	CodeUsage        Code = 1200 // a mistake in the command line (exit code 2)
	CodeServiceLost  Code = 1201 // the service stopped while the command waited for its answer (exit code 3)
	CodeServiceDown  Code = 1202 // no service answers, or it has never run for this user
	CodeLaunchFailed Code = 1203 // the browser exited or never connected; data.reason
	CodeFailed       Code = 1204 // any other failure on the CLI's side
)

// Name returns the stable short name of a code.
func (c Code) Name() string {
	switch c {
	case CodeParseError:
		return "parse_error"
	case CodeInvalidRequest:
		return "invalid_request"
	case CodeMethodNotFound:
		return "method_not_found"
	case CodeInvalidParams:
		return "invalid_params"
	case CodeInternal:
		return "internal"
	case CodeUnauthorized:
		return "unauthorized"
	case CodeNoBrowser:
		return "no_browser"
	case CodeTabNotFound:
		return "tab_not_found"
	case CodeCDP:
		return "cdp_error"
	case CodeTimeout:
		return "timeout"
	case CodeAlreadyAttached:
		return "already_attached"
	case CodeDetached:
		return "detached"
	case CodeBrowserGone:
		return "browser_gone"
	case CodeTooLarge:
		return "too_large"
	case CodeAmbiguousBrowser:
		return "ambiguous_browser"
	case CodeAttachFailed:
		return "attach_failed"
	case CodeExtension:
		return "extension_error"
	case CodeForbiddenOrigin:
		return "forbidden_origin"
	case CodeForbiddenHost:
		return "forbidden_host"
	case CodeBadFrame:
		return "bad_frame"
	case CodeNotFound:
		return "not_found"
	case CodeAmbiguous:
		return "ambiguous"
	case CodeStaleRef:
		return "stale_ref"
	case CodeUnknownRef:
		return "unknown_ref"
	case CodeSyntax:
		return "syntax_error"
	case CodeNotActionable:
		return "not_actionable"
	case CodeJSException:
		return "js_exception"
	case CodeNavigation:
		return "navigation_failed"
	case CodeUnsupported:
		return "unsupported"
	case CodeDialogOpen:
		return "dialog_open"
	case CodeDownloadFailed:
		return "download_failed"
	case CodeBusy:
		return "busy"
	case CodeForeignRef:
		return "foreign_ref"
	case CodeBrowserReconnecting:
		return "browser_reconnecting"
	case CodeScript:
		return "script_error"
	case CodeScriptLimit:
		return "script_limit"
	case CodeAutomationStopped:
		return "automation_stopped"
	case CodeNotInSpace:
		return "not_in_space"
	case CodeUserInControl:
		return "user_in_control"
	case CodeScopeDenied:
		return "scope_denied"
	case CodeForbiddenOriginScope:
		return "forbidden_origin_scope"
	case CodePairingDenied:
		return "pairing_denied"
	case CodeRevoked:
		return "revoked"
	case CodePairingBusy:
		return "pairing_busy"
	case CodeForbiddenPath:
		return "forbidden_path"
	case CodeDeniedByPerson:
		return "denied_by_person"
	case CodeConfirmTimeout:
		return "confirm_timeout"
	case CodeUsage:
		return "usage"
	case CodeServiceLost:
		return "service_lost"
	case CodeServiceDown:
		return "service_down"
	case CodeLaunchFailed:
		return "launch_failed"
	case CodeFailed:
		return "failed"
	}
	return fmt.Sprintf("code_%d", int(c))
}

// Error is a JSON-RPC error object. Data always has "name" (Code.Name) and,
// for resolution errors, "kind": "transient" or "permanent".
type Error struct {
	Code    Code           `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

// Errorf returns an *Error with code c and a formatted message.
func Errorf(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Message: fmt.Sprintf(format, args...), Data: map[string]any{"name": c.Name()}}
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s (%s %d)", e.Message, e.Code.Name(), int(e.Code))
}

// AsError gives the wire form of any error: the *Error it wraps, timeout
// for a context deadline, else internal.
func AsError(err error) *Error {
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return Errorf(CodeTimeout, "%v", err)
	}
	return Errorf(CodeInternal, "%v", err)
}

// With returns e with one more data field.
func (e *Error) With(key string, value any) *Error {
	if e.Data == nil {
		e.Data = map[string]any{"name": e.Code.Name()}
	}
	e.Data[key] = value
	return e
}

// Permanent reports whether retrying the same request cannot succeed
// because the tab, its debugger or its browser is gone. Waiting helpers
// (the resolver's Wait) stop at once on such errors instead of polling a
// closed tab until their timeout.
func (e *Error) Permanent() bool {
	switch e.Code {
	case CodeNoBrowser, CodeTabNotFound, CodeDetached, CodeBrowserGone, CodeAttachFailed, CodeAlreadyAttached, CodeTooLarge:
		return true
	}
	return false
}

// CodeOf returns the code of err when it is an *Error, else CodeInternal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}
