package service

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/server/agentconn"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/internal/server/trace"
	"github.com/egohost/egohost/internal/server/weburl"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// This file is who may do what: the owner token, paired agents' tokens
// and their scopes, the per-tab origin rules, and the audit log of every
// call that reaches a tab. Pairing itself is in internal/server/ownermethods.

// grantKind says how a connection authenticated.
type grantKind int

const (
	grantUnpaired grantKind = iota // no token: it may only ask to pair
	grantOwner                     // the owner token (the person's own CLI)
	grantPaired                    // a paired agent's token
)

// grant is what an agent connection may do.
type grant struct {
	kind    grantKind
	name    string // the paired agent's name ("" for the owner)
	tokenID string // the paired token's id part
	scopes  []pairing.Scope
}

// ownerGrant is the owner token's: everything. personGrant is the same
// for the person at a browser's popup (the audit log names it "person").
var (
	ownerGrant  = grant{kind: grantOwner}
	personGrant = grant{kind: grantOwner, name: "person"}
)

// auditName is how the audit log names the caller.
func (g grant) auditName() string {
	switch {
	case g.name != "":
		return g.name
	case g.kind == grantOwner:
		return "owner"
	}
	return "(unpaired)"
}

func isAgentToken(tok string) bool {
	_, ok := protocol.AgentTokenID(tok)
	return ok
}

// checkAgentName is for the agent naming itself (the hello method, the
// X-Egohost-Agent header): a paired token's name is the paired one, and
// another is refused.
func (g grant) checkAgentName(name string) error {
	if g.kind == grantPaired && name != "" && name != g.name {
		return protocol.Errorf(protocol.CodeInvalidParams, "this token is paired as %q: it cannot call itself %q (pair that name with `egohost pair --name %s`)", g.name, name, name)
	}
	return nil
}

// identify authenticates an agent's WebSocket request: no browser Origin,
// a loopback Host, then the owner token, a paired agent's token, or no
// token at all (a connection that may only ask to pair). A wrong token
// is refused (401), a revoked one with revoked.
func (s *Service) identify(r *http.Request) (grant, *protocol.Error) {
	if e := agentconn.CheckCaller(r); e != nil {
		return grant{}, e
	}
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return grant{kind: grantUnpaired}, nil
	}
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		return grant{}, wrongToken()
	}
	return s.identifyToken(strings.TrimSpace(tok))
}

// wrongToken refuses a connection whose token is neither the owner's nor
// a paired agent's.
func wrongToken() *protocol.Error {
	return protocol.Errorf(protocol.CodeUnauthorized, "missing or wrong bearer token (see the token file, or pair with `egohost pair`)")
}

// identifyToken is the grant of a bearer token (the WebSocket's
// Authorization header, the agent socket's SocketAuth): the owner token
// or a paired agent's; a revoked one is refused with revoked.
func (s *Service) identifyToken(tok string) (grant, *protocol.Error) {
	if subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) == 1 {
		return ownerGrant, nil
	}
	if isAgentToken(tok) {
		a, err := s.pairs.Lookup(tok)
		switch {
		case err == nil:
			return grant{kind: grantPaired, name: a.Name, tokenID: a.ID, scopes: a.Scopes}, nil
		case errors.Is(err, pairing.ErrRevoked):
			return grant{}, protocol.Errorf(protocol.CodeRevoked, "the token of agent %q was revoked: pair again with `egohost pair --name %s`", a.Name, a.Name)
		}
	}
	return grant{}, wrongToken()
}

// proofKey is the key of the hello proof for the token a client holds:
// the owner token, or the hash of the paired token whose id it names.
func (s *Service) proofKey(agentID string) (string, bool) {
	if agentID == "" {
		return s.token, true
	}
	a, ok := s.pairs.ByID(agentID)
	return a.Hash, ok
}

// waitNeed: a wait for a function (a JSON string that is not "") runs
// page JavaScript.
func waitNeed(in rpcparams.Params) pairing.Need {
	if f := in.Members()["function"]; len(f) > 2 && f[0] == '"' {
		return pairing.NeedAct
	}
	return pairing.NeedRead
}

// writesFile: a call that names files on disk (a screenshot saved to a
// path, a script's files) does more than read the page.
func writesFile(field string) func(rpcparams.Params) pairing.Need {
	return func(in rpcparams.Params) pairing.Need {
		if v, ok := in.Members()[field]; ok && string(v) != "null" && string(v) != `""` && string(v) != "[]" {
			return pairing.NeedAct
		}
		return pairing.NeedRead
	}
}

// permit checks a call against the caller's grant, before anything runs.
func (g grant) permit(method string, need pairing.Need) error {
	switch {
	case need == pairing.NeedPairing:
		return nil
	case g.kind == grantUnpaired:
		return protocol.Errorf(protocol.CodeUnauthorized, "%s: this connection has no token: pair first (pair.request, or `egohost pair --name NAME`)", method)
	case g.kind == grantOwner:
		return nil
	case pairing.Grants(g.scopes, need):
		return nil
	}
	return protocol.Errorf(protocol.CodeScopeDenied, "%s: agent %q was not granted %s (its scopes: %s); pair again asking for it", method, g.name, pairing.ScopeFor(need), pairing.ScopeList(g.scopes)).
		With("need", need.String()).With("scope", pairing.ScopeFor(need))
}

// call is one call in flight, as the access checks and the audit log see
// it. Its handler gets it, and passes it to what judges the caller (the
// tab checks deep in target(), the origin rules, the confirmations).
type call struct {
	conn   *agent // the connection it came on: an agent's, or the person's at a browser (the popup's)
	home   *link  // the browser of the popup that made it (popupCall), nil for agents' calls
	method string
	params rpcparams.Params // its parameters, parsed once (the popup reads its target from them while it runs)
	need   pairing.Need
	kinds  []confirm.Kind // what its agent's policy may ask the person about (confirmKinds), reckoned once
	agent  string         // the connection's name (hello, X-Egohost-Agent): the audit's name for an owner token that has one

	// cancel ends the call with a cause: user_in_control when the person
	// takes over a space it reached (takeover.go).
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	marks   []func() // what target marked on the call's tabs, to mark again when it ends
	browser string
	tab     int
	origin  string
	spaces  []string // the spaces whose tabs it reached (checkSpace)
	files   []string // the files it read or wrote (agentfiles.go noteFiles)

	// step is what its tab work adds to its trace step; nil when no
	// trace records the call (trace.go).
	step *trace.Notes
}

// call runs one method for an agent with its deadline (its registry
// row's): the grant check, the handler, and the audit line. An agent's
// connection, the popup channel and a script's calls all come here. home
// is the browser of the popup that made it, nil for an agent's.
func (s *Service) call(ctx context.Context, a *agent, home *link, method string, raw json.RawMessage) (any, error) {
	if a.grant.kind == grantUnpaired && method != protocol.MethodPairRequest {
		return nil, s.refuseTokenless(a) // counted, not audited (tokenless.go)
	}
	m, ok := s.methods[method]
	if !ok {
		return nil, protocol.Errorf(protocol.CodeMethodNotFound, "unknown method %q", method)
	}
	if m.need == 0 {
		return nil, protocol.Errorf(protocol.CodeInternal, "%s: the method declares no scope, so nobody may call it (a bug: give its row in internal/server/service/registry.go a need)", method)
	}
	in := rpcparams.Parse(raw) // once: the need, the audit line and the handler read it
	need := m.needFor(in)
	kinds := s.confirmKinds(a.grant, method)
	ctx, stop := context.WithTimeout(ctx, m.deadline(s.opts, len(kinds) > 0))
	defer stop()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c := &call{conn: a, home: home, method: method, params: in, need: need, kinds: kinds, agent: a.agentName(), cancel: cancel}
	tr := s.traceFor(a, need)
	if tr != nil {
		c.step = &trace.Notes{}
	}
	start := time.Now()
	defer s.conns.Track(a, c)() // the popup's Agents panel shows it (agentslive.go)
	var res any
	err := a.grant.permit(method, need)
	if err == nil {
		res, err = m.run(ctx, c, in)
		err = takenOver(ctx, err)
	}
	c.mu.Lock()
	marks := c.marks
	c.mu.Unlock()
	for _, mark := range marks {
		mark()
	}
	took := time.Since(start)
	if need >= pairing.NeedRead && need <= pairing.NeedCDP || m.audited {
		s.auditCall(c, in, err, took)
	}
	if tr != nil {
		s.traceCall(tr, c, in, res, err, took)
	}
	return res, err
}

// checkScope checks the caller of call c against a tab it is
// about to reach: its origin rules (on the tab's URL now, from the
// browser's events or a fresh look, never from the agent's last goto).
// The space check (checkSpace) sits next to it: a tab outside a paired
// agent's spaces that it may not reach anyway is left to it (not_in_space
// says nothing of the tab's origin). It also notes the tab for the audit
// log. What a call then reads or does in the tab's documents is judged
// again there, at the moment it happens (reachFor).
func (s *Service) checkScope(ctx context.Context, c *call, l *link, tabID int) error {
	var url string
	if c.conn.grant.kind == grantOwner {
		url, _ = l.URLs.Get(tabID) // the audit's origin, when known: the owner has no rules to check
	} else {
		var err error
		if url, err = l.tabURL(ctx, tabID); err != nil {
			return err
		}
	}
	c.mu.Lock()
	if c.tab == 0 {
		c.browser, c.tab, c.origin = l.ID, tabID, pairing.Origin(url)
	}
	c.mu.Unlock()
	if c.conn.grant.kind != grantPaired {
		return nil
	}
	d := s.rulesFor(c.conn.grant.name).Decide(url, "")
	if d.OK {
		return nil
	}
	own := s.ownTab(c.conn.grant.name, l, tabID)
	if !own && !slices.Contains(c.conn.grant.scopes, pairing.AllTabs) && !s.allTabs(c.conn.grant.name) {
		return nil // not its tab: checkSpace refuses it without a word of where it is
	}
	if !own {
		// Not a tab of its own spaces (it holds all-tabs): tabs.list does
		// not show it the tab, and neither does this error.
		return protocol.Errorf(protocol.CodeForbiddenOriginScope, "%s: tab %d is on an origin agent %q may not reach", c.method, tabID, c.conn.grant.name).
			With("tab", tabID).With("reason", d.Reason)
	}
	return protocol.Errorf(protocol.CodeForbiddenOriginScope, "%s: tab %d is on %s, which agent %q may not reach (%s)", c.method, tabID, orNone(pairing.Origin(url)), c.conn.grant.name, d.Rule).
		With("tab", tabID).With("origin", pairing.Origin(url)).With("rule", d.Rule).With("reason", d.Reason)
}

// ownTab reports whether a tab is in one of the named agent's spaces.
func (s *Service) ownTab(name string, l *link, tabID int) bool {
	sp, ok := s.spaces.reg.ByGroup(l.ID, l.Layout.GroupOf(tabID))
	return ok && sp.Agent == name
}

// checkDestination is the one check of "may the caller of call c load
// this URL" (goto, tabs.open, back, forward, reload, and raw
// navigations): a paired agent's origin rules and scheme grants judge
// the URL as the browser reads it (pairing.Rules.Decide), before anything
// loads: the page would load (a request with the person's cookies) before
// any later call could be refused. Where it leads after redirects is
// judged again when it commits (checkLanded).
func (s *Service) checkDestination(c *call, dest string) error {
	if c.conn.grant.kind != grantPaired {
		return nil
	}
	if d := s.rulesFor(c.conn.grant.name).Decide(dest, ""); !d.OK {
		return protocol.Errorf(protocol.CodeForbiddenOriginScope, "%s: %s is not a destination agent %q may load (%s)", c.method, orNone(pairing.Origin(dest)), c.conn.grant.name, d.Rule).
			With("origin", pairing.Origin(dest)).With("rule", d.Rule).With("reason", d.Reason)
	}
	return nil
}

// checkLanded judges where a navigation of the caller's ended (after
// redirects, or a page that moved on by itself): its URL and title are
// not the agent's to read when its rules refuse that document.
func (s *Service) checkLanded(c *call, tabID int, landed string) error {
	if c.conn.grant.kind != grantPaired || landed == "" {
		return nil
	}
	if d := s.rulesFor(c.conn.grant.name).Decide(landed, ""); !d.OK {
		return protocol.Errorf(protocol.CodeForbiddenOriginScope, "%s: tab %d ended on %s (a redirect, or the page moved on), which agent %q may not reach (%s): what it shows is withheld", c.method, tabID, orNone(pairing.Origin(landed)), c.conn.grant.name, d.Rule).
			With("tab", tabID).With("origin", pairing.Origin(landed)).With("rule", d.Rule).With("reason", d.Reason).With("landed", true)
	}
	return nil
}

// checkOriginRead refuses to let a paired agent read what is at rawURL when
// its origin rules deny that origin.
func (s *Service) checkOriginRead(c *call, rawURL string) error {
	if c.conn.grant.kind != grantPaired {
		return nil
	}
	if ok, rule := s.rulesFor(c.conn.grant.name).Permits(rawURL); !ok {
		return protocol.Errorf(protocol.CodeForbiddenOriginScope, "%s: %s is an origin agent %q may not read (%s)", c.method, orNone(pairing.Origin(rawURL)), c.conn.grant.name, rule).
			With("origin", pairing.Origin(rawURL)).With("rule", rule)
	}
	return nil
}

// checkBrowserPage refuses a tab that shows a browser, DevTools or
// extension page to everyone but the person: code run there would speak
// with the extension's own rights (its popup approves pairings and stops
// automation; issue 22).
func (s *Service) checkBrowserPage(ctx context.Context, c *call, l *link, tab int) error {
	if isPerson(c.conn.agentName()) {
		return nil
	}
	u, err := l.tabURL(ctx, tab)
	if err != nil {
		return err
	}
	if !weburl.BrowserPage(u) {
		return nil
	}
	const rule = "browser or extension page"
	return protocol.Errorf(protocol.CodeForbiddenOriginScope, "%s: tab %d shows %s, a %s that only the person may use", c.method, tab, orNone(pairing.Origin(u)), rule).
		With("tab", tab).With("origin", pairing.Origin(u)).With("rule", rule)
}

// reachFor is what a caller may reach of a tab's documents, judged in the
// page at the moment a call reads or acts there (resolver.Within,
// snapshot.Options.Reach, actions.Pin): nil (every document) for the
// owner and the person; for a paired agent, what its rules decide of each
// document's URL and security origin.
func (s *Service) reachFor(g grant) cdptab.Reach {
	if g.kind != grantPaired {
		return nil
	}
	rules := s.rulesFor(g.name)
	return func(url, origin string) (bool, string) {
		d := rules.Decide(url, origin)
		return d.OK, d.Rule
	}
}

// visibleTabs is what a caller may see of tabs: everything for the owner
// and the person; for a paired agent only the tabs it could act on — those
// of its own spaces (every tab with all-tabs), less those on an origin its
// rules deny. The person's other tabs' URLs and titles (a query string may
// carry a token) are none of its business.
func (s *Service) visibleTabs(a *agent, l *link, tabs []protocol.Tab) []protocol.Tab {
	g := a.grant
	if g.kind != grantPaired {
		return tabs
	}
	allTabs := slices.Contains(g.scopes, pairing.AllTabs)
	rules := s.rulesFor(g.name)
	out := make([]protocol.Tab, 0, len(tabs))
	for _, t := range tabs {
		if !allTabs {
			if sp, ok := s.spaces.reg.ByGroup(l.ID, t.GroupID); !ok || sp.Agent != g.name {
				continue
			}
		}
		if ok, _ := rules.Permits(t.URL); !ok {
			continue
		}
		out = append(out, t)
	}
	return out
}

// ownSpacesOnly reports whether a caller may list only its own spaces: a
// paired agent without all-tabs (other agents' tasks and tabs are not its
// business).
func ownSpacesOnly(a *agent) bool {
	return a.grant.kind == grantPaired && !slices.Contains(a.grant.scopes, pairing.AllTabs)
}

// rulesFor returns the origin rules of a paired agent: its own
// (agents.origins.NAME) after those for every agent ("*"), patterns and
// granted schemes alike.
func (s *Service) rulesFor(name string) pairing.Rules {
	all, own := s.opts.OriginRules["*"], s.opts.OriginRules[name]
	return pairing.Rules{
		Allow:   append(append([]string(nil), all.Allow...), own.Allow...),
		Deny:    append(append([]string(nil), all.Deny...), own.Deny...),
		Schemes: append(append([]string(nil), all.Schemes...), own.Schemes...),
	}
}

// auditCall appends the call's line to the audit log: what was asked and
// how it ended, never a value the agent typed.
func (s *Service) auditCall(c *call, in rpcparams.Params, err error, took time.Duration) {
	if s.audit == nil {
		return
	}
	s.writeAudit(s.callEntry(c, in, err, took))
}

// callEntry is the call as the audit log (and a trace) has it.
func (s *Service) callEntry(c *call, in rpcparams.Params, err error, took time.Duration) audit.Entry {
	e := audit.CallEntry(c.method, in.Members())
	e.Time = time.Now().UTC()
	e.Agent = c.conn.grant.auditName()
	if c.conn.grant.kind == grantOwner && c.conn.grant.name == "" && c.agent != "" {
		e.Agent = c.agent // an owner-token agent that named itself
	}
	c.mu.Lock()
	e.Browser, e.Tab, e.Origin = c.browser, c.tab, c.origin
	e.Files = c.files
	c.mu.Unlock()
	e.Result = "ok"
	if err != nil {
		e.Result = wireerr.Of(err).Code.Name()
	}
	e.Duration = float64(took.Microseconds()) / 1000
	return e
}
