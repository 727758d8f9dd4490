package cdpmethods

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/weburl"
	"github.com/egohost/egohost/protocol"
)

// This file is what raw CDP may do (PROTOCOL.md §3.7.1): the allow-list of
// methods a paired agent may send (pairing.CDPRuleOf) with the checks of
// their params, the child sessions it may name, and the one navigation
// that crashes the browser, refused to everyone. The pages nobody but the
// person may reach (the browser's, DevTools', extensions') are refused
// before, when the call resolves its tab (Call.Target).

// checkMethod refuses, before anything else, a CDP method the caller may
// not send: a paired agent sends only what the allow-list names.
func checkMethod(c Call, method string) error {
	if !c.Paired() {
		return nil
	}
	return pairing.CheckCDPMethod(method)
}

// checkParams checks, once the tab is known, what a CDP call's params
// reach: for a paired agent its session and the checks its method's rule
// names; for everyone the navigation that crashes the browser.
func (m *Methods) checkParams(ctx context.Context, c Call, l Link, tab int, p protocol.CDPSendParams) error {
	var sess cdp.Session = l.Session(tab)
	if p.SessionID != "" {
		sess = l.Session(tab).Child(target.SessionID(p.SessionID))
	}
	if c.Paired() {
		// The check that asks nothing of the browser first, then the one
		// that does, then those that may ask the person.
		if err := checkContexts(l, tab, p); err != nil {
			return err
		}
		if err := checkFrames(ctx, c, l, tab, p.Method); err != nil {
			return err
		}
		if p.SessionID != "" {
			if err := checkChildSession(ctx, c, l, tab, p); err != nil {
				return err
			}
		}
		if err := m.checkRule(ctx, c, l, tab, sess, p); err != nil {
			return err
		}
	}
	if p.Method == page.CommandNavigate && p.SessionID == "" {
		var np struct {
			URL     string      `json:"url"`
			FrameID cdp.FrameID `json:"frameId"`
		}
		_ = jsonv2.Unmarshal(p.Params, &np)
		crashes, _, err := actions.AboutFragment(ctx, sess, np.URL, np.FrameID)
		if err != nil {
			return err
		}
		if crashes {
			return protocol.Errorf(protocol.CodeUnsupported, "cdp.send: Page.navigate to %q is a fragment of the tab's about: document, which crashes the whole browser through chrome.debugger: set location.hash with Runtime.evaluate, or use goto", np.URL).
				With("method", p.Method)
		}
	}
	return nil
}

// checkFrames refuses raw CDP on a tab that shows a frame the caller may
// not reach (its origin rules, a scheme not granted, an extension's
// frame): a command is not bound to one frame. From the tab's own session
// the DOM, scripts and accessibility tree of a frame in the same process
// are one call away, and every frame's pixels (Page.captureScreenshot)
// and input (Input.dispatchMouseEvent at its place) whatever its process.
// Judged at the call, as screenshot is: a frame that navigates between
// this check and the command is not covered.
func checkFrames(ctx context.Context, c Call, l Link, tab int, method string) error {
	reach := c.Reach()
	if reach == nil {
		return nil
	}
	frames, err := l.Withheld(ctx, tab, reach)
	if err != nil || len(frames) == 0 {
		return err
	}
	return protocol.Errorf(protocol.CodeForbiddenOriginScope, "cdp.send: tab %d shows a frame of %s, which this agent may not reach: raw CDP reaches every frame of the tab (its DOM and scripts, its pixels, the input sent to it); snapshot, the element actions and eval leave that frame out", tab, frames[0]).
		With("method", method).With("tab", tab).With("origin", frames[0]).With("reason", "frame").With("frame", true)
}

// contextRefs are the members of a command's params that name an
// execution context, directly or by an object that lives in one (Runtime's
// methods, DOM.resolveNode, and any other that takes them). An object ID
// is "isolate.context.object" (V8's RemoteObjectId).
type contextRefs struct {
	ContextID          *int64 `json:"contextId"`
	ExecutionContextID *int64 `json:"executionContextId"`
	UniqueContextID    string `json:"uniqueContextId"`
	ContextName        string `json:"executionContextName"`
	ObjectID           string `json:"objectId"`
	PromiseObjectID    string `json:"promiseObjectId"`
	PrototypeObjectID  string `json:"prototypeObjectId"`
	ErrorObjectID      string `json:"errorObjectId"`
}

// objectContext is the execution context an object ID names, read as
// V8 reads it ("isolate.context.object", each part as C's strtoll reads
// it: leading white space, a sign and leading zeros let through, so
// " +03" is context 3); ok is false for an ID V8 would refuse.
func objectContext(objectID string) (int64, bool) {
	isolate, rest, ok := strings.Cut(objectID, ".")
	if !ok {
		return 0, false
	}
	id, obj, ok := strings.Cut(rest, ".")
	if !ok {
		return 0, false
	}
	if _, ok := v8Int(isolate, 64); !ok {
		return 0, false
	}
	if _, ok := v8Int(obj, 32); !ok {
		return 0, false
	}
	return v8Int(id, 32)
}

// uniqueContext is a system-unique context ID as Chrome writes it
// ("first.second", each an int64), read as V8 reads one (each half as
// strtoll reads it, a half out of range read as the nearest int64).
func uniqueContext(unique string) (string, bool) {
	first, second, ok := strings.Cut(unique, ".")
	if !ok {
		return "", false
	}
	a, ok := v8Int(first, 64)
	if !ok {
		return "", false
	}
	b, ok := v8Int(second, 64)
	if !ok {
		return "", false
	}
	return strconv.FormatInt(a, 10) + "." + strconv.FormatInt(b, 10), true
}

// v8Int reads a number as V8's inspector does (String16::toInteger64, C's
// strtoll in base 10, and for 32 bits its range check after): leading
// white space skipped, a sign, digits to the end; an int64 out of range is
// the nearest one (strtoll's), a 32-bit one out of range is refused.
func v8Int(s string, bits int) (int64, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	if s == "" {
		return 0, true // strtoll read nothing, and the whole (empty) rest: 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if !errors.As(err, &ne) || ne.Err != strconv.ErrRange {
			return 0, false
		}
		// strtoll's clamp: n is already the nearest int64.
	}
	if bits == 32 && (n > math.MaxInt32 || n < math.MinInt32) {
		return 0, false
	}
	return n, true
}

// checkContexts keeps a paired agent out of egohost's own isolated
// worlds: its engine, the token that tells its world from another, the
// functions the service calls there for every caller of the tab (the
// person's too). A context named by ID, by its unique ID, by an object
// that lives in it (resolve's objects do not: they are in the page's
// world), or a binding added to worlds of egohost's name, is refused.
func checkContexts(l Link, tab int, p protocol.CDPSendParams) error {
	if len(p.Params) == 0 {
		return nil
	}
	var r contextRefs
	if jsonv2.Unmarshal(p.Params, &r) != nil {
		// Refused, not let through: Chrome ignores a member its method
		// does not take, so a mistyped one beside a context could hide it.
		return protocol.Errorf(protocol.CodeInvalidParams, "cdp.send: a member that names an execution context or an object (contextId, executionContextId, uniqueContextId, executionContextName, objectId, promiseObjectId, prototypeObjectId, errorObjectId) has the wrong type").With("method", p.Method)
	}
	own := false
	for _, id := range []*int64{r.ContextID, r.ExecutionContextID} {
		own = own || id != nil && l.OwnContext(tab, p.SessionID, *id)
	}
	for _, obj := range []string{r.ObjectID, r.PromiseObjectID, r.PrototypeObjectID, r.ErrorObjectID} {
		if obj == "" {
			continue
		}
		id, ok := objectContext(obj)
		if !ok {
			return protocol.Errorf(protocol.CodeInvalidParams, "cdp.send: an object ID is not one Chrome gives (isolate.context.object)").With("method", p.Method)
		}
		own = own || l.OwnContext(tab, p.SessionID, id)
	}
	if r.UniqueContextID != "" {
		unique, ok := uniqueContext(r.UniqueContextID)
		if !ok {
			return protocol.Errorf(protocol.CodeInvalidParams, "cdp.send: uniqueContextId is not one Chrome gives (two numbers and a dot)").With("method", p.Method)
		}
		own = own || l.OwnUniqueContext(unique)
	}
	own = own || pairing.EgohostWorld(r.ContextName)
	if p.Method == runtime.CommandAddBinding && r.ExecutionContextID == nil && r.ContextName == "" {
		// Chrome adds it to every context of the target, egohost's worlds
		// included (and a binding named as a global egohost's engine calls,
		// String, would hand the agent what it is called with).
		return pairing.CDPRefused(p.Method, "without executionContextId or executionContextName it reaches every world of the tab, egohost's own too: name the context or a world of the agent's own")
	}
	if !own {
		return nil
	}
	return pairing.CDPRefused(p.Method, "it names an execution context of egohost's own isolated world (its engine, for every caller of the tab): use the page's world, or a world of the agent's own (Page.createIsolatedWorld)")
}

// checkChildSession lets a paired agent name only a child session of that
// very tab (one egohost attached: an out-of-process frame, a worker) on a
// page it may reach.
func checkChildSession(ctx context.Context, c Call, l Link, tab int, p protocol.CDPSendParams) error {
	pg, err := l.Page(ctx, tab)
	if err != nil {
		return err
	}
	for _, ch := range pg.Children() {
		if string(ch.SessionID) != p.SessionID {
			continue
		}
		// What the child shows now: the URL of its attach may be its
		// first about:blank.
		info, err := cdp.Call(ctx, pg.Child(ch.SessionID), target.GetTargetInfo, target.GetTargetInfoParams{})
		if err != nil {
			return err
		}
		u := ch.URL
		if info.TargetInfo != nil {
			u = info.TargetInfo.URL
		}
		if weburl.BrowserPage(u) {
			return pairing.CDPRefused(p.Method, "session "+p.SessionID+" is a browser, DevTools or extension page ("+pairing.Origin(u)+")")
		}
		return c.CheckOriginRead(u)
	}
	return pairing.CDPRefused(p.Method, "session "+p.SessionID+" is not a child session of tab "+strconv.Itoa(tab)+" (an out-of-process frame or worker egohost attached)")
}

// checkRule runs the check the method's rule names.
func (m *Methods) checkRule(ctx context.Context, c Call, l Link, tab int, sess cdp.Session, p protocol.CDPSendParams) error {
	switch pairing.CDPRuleOf(p.Method).Check {
	case pairing.CheckNavigation:
		dest, err := navigationDest(ctx, sess, p)
		if err != nil || dest == "" {
			return err
		}
		// goto's check of the address, then the agent's origin rules.
		n, err := pairing.CDPDestination(p.Method, dest)
		if err != nil {
			return err
		}
		if err := c.CheckDestination(n); err != nil {
			return err
		}
		// The tab's own session navigates the tab (or a frame of it: asked
		// too, the safe side) as goto does: the same confirmation.
		if p.SessionID != "" || !c.MayAsk(confirm.NavigateNewOrigin) {
			return nil
		}
		from, err := m.svc.TopURL(ctx, sess)
		if err != nil || !pairing.NewOrigin(from, dest) {
			return err
		}
		q := protocol.Confirm{Action: confirm.DescribeNavigation("send "+p.Method+" to", pairing.Host(dest), pairing.Host(from)), Browser: l.ID(), Tab: tab}
		return c.Confirm(ctx, confirm.NavigateNewOrigin, dest, q)
	case pairing.CheckOwnCookies:
		u, err := l.TabURL(ctx, tab)
		if err != nil {
			return err
		}
		if why := pairing.ForeignCookies(p.Method, p.Params, u); why != "" {
			return pairing.CDPRefused(p.Method, why)
		}
		// A cookie written through raw CDP is asked as cookies.set is (a
		// read, or a method added to the rule later, is not a write).
		switch p.Method {
		case network.CommandSetCookie, network.CommandSetCookies, network.CommandDeleteCookies:
			if c.MayAsk(confirm.CookieWrite) {
				q := protocol.Confirm{Action: "send " + p.Method + " on " + pairing.Host(u), Browser: l.ID(), Tab: tab}
				return c.Confirm(ctx, confirm.CookieWrite, u, q)
			}
		}
	case pairing.CheckOriginRead:
		return checkResourceRead(c, l, tab, p)
	case pairing.CheckWorldName:
		var wp struct {
			WorldName string `json:"worldName"`
		}
		_ = jsonv2.Unmarshal(p.Params, &wp)
		if pairing.EgohostWorld(wp.WorldName) {
			// The why is the same whatever the name: the agent's text is
			// not echoed (nor written to the audit log).
			return pairing.CDPRefused(p.Method, "a worldName that starts with \"egohost\" is egohost's own: its engine takes a world of that name for its own, and the agent would hold it (name the world otherwise)")
		}
	}
	return nil
}

// navigationDest is where a navigation method would take the frame: its
// url, or the URL of the history entry it names ("" for an entry the tab
// does not have: Chrome refuses it).
func navigationDest(ctx context.Context, sess cdp.Session, p protocol.CDPSendParams) (string, error) {
	switch p.Method {
	case page.CommandNavigate:
		var np struct {
			URL string `json:"url"`
		}
		if err := jsonv2.Unmarshal(p.Params, &np); err != nil || np.URL == "" {
			return "", pairing.CDPRefused(p.Method, "it needs a url")
		}
		return np.URL, nil
	case page.CommandNavigateToHistoryEntry:
		var hp struct {
			EntryID int64 `json:"entryId"`
		}
		_ = jsonv2.Unmarshal(p.Params, &hp)
		h, err := cdp.Call(ctx, sess, page.GetNavigationHistory, cdp.Empty{})
		if err != nil {
			return "", err
		}
		for _, e := range h.Entries {
			if e != nil && e.ID == hp.EntryID {
				return e.URL, nil
			}
		}
	}
	return "", nil
}

// checkResourceRead checks that a resource a method reads (a request's
// response, a frame's resource) is at a URL the agent's origin rules
// permit: reading it past CORS must not reach an origin the agent may not.
func checkResourceRead(c Call, l Link, tab int, p protocol.CDPSendParams) error {
	var rp struct {
		URL       string `json:"url"`
		RequestID string `json:"requestId"`
	}
	_ = jsonv2.Unmarshal(p.Params, &rp)
	if rp.URL != "" {
		return c.CheckOriginRead(rp.URL)
	}
	if !c.HasOriginRules() {
		return nil // nothing to keep it from
	}
	if u, ok := l.RequestURL(tab, rp.RequestID); ok {
		return c.CheckOriginRead(u)
	}
	return pairing.CDPRefused(p.Method, "request "+rp.RequestID+" is not one egohost recorded on tab "+strconv.Itoa(tab)+", so its URL cannot be checked against the agent's origin rules (a followed tab's requests are recorded, PROTOCOL.md §3.1.1)")
}
