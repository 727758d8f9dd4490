package service

import (
	"context"
	"time"

	"github.com/egohost/egohost/internal/server/actwire"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/protocol"
)

// method is one row of the registry: everything the service knows of an
// agents' method (PROTOCOL.md §3), in one place. Adding a method is one
// row here and its handler; TestRegistry checks the rows against
// PROTOCOL.md's method tables, the MCP tools and the CLI verbs.
type method struct {
	name string
	// need is what the caller must hold (pairing.Need; 0 is none declared:
	// the method is refused to everyone, even the owner). raise may ask
	// more of a call given its params.
	need  pairing.Need
	raise func(in rpcparams.Params) pairing.Need
	// audited: the audit log gets its calls though it reaches no tab
	// (calls that need read, act or cdp always get a line).
	audited bool
	// timeout is the call's deadline.
	timeout timeoutClass
	// dialogs: the method answers a JavaScript dialog, so a tab a dialog
	// blocks is where it works (the others fail at once with dialog_open).
	dialogs bool
	// kinds: the kinds of act a call of the method can be, which a paired
	// agent's confirmation policy (agents.confirm, confirmmethods.go) may make
	// wait for the person; its deadline then has timeouts.confirm more.
	kinds []confirm.Kind
	// noPopup, noScript: why the popup channel (PROTOCOL.md §2.6) or a
	// script's calls (§3.5) do not carry the method; "" when they do.
	noPopup, noScript string
	// noMCP, noCLI: why no MCP tool (mcpserver) or CLI verb (cmd/egohost)
	// calls the method; "" when one does (TestRegistry checks both ways).
	noMCP, noCLI string

	handler
}

// methodHandler runs one method for its caller X: the agents' methods
// run for a *call (handler), the popup channel's own for the *link whose
// extension asked (popupHandler). Only typed makes one, so the params of
// every method are decoded by rpcparams.Strict and by nothing else: a new
// method cannot forget to refuse unknown fields or a wrong JSON type.
type methodHandler[X any] struct {
	run func(ctx context.Context, x X, in rpcparams.Params) (any, error)
}

// handler runs one agents' method (a row of the registry).
type handler = methodHandler[*call]

// typed makes the handler of a method whose params are a P (a struct;
// rpcparams.None for methods that take none).
func typed[X, P any](fn func(ctx context.Context, x X, p P) (any, error)) methodHandler[X] {
	return methodHandler[X]{run: rpcparams.Strict(fn)}
}

// bound makes the handler of a method whose package of its own runs it
// (a handler family outside the service): as gives the caller (a *call,
// a *link) as the interface that package declares of it, so the compiler
// checks that the caller has what it asks.
func bound[X, C, P any](as func(X) C, fn func(ctx context.Context, c C, p P) (any, error)) methodHandler[X] {
	return typed(func(ctx context.Context, x X, p P) (any, error) { return fn(ctx, as(x), p) })
}

// timeoutClass is a method's deadline.
type timeoutClass int

const (
	// timeoutRequest: timeouts.request.
	timeoutRequest timeoutClass = iota
	// timeoutScript: a script has its own clock (timeouts.script, at most
	// timeouts.script_max); each of its calls gets the request deadline.
	timeoutScript
	// timeoutPairing: the person's answer to a pairing request, within
	// its waitMs.
	timeoutPairing
)

// deadline is how long a call of the method may take; mayAsk: its
// caller's policy names a kind of it (confirmKinds), so it may wait for
// the person (the owner's calls, and a policy that names none, keep the
// request's deadline: a hang ends no later for a method having kinds).
func (m method) deadline(o Options, mayAsk bool) time.Duration {
	if mayAsk && m.timeout == timeoutRequest {
		return o.RequestTimeout + confirmWait(o)
	}
	switch m.timeout {
	case timeoutRequest:
	case timeoutScript:
		return max(o.RequestTimeout, o.ScriptMax+5*time.Second)
	case timeoutPairing:
		return max(o.RequestTimeout, pairing.MaxWait+5*time.Second)
	}
	return o.RequestTimeout
}

// needFor is what a call of the method with its params requires.
func (m method) needFor(in rpcparams.Params) pairing.Need {
	if m.raise != nil {
		return max(m.need, m.raise(in))
	}
	return m.need
}

// Why the front ends do not reach a method.
const (
	notifications = "its notifications need an agent connection to arrive on"
	ownerCLI      = "the person's: the CLI's agents and audit commands, the popup"
	rawCDP        = "raw CDP is the CLI's and the client library's, not a tool's"
	noTool        = "no MCP tool: agents over MCP have the tools that act on their own spaces' tabs"
	onlyMCP       = "an MCP tool only: the CLI reads the page with snapshot and resolve"
	formTool      = "browser_fill_form checks and unchecks, with the form's other fields (form.fill)"
)

// registry is every agents' method (New builds it once).
func (s *Service) registry() []method {
	return []method{
		{name: protocol.MethodPing, need: pairing.NeedNone, noMCP: noTool, handler: bound(s.tabCall, s.tabMethods().Ping)},
		{name: protocol.MethodBrowsersList, need: pairing.NeedNone, noMCP: "browser_tabs lists the tabs; a tool names no browser", handler: bound(s.tabCall, s.tabMethods().Browsers)},
		{name: protocol.MethodTabsList, need: pairing.NeedNone, handler: bound(s.tabCall, s.tabMethods().Tabs)},
		{name: protocol.MethodTabsOpen, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.NavigateNewOrigin}, handler: bound(s.tabCall, s.tabMethods().Open)},
		{name: protocol.MethodTabsClose, need: pairing.NeedAct, handler: bound(s.tabCall, s.tabMethods().Close)},
		{name: protocol.MethodTabsSelect, need: pairing.NeedAct, handler: bound(s.tabCall, s.tabMethods().Select)},
		{name: protocol.MethodCDPSend, need: pairing.NeedCDP, kinds: []confirm.Kind{confirm.CookieWrite, confirm.NavigateNewOrigin}, noMCP: rawCDP, handler: bound(cdpCallOf, s.cdpMethods().Send)},
		{name: protocol.MethodCDPSubscribe, need: pairing.NeedCDP, noPopup: notifications, noMCP: rawCDP, handler: bound(cdpCallOf, s.cdpMethods().Subscribe)},
		{name: protocol.MethodCDPUnsubscribe, need: pairing.NeedNone, noPopup: notifications, noMCP: rawCDP, noCLI: "the CLI's subscription ends with its connection", handler: bound(cdpCallOf, s.cdpMethods().Unsubscribe)},
		// For tests: it crosses native messaging with up to 16 MiB.
		{name: protocol.MethodDebugEcho, need: pairing.NeedOwner, audited: true, noMCP: "for tests", noCLI: "for tests", handler: bound(s.tabCall, s.tabMethods().Echo)},

		{name: protocol.MethodSnapshot, need: pairing.NeedRead, handler: typed(s.snapshot)},
		{name: protocol.MethodResolve, need: pairing.NeedRead, handler: typed(s.resolve)},
		{name: protocol.MethodScreenshot, need: pairing.NeedRead, raise: writesFile("path"), handler: bound(pageCallOf, s.pageMethods().Screenshot)},
		{name: protocol.MethodConsoleList, need: pairing.NeedRead, handler: bound(s.dataCall, s.tabData().ConsoleList)},
		{name: protocol.MethodNetworkList, need: pairing.NeedRead, handler: bound(s.dataCall, s.tabData().NetworkList)},
		{name: protocol.MethodWait, need: pairing.NeedRead, raise: waitNeed, handler: bound(pageCallOf, s.pageMethods().Wait)},
		// A script's calls are checked one by one, as the agent's own.
		{name: protocol.MethodScriptRun, need: pairing.NeedRead, raise: writesFile("files"), timeout: timeoutScript, noScript: "a script does not start scripts", handler: typed(s.scriptRun)},

		{name: protocol.MethodClick, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.Submit, confirm.Purchase, confirm.NavigateNewOrigin}, handler: pageAct(s, protocol.MethodClick, actwire.Click)},
		{name: protocol.MethodHover, need: pairing.NeedAct, handler: pageAct(s, protocol.MethodHover, actwire.Hover)},
		{name: protocol.MethodCheck, need: pairing.NeedAct, noMCP: formTool, handler: pageAct(s, protocol.MethodCheck, actwire.Check)},
		{name: protocol.MethodUncheck, need: pairing.NeedAct, noMCP: formTool, handler: pageAct(s, protocol.MethodUncheck, actwire.Uncheck)},
		{name: protocol.MethodFocus, need: pairing.NeedAct, noMCP: "click and type focus what they act on", handler: pageAct(s, protocol.MethodFocus, actwire.Focus)},
		{name: protocol.MethodFill, need: pairing.NeedAct, handler: pageAct(s, protocol.MethodFill, actwire.Fill)},
		{name: protocol.MethodType, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.Submit, confirm.NavigateNewOrigin}, handler: pageAct(s, protocol.MethodType, actwire.Type)},
		{name: protocol.MethodPress, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.Submit, confirm.Purchase, confirm.NavigateNewOrigin}, handler: pageAct(s, protocol.MethodPress, actwire.Press)},
		{name: protocol.MethodSelect, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.Submit, confirm.Purchase, confirm.NavigateNewOrigin}, handler: pageAct(s, protocol.MethodSelect, actwire.Select)},
		// Several fields in one call: what browser_fill_form makes (fill,
		// check, uncheck, select: a select's clicks on a widget that is no
		// <select> are asked about as clicks).
		{name: protocol.MethodFormFill, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.Submit, confirm.Purchase, confirm.NavigateNewOrigin}, noCLI: "a CLI call sets one field (fill, check, select); a script sets several in one call", handler: bound(pageCallOf, s.pageMethods().FormFill)},
		{name: protocol.MethodDrag, need: pairing.NeedAct, handler: pageAct(s, protocol.MethodDrag, actwire.Drag)},
		{name: protocol.MethodUpload, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.Upload}, handler: typed(s.upload)},
		{name: protocol.MethodScroll, need: pairing.NeedAct, noMCP: "actions scroll their element into view; the snapshot reads the whole page", handler: pageAct(s, protocol.MethodScroll, actwire.Scroll)},
		{name: protocol.MethodGoto, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.NavigateNewOrigin}, handler: bound(pageCallOf, s.pageMethods().Goto)},
		{name: protocol.MethodBack, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.NavigateNewOrigin}, handler: bound(pageCallOf, s.pageMethods().History(protocol.MethodBack))},
		{name: protocol.MethodForward, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.NavigateNewOrigin}, handler: bound(pageCallOf, s.pageMethods().History(protocol.MethodForward))},
		{name: protocol.MethodReload, need: pairing.NeedAct, handler: bound(pageCallOf, s.pageMethods().History(protocol.MethodReload))},
		{name: protocol.MethodEval, need: pairing.NeedAct, handler: bound(pageCallOf, s.pageMethods().Eval)},
		{name: protocol.MethodDialog, need: pairing.NeedAct, dialogs: true, handler: bound(pageCallOf, s.pageMethods().Dialog)},
		{name: protocol.MethodDownload, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.Download}, noMCP: "a download's file is the person's: no tool saves one", handler: bound(s.dataCall, s.tabData().Download)},
		{name: protocol.MethodCookiesGet, need: pairing.NeedAct, handler: bound(s.dataCall, s.tabData().CookiesGet)}, // session cookies are credentials
		{name: protocol.MethodCookiesSet, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.CookieWrite}, handler: bound(s.dataCall, s.tabData().CookiesSet)},
		{name: protocol.MethodCookiesClear, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.CookieWrite}, handler: bound(s.dataCall, s.tabData().CookiesClear)},

		// The MCP tools' methods (pagetools.go; network.request and
		// storage.get in internal/server/tabdata): reading an element's state
		// and naming it read the page; the viewport changes it; a request's
		// headers and bodies and the page's storage may hold credentials,
		// as cookies do.
		{name: protocol.MethodInspect, need: pairing.NeedRead, handler: typed(s.inspect)},
		{name: protocol.MethodLocators, need: pairing.NeedRead, noCLI: onlyMCP, handler: typed(s.locators)},
		{name: protocol.MethodResize, need: pairing.NeedAct, noCLI: onlyMCP, handler: typed(s.resize)},
		{name: protocol.MethodNetworkRequest, need: pairing.NeedAct, noCLI: onlyMCP, handler: bound(s.dataCall, s.tabData().NetworkRequest)},
		{name: protocol.MethodStorageGet, need: pairing.NeedAct, noCLI: onlyMCP, handler: bound(s.dataCall, s.tabData().StorageGet)},

		{name: protocol.MethodAgentsList, need: pairing.NeedOwner, noMCP: ownerCLI, handler: bound(ownerCall, s.owner().AgentsList)},
		{name: protocol.MethodAgentsApprove, need: pairing.NeedOwner, noMCP: ownerCLI, handler: bound(ownerCall, s.owner().AgentsApprove)},
		{name: protocol.MethodAgentsDeny, need: pairing.NeedOwner, noMCP: ownerCLI, handler: bound(ownerCall, s.owner().AgentsDeny)},
		{name: protocol.MethodAgentsRevoke, need: pairing.NeedOwner, noMCP: ownerCLI, handler: bound(ownerCall, s.owner().AgentsRevoke)},
		{name: protocol.MethodTraceStart, need: pairing.NeedOwner, audited: true, noMCP: ownerCLI, handler: bound(ownerCall, s.owner().TraceStart)},
		{name: protocol.MethodTraceStop, need: pairing.NeedOwner, audited: true, noMCP: ownerCLI, handler: bound(ownerCall, s.owner().TraceStop)},
		{name: protocol.MethodTraceList, need: pairing.NeedOwner, noMCP: ownerCLI, handler: bound(ownerCall, s.owner().TraceList)},
		{name: protocol.MethodConfirmList, need: pairing.NeedOwner, noMCP: ownerCLI, handler: bound(confirmCallOf, s.confirmMethods().List)},
		{name: protocol.MethodConfirmAnswer, need: pairing.NeedOwner, audited: true, noMCP: ownerCLI, handler: bound(confirmCallOf, s.confirmMethods().Answer)},
		{name: protocol.MethodAuditTail, need: pairing.NeedOwner, noMCP: ownerCLI, noCLI: "`egohost audit` reads the log's files itself (it works with the service down)", handler: bound(ownerCall, s.owner().AuditTail)},

		{name: protocol.MethodPairRequest, need: pairing.NeedPairing, timeout: timeoutPairing, noScript: "a script's calls are its agent's, which is paired already", noMCP: "the MCP server pairs itself at start (client.Pair)", handler: bound(ownerCall, s.owner().PairRequest)},

		// Spaces (internal/server/spacemethods): an agent names itself, lists and
		// waits on its own spaces; making and changing spaces acts on
		// tabs; taking over and handing back is the person's.
		{name: protocol.MethodHello, need: pairing.NeedNone, noMCP: "the MCP server says hello when it connects (client.Dial)", handler: bound(spaceCall, s.spaceMethods().Hello)},
		{name: protocol.MethodSpacesList, need: pairing.NeedNone, handler: bound(spaceCall, s.spaceMethods().List)},
		{name: protocol.MethodSpacesWaitForControl, need: pairing.NeedNone, handler: bound(spaceCall, s.spaceMethods().WaitForControl)},
		{name: protocol.MethodSpacesNew, need: pairing.NeedAct, kinds: []confirm.Kind{confirm.NavigateNewOrigin}, handler: bound(spaceCall, s.spaceMethods().NewSpace)},
		{name: protocol.MethodSpacesUse, need: pairing.NeedAct, noMCP: "an MCP tool names its space in its params", handler: bound(spaceCall, s.spaceMethods().Use)},
		{name: protocol.MethodSpacesClaim, need: pairing.NeedAct, noMCP: "claiming the person's tabs is the CLI's (`egohost space claim`)", handler: bound(spaceCall, s.spaceMethods().Claim)}, // and all-tabs for a paired agent (spacemethods.Methods.Claim)
		{name: protocol.MethodSpacesComplete, need: pairing.NeedAct, handler: bound(spaceCall, s.spaceMethods().Complete)},
		{name: protocol.MethodSpacesClose, need: pairing.NeedAct, noMCP: "browser_space_complete ends a task; closing its tabs is the person's or the CLI's", handler: bound(spaceCall, s.spaceMethods().Close)},
		{name: protocol.MethodSpacesTakeOver, need: pairing.NeedOwner, noMCP: ownerCLI, handler: bound(spaceCall, s.spaceMethods().TakeOver)},
		{name: protocol.MethodSpacesHandBack, need: pairing.NeedOwner, noMCP: ownerCLI, handler: bound(spaceCall, s.spaceMethods().HandBack)},
	}
}

// methodsByName indexes rows by name.
func methodsByName(rows []method) map[string]method {
	out := make(map[string]method, len(rows))
	for _, m := range rows {
		out[m.name] = m
	}
	return out
}
