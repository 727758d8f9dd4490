package egohost

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestImportEdges keeps the packages' edges as design.md draws them: the
// leaves stay pure, and each outside dependency has one home.
func TestImportEdges(t *testing.T) {
	const mod = "github.com/egohost/egohost"
	imports := moduleImports(t)
	// onlyOurs checks that pkg (name in messages) imports of our packages
	// only those allowed (paths in the module), saying why otherwise.
	onlyOurs := func(pkg, name, why string, allowed ...string) {
		for _, imp := range imports[pkg] {
			if strings.HasPrefix(imp, mod+"/") && !slices.Contains(allowed, strings.TrimPrefix(imp, mod+"/")) {
				t.Errorf("%s imports %s: %s", name, imp, why)
			}
		}
	}
	// The registry of live agent connections (agentlive) is generic over
	// the service's connections and calls: it needs nothing of ours.
	stdlibOnly := []string{"nativemsg", "internal/engine/locator", "internal/link/chromeext", "internal/server/weburl", "internal/server/spaces", "internal/server/confirm", "internal/server/agentlive"}
	for _, pkg := range stdlibOnly {
		for _, imp := range imports[pkg] {
			if strings.Contains(strings.Split(imp, "/")[0], ".") {
				t.Errorf("%s imports %s: it must use the standard library only", pkg, imp)
			}
		}
	}
	// The file rules of the person's disk are also applied to an agent's
	// call (its upload, script and screenshot files), worded with the
	// wire's codes: beside the standard library, filegate knows the
	// agents' wire types (protocol) and nothing else.
	for _, imp := range imports["internal/server/filegate"] {
		if strings.Contains(strings.Split(imp, "/")[0], ".") && imp != mod+"/protocol" {
			t.Errorf("filegate imports %s: it may use only the standard library and protocol", imp)
		}
	}
	only := map[string]string{ // dependency → the one package that may import it
		"github.com/kardianos/service": "install",
		"github.com/spf13/viper":       "internal/setup/config/viperconfig",
		"github.com/dop251/goja":       "internal/server/script",
	}
	for pkg, imps := range imports {
		for _, imp := range imps {
			if owner, ok := only[imp]; ok && pkg != owner {
				t.Errorf("%s imports %s: only %s may", pkg, imp, owner)
			}
			// cdproto's root package decodes every domain's events: it
			// imports all 60 domains, 28 of which nothing else needs
			// (each one more package for every build to compile).
			if imp == "github.com/chromedp/cdproto" {
				t.Errorf("%s imports %s: name the domain's own package (an event's Method is in its cdp.Event)", pkg, imp)
			}
		}
	}
	// The script sandbox reaches the browser through the service's
	// methods only: no I/O of its own, no other package of ours.
	for _, imp := range imports["internal/server/script"] {
		switch {
		case imp == "os" || imp == "os/exec" || strings.HasPrefix(imp, "net"):
			t.Errorf("script imports %s: scripts must reach nothing but the browser", imp)
		case strings.HasPrefix(imp, mod+"/") && imp != mod+"/protocol":
			t.Errorf("script imports %s: it may use only protocol of ours", imp)
		}
	}
	// Pairing and the audit log are asked by the service; they call
	// nothing of ours back but the wire types (and pairing the one table
	// of URL schemes, weburl, a standard-library leaf; the audit log the
	// fixed ring its recent calls are kept in, internal/ring, another).
	for _, pkg := range []string{"internal/server/pairing", "internal/server/audit"} {
		for _, imp := range imports[pkg] {
			if strings.HasPrefix(imp, mod+"/") && imp != mod+"/protocol" && (pkg != "internal/server/pairing" || imp != mod+"/internal/server/weburl") && (pkg != "internal/server/audit" || imp != mod+"/internal/ring") {
				t.Errorf("%s imports %s: it may use only protocol of ours", pkg, imp)
			}
		}
	}
	// A trace is a file of steps: the service fills them, it knows none
	// of ours but the wire types and the audit log's caps.
	for _, imp := range imports["internal/server/trace"] {
		if strings.HasPrefix(imp, mod+"/") && imp != mod+"/protocol" && imp != mod+"/internal/server/audit" {
			t.Errorf("trace imports %s: it may use only protocol and audit of ours", imp)
		}
	}
	// An agent's connection is carried, not understood: agentconn knows
	// the wire types, the framing and the in-flight slots, not the service
	// that answers the calls (its Handler) nor the grants that admit a
	// caller (its Gate).
	onlyOurs("internal/server/agentconn", "agentconn", "it may use only protocol, nativemsg and internal/server/slots of ours", "protocol", "nativemsg", "internal/server/slots")
	// The page methods' wire mapping is a pure translation between the
	// agents' wire and the page engine: of ours it knows protocol, the
	// actions it maps to and weburl (the URLs goto loads), not the service
	// that runs it on a tab.
	onlyOurs("internal/server/actwire", "actwire", "it may use only protocol, actions and weburl of ours", "protocol", "internal/engine/actions", "internal/server/weburl")
	// The read methods' wire mapping is the same kind of pure translation,
	// from what the engine reads (a snapshot, the resolver's matches, the
	// overlay's boxes, the ref map's entries) to the wire; it takes the
	// wire's units (TookMs) from actwire rather than keep a second copy.
	onlyOurs("internal/server/readwire", "readwire", "it may use only protocol, snapshot, resolver, overlay, refmap and actwire of ours",
		"protocol", "internal/engine/snapshot", "resolver", "internal/engine/overlay", "refmap", "internal/server/actwire")
	// The cookie methods' wire mapping is a pure translation between the
	// agents' wire and CDP's Network domain: of ours it knows protocol,
	// not the service that makes the calls on a tab.
	onlyOurs("internal/server/cookiewire", "cookiewire", "it may use only protocol of ours", "protocol")
	// A call's params are decoded by name and type, whoever calls: of ours
	// rpcparams knows only the wire's error (invalid_params).
	onlyOurs("internal/server/rpcparams", "rpcparams", "it may use only protocol of ours", "protocol")
	// The person's methods (pairing, agents.*, audit.tail, trace.* and
	// the popup's views of them) answer from the pairing store and
	// requests, the audit log and the trace recorder, and check a traced
	// agent's name as spaces names agents; the live connections, the
	// browsers and the calls are the service's, behind the interfaces
	// ownermethods declares, so it imports neither the service nor the hub.
	onlyOurs("internal/server/ownermethods", "ownermethods", "it may use only protocol, pairing, audit, trace, spaces and rpcparams of ours",
		"protocol", "internal/server/pairing", "internal/server/audit", "internal/server/trace", "internal/server/spaces", "internal/server/rpcparams")
	// The popup's page tools draw with the overlay and name what the
	// person picked with the engine's finders: of ours they know the
	// wire types, the overlay, the locator candidates, the resolver's
	// matches and the snapshot's refs (snapshot, refmap), their wire
	// mapping (readwire), the wire's errors (wireerr), strict params
	// (rpcparams) and the audit line's fields; the tab, the browser's
	// link and the person's state are the service's, behind the
	// interfaces popuptools declares, so it imports neither the service
	// nor the hub.
	onlyOurs("internal/server/popuptools", "popuptools", "it may use only protocol, overlay, locator, snapshot, refmap, resolver, readwire, wireerr, rpcparams and audit of ours",
		"protocol", "internal/engine/overlay", "internal/engine/locator", "internal/engine/snapshot", "refmap", "resolver",
		"internal/server/readwire", "internal/server/wireerr", "internal/server/rpcparams", "internal/server/audit")
	// The MCP front end speaks to the service through the agent API only
	// (protocol types), and only it and the command wiring know the SDK.
	for _, imp := range imports["internal/front/mcpserver"] {
		if strings.HasPrefix(imp, mod+"/") && imp != mod+"/protocol" {
			t.Errorf("mcpserver imports %s: it may use only protocol of ours (a tool is a service call)", imp)
		}
	}
	for pkg, imps := range imports {
		for _, imp := range imps {
			if strings.HasPrefix(imp, "github.com/modelcontextprotocol/") && pkg != "internal/front/mcpserver" && pkg != "cmd/egohost-host" {
				t.Errorf("%s imports %s: only mcpserver and cmd/egohost-host may", pkg, imp)
			}
		}
	}
	// The page module is a leaf: the resolver, the snapshot, the actions
	// and the overlay read pages through it; it knows none of them.
	for _, imp := range imports["internal/engine/aria"] {
		if strings.HasPrefix(imp, mod+"/") {
			t.Errorf("aria imports %s: it may use none of our packages", imp)
		}
	}
	// The popup's overlay only draws and picks over a CDP session: it
	// finds nothing itself (the resolver does), so of ours it imports only
	// the way to call JavaScript in a page.
	for _, imp := range imports["internal/engine/overlay"] {
		if strings.HasPrefix(imp, mod+"/") && imp != mod+"/internal/engine/aria" {
			t.Errorf("overlay imports %s: it may use only aria of ours", imp)
		}
	}
	// The browser link is the client of the extension's op protocol only:
	// it knows the wire, the frames and the CDP session seam, not the
	// agents' API, the tabs' state or the page logic above it; and only
	// the service and its hub drive it.
	onlyOurs("internal/link/browserlink", "browserlink", "it may use only nativemsg, cdptab, extwire, protocol and internal/pending of ours", "nativemsg", "internal/link/cdptab", "internal/link/extwire", "protocol", "internal/pending")
	// The page packages meet in the ref map (its entries and the errors of
	// looking a target up): the resolver and the snapshot do not import
	// each other, and actions run through a finder, not the resolver.
	for pkg, banned := range map[string][]string{
		"resolver":                 {"internal/engine/snapshot"},
		"internal/engine/snapshot": {"resolver", "internal/engine/actions"},
		"internal/engine/actions":  {"resolver", "internal/engine/snapshot"},
	} {
		for _, imp := range imports[pkg] {
			for _, b := range banned {
				if imp == mod+"/"+b {
					t.Errorf("%s imports %s: shared errors and entries live in refmap", pkg, b)
				}
			}
		}
	}
	// The browser link makes no agents' error codes: it returns its own
	// errors (browserlink.Error) and wireerr words them.
	noCodes, err := exec.Command("grep", "-lE", `protocol\.(Errorf|Code[A-Z])`, "--include=*.go", "--exclude=*_test.go", "-r", "internal/link/browserlink").Output()
	if len(noCodes) > 0 {
		t.Errorf("browserlink makes agents' error codes (protocol.Errorf / protocol.Code…) in:\n%s", noCodes)
	} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("grep browserlink: %v", err)
	}
	// The extension wire is types and their encoding: the agents' wire
	// types (a Tab, an error object) and nothing else of ours.
	for _, imp := range imports["internal/link/extwire"] {
		if strings.HasPrefix(imp, mod+"/") && imp != mod+"/protocol" {
			t.Errorf("extwire imports %s: it may use only protocol of ours", imp)
		}
	}
	// The service speaks the relay's and the agents' discovery contracts
	// through their wire packages, not through the relay or the client.
	for _, imp := range imports["internal/server/service"] {
		if imp == mod+"/internal/link/relay" || imp == mod+"/client" {
			t.Errorf("service imports %s: shared types live in extwire and protocol", imp)
		}
	}
	// The browser link is driven by the service through the hub, which
	// owns the connected browsers (it makes and registers their links):
	// only the two of them may import it, and cdpsub, whose subscriptions
	// listen on a link's events (browserlink.Subscriber, Queue), tabdata,
	// whose download wait listens on them the same way, the page methods,
	// whose calls end when their tab's link says it closed or detached (a
	// browserlink.Subscriber, through their Tab), the page methods and the
	// raw CDP methods, whose calls run again when nothing they sent reached
	// the page (browserlink.Again, a plain function: a closure handed to
	// it stays on the stack of every relayed call), and wireerr, which
	// words the link's errors (browserlink.Error, its refusals) with the
	// agents' codes and never calls it.
	for pkg, imps := range imports {
		for _, imp := range imps {
			switch pkg {
			case "internal/server/service", "internal/server/hub", "internal/server/cdpsub", "internal/server/tabdata", "internal/server/pagemethods", "internal/server/cdpmethods", "internal/server/wireerr":
			default:
				if imp == mod+"/internal/link/browserlink" {
					t.Errorf("%s imports browserlink: only service, hub, cdpsub, tabdata, pagemethods, cdpmethods and wireerr may", pkg)
				}
			}
		}
	}
	// The agents' error codes are a mapping of errors to the wire: of ours
	// wireerr knows the wire types, the errors it maps (the page engine's,
	// a tab's CDP session's, the browser link's and its wire's) and the
	// origin rules' reasons (pairing), and nothing that would run anything.
	onlyOurs("internal/server/wireerr", "wireerr", "it may use only protocol, the engine's and the link's errors, and pairing of ours",
		"protocol", "resolver", "refmap", "internal/engine/actions", "internal/engine/snapshot", "internal/engine/locator",
		"internal/link/cdptab", "internal/link/browserlink", "internal/link/extwire", "internal/server/pairing")
	// A subscription delivers a link's events: of ours cdpsub knows the
	// browser link and its wire, and the agents' wire types, not the
	// service that grants a subscription nor the hub that keeps the links
	// (its Browsers).
	onlyOurs("internal/server/cdpsub", "cdpsub", "it may use only protocol, browserlink and extwire of ours", "protocol", "internal/link/browserlink", "internal/link/extwire")
	// The raw CDP methods decide what a caller may send a tab: of ours
	// they know the wire types, the allow-list and origin words (pairing),
	// the confirmations' kinds, the URL kinds (weburl), the navigation
	// that crashes the browser (actions.AboutFragment), the extension's
	// CDP op and a page's children (extwire, cdptab) and the
	// subscriptions they start (cdpsub), and the run again of a call
	// nothing of which reached the page (browserlink.Again), not the
	// service that resolves the tab and judges the caller (its Call).
	onlyOurs("internal/server/cdpmethods", "cdpmethods", "it may use only protocol, pairing, confirm, weburl, actions, extwire, cdptab, browserlink and cdpsub of ours",
		"protocol", "internal/server/pairing", "internal/server/confirm", "internal/server/weburl", "internal/engine/actions",
		"internal/link/extwire", "internal/link/cdptab", "internal/link/browserlink", "internal/server/cdpsub")
	// The spaces methods' handlers decide and word; what they reach (the
	// call, the browsers, the rest of the service) is given them as their
	// own interfaces. Of ours they know the wire types, the spaces
	// registry, the extension's ops they send a browser (extwire), the
	// wire's units (actwire) and codes (wireerr) and the origin rules
	// (pairing): not the service, the hub or a browser link.
	onlyOurs("internal/server/spacemethods", "spacemethods", "it may use only protocol, spaces, extwire, actwire, wireerr and pairing of ours",
		"protocol", "internal/server/spaces", "internal/link/extwire", "internal/server/actwire", "internal/server/wireerr", "internal/server/pairing")
	// The browsers and tabs methods' handlers decide and word; the call,
	// the browsers as it reaches them (their tab checks) and the rest of
	// the service are given them as their own interfaces. Of ours they
	// know the wire types and params (protocol, rpcparams), the
	// extension's ops (extwire), goto's URL and load words (actwire), the
	// wire's codes (wireerr), the spaces registry a new tab goes into,
	// and a new origin's confirmation (pairing, confirm): not the
	// service, the hub or a browser link.
	onlyOurs("internal/server/tabmethods", "tabmethods", "it may use only protocol, rpcparams, extwire, actwire, wireerr, spaces, pairing and confirm of ours",
		"protocol", "internal/server/rpcparams", "internal/link/extwire", "internal/server/actwire", "internal/server/wireerr",
		"internal/server/spaces", "internal/server/pairing", "internal/server/confirm")
	// The methods of a tab's data decide what a call reads of a tab's
	// cookies, storage, records and downloads: of ours they know the wire
	// types, the page engine's records, storage and downloads (page), the
	// click that starts a download (actions, actwire), the browser link's
	// events and ops (browserlink, extwire), a caller's reach (cdptab),
	// the cookies' wire (cookiewire), the confirmations' kinds and words
	// (confirm, pairing's hosts) and the engine's errors on the wire
	// (wireerr), not the service that resolves the tab and judges the
	// caller (its Call).
	onlyOurs("internal/server/tabdata", "tabdata", "it may use only protocol, page, actions, browserlink, cdptab, extwire, actwire, confirm, cookiewire, pairing and wireerr of ours",
		"protocol", "internal/engine/page", "internal/engine/actions", "internal/link/browserlink", "internal/link/cdptab", "internal/link/extwire",
		"internal/server/actwire", "internal/server/confirm", "internal/server/cookiewire", "internal/server/pairing", "internal/server/wireerr")
	// The confirmations ask the person and answer the asks: of ours they
	// know the wire types, the policy and the asks waiting (confirm,
	// confirm/asks), the origin words (pairing), the audit line's fields,
	// strict params (rpcparams) and, to word and re-check the element an
	// action acts on, the engine's facts of it (actions); the call, its
	// tab and the browsers are the service's, behind the interfaces
	// confirmmethods declares, so it imports neither the service nor the
	// hub.
	onlyOurs("internal/server/confirmmethods", "confirmmethods", "it may use only protocol, confirm, confirm/asks, pairing, audit, rpcparams and actions of ours",
		"protocol", "internal/server/confirm", "internal/server/confirm/asks", "internal/server/pairing", "internal/server/audit",
		"internal/server/rpcparams", "internal/engine/actions")
	// The page methods' handlers run the page engine's actions on a tab
	// and word their results and errors: of ours they know the wire types,
	// the actions (a Runner, the dialog Chrome did not report), their wire
	// mapping (actwire) and codes (wireerr), the link's events that end a
	// call (browserlink, extwire), the confirmations' kinds and an act's
	// words (confirm, confirmmethods), the origin words (pairing) and a
	// screenshot's output file (filegate); the tab, the caller's checks,
	// confirmations and trace are the service's,
	// behind the interfaces pagemethods declares (Tab, Call, Service), so
	// it imports neither the service, the hub nor the resolver.
	onlyOurs("internal/server/pagemethods", "pagemethods", "it may use only protocol, actions, actwire, wireerr, browserlink, extwire, confirm, confirmmethods, pairing and filegate of ours",
		"protocol", "internal/engine/actions", "internal/server/actwire", "internal/server/wireerr", "internal/link/browserlink",
		"internal/link/extwire", "internal/server/confirm", "internal/server/confirmmethods", "internal/server/pairing", "internal/server/filegate")
	noIO := []string{"refmap", "internal/engine/locator"}
	for _, pkg := range noIO {
		for _, imp := range imports[pkg] {
			switch imp {
			case "os", "net", "net/http", "os/exec", "io/ioutil":
				t.Errorf("%s imports %s: it must do no I/O", pkg, imp)
			}
		}
	}
	for pkg, imps := range imports {
		for _, imp := range imps {
			if strings.HasPrefix(imp, mod+"/cmd/") || (strings.HasPrefix(imp, mod+"/e2e")) {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}

// TestLayers keeps internal/ in its layers (the README's "Layout"): the
// browser side (internal/link) knows no page logic and no server; the
// page engine (internal/engine, with resolver and refmap at the root)
// knows no server and no front end; the front ends (internal/front) reach
// the service through its wire only; the setup (internal/setup) does not
// run the service; and only tests import the test kit.
func TestLayers(t *testing.T) {
	const mod = "github.com/egohost/egohost/"
	under := func(pkg string, prefixes ...string) bool {
		for _, p := range prefixes {
			if pkg == strings.TrimSuffix(p, "/") || strings.HasPrefix(pkg, p) {
				return true
			}
		}
		return false
	}
	type rule struct {
		from   []string // the packages the rule is for, by path prefix
		not    []string // of those, the ones it is not for
		banned []string // what they may not import, by path prefix
		except []string // exact packages allowed all the same
		why    string
	}
	rules := []rule{
		{[]string{"internal/link/"}, nil, []string{"internal/engine/", "internal/server/", "internal/front/", "internal/setup/", "resolver", "refmap"}, nil,
			"the browser side carries CDP and the extension's ops; it knows no page logic and no server"},
		{[]string{"internal/engine/", "resolver", "refmap"}, nil, []string{"internal/server/", "internal/front/", "internal/setup/", "client"}, []string{"internal/server/confirm"},
			"the page engine knows no server and no front end (only the facts a confirmation names)"},
		{[]string{"internal/front/"}, nil, []string{"internal/server/service", "internal/link/", "internal/engine/", "resolver", "refmap"}, []string{"internal/engine/locator"},
			"a front end reaches the service over its wire (it may parse a locator, and read the audit log and the file rules of the person's disk)"},
		{[]string{"internal/setup/"}, nil, []string{"internal/server/service", "internal/front/", "internal/engine/"}, nil,
			"setup writes files and starts browsers; it does not run the service or a front end"},
		{[]string{"internal/", "client", "protocol", "nativemsg", "install", "resolver", "refmap", "extension"}, []string{"internal/front/"}, []string{"internal/front/"}, nil,
			"only the commands wire the front ends"},
		{[]string{"protocol", "client"}, nil, []string{"internal/server/", "internal/engine/", "internal/link/", "internal/front/", "internal/setup/", "resolver", "refmap"}, nil,
			"the public packages are the agents' API: wire types and a client"},
	}
	for pkg, imps := range moduleImports(t) {
		for _, full := range imps {
			if !strings.HasPrefix(full, mod) {
				continue
			}
			imp := strings.TrimPrefix(full, mod)
			if under(imp, "internal/testkit/") && !under(pkg, "internal/testkit/") {
				t.Errorf("%s imports %s: only tests import the test kit", pkg, imp)
			}
			for _, r := range rules {
				if !under(pkg, r.from...) || under(pkg, r.not...) || !under(imp, r.banned...) || slices.Contains(r.except, imp) {
					continue
				}
				t.Errorf("%s imports %s: %s", pkg, imp, r.why)
			}
		}
	}
}

// moduleImports lists, for each package of the module (its path in the
// module, "" for the root), the packages its non-test files import.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/egohost/egohost"
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(f[0], mod), "/")
		imports[pkg] = f[1:]
	}
	return imports
}
