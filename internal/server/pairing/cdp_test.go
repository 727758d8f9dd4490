package pairing

import (
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/protocol"
)

var update = flag.Bool("update", false, "rewrite the CDP table in ../PROTOCOL.md from the rules")

// What an attacker reaches for first (issue 22), and what an agent needs.
func TestCDPRuleOf(t *testing.T) {
	tests := []struct {
		method string
		allow  bool
		check  CDPCheck
	}{
		{"Runtime.evaluate", true, CheckNone},
		{"Input.dispatchMouseEvent", true, CheckNone},
		{"DOM.getDocument", true, CheckNone},
		{"Page.captureScreenshot", true, CheckNone},
		{"Page.navigate", true, CheckNavigation},
		{"Page.navigateToHistoryEntry", true, CheckNavigation},
		{"Network.getCookies", true, CheckOwnCookies},
		{"Network.setCookie", true, CheckOwnCookies},
		{"Network.deleteCookies", true, CheckOwnCookies},
		{"Network.getResponseBody", true, CheckOriginRead},
		{"Page.getResourceContent", true, CheckOriginRead},
		{"Network.getAllCookies", false, ""},
		{"Storage.getCookies", false, ""},
		{"Storage.clearDataForOrigin", false, ""},
		{"DOM.setFileInputFiles", false, ""},
		{"DOM.getFileInfo", false, ""},
		{"Target.createTarget", false, ""},
		{"Target.attachToTarget", false, ""},
		{"Target.setAutoAttach", false, ""},
		{"Target.setDiscoverTargets", false, ""},
		{"Target.exposeDevToolsProtocol", false, ""},
		{"Browser.setDownloadBehavior", false, ""},
		{"Browser.crash", false, ""},
		{"Browser.getVersion", true, CheckNone},
		{"Page.setDownloadBehavior", false, ""},
		{"Page.captureSnapshot", false, ""},
		{"Page.addScriptToEvaluateOnNewDocument", false, ""},
		{"Page.crash", false, ""},
		{"Page.disable", false, ""},
		{"Fetch.enable", false, ""},
		{"Debugger.enable", false, ""},
		{"Debugger.setBreakpointByUrl", false, ""},
		{"Tracing.start", false, ""},
		{"IO.read", true, CheckNone},
		{"SystemInfo.getInfo", false, ""},
		{"Security.setIgnoreCertificateErrors", false, ""},
		{"Network.loadNetworkResource", false, ""},
		{"Extensions.loadUnpacked", false, ""},
		{"Emulation.setDeviceMetricsOverride", true, CheckNone},
		{"Emulation.setVirtualTimePolicy", false, ""},
		{"Page.setWebLifecycleState", false, ""},
		{"Page.setFontFamilies", false, ""},
		{"Page.setFontSizes", false, ""},
		{"Page.someMethodChromeAddsLater", false, ""},
		{"Runtime.disable", false, ""},
		{"NoSuchDomain.method", false, ""},
		{"", false, ""},
		{"Page", false, ""},
	}
	for _, tt := range tests {
		r := CDPRuleOf(tt.method)
		if r.Allow != tt.allow || r.Check != tt.check {
			t.Errorf("%s: got allow %v, check %q; want allow %v, check %q", tt.method, r.Allow, r.Check, tt.allow, tt.check)
		}
		if !r.Allow && r.Why == "" {
			t.Errorf("%s is refused without saying why", tt.method)
		}
		if r.Method != tt.method {
			t.Errorf("%s: the rule names %q", tt.method, r.Method)
		}
	}
}

// Default deny: a rule for a whole domain only refuses (a method Chrome
// adds later is refused until it is listed), and every refusal says why.
func TestCDPRulesDenyByDefault(t *testing.T) {
	for _, r := range CDPRules() {
		if !strings.Contains(r.Method, ".") && r.Allow {
			t.Errorf("domain %s is allowed as a whole: list its methods instead", r.Method)
		}
		if !r.Allow && r.Why == "" {
			t.Errorf("%s is refused without a reason", r.Method)
		}
		if r.Allow && r.Why != "" {
			t.Errorf("%s is allowed with a reason to refuse it (%q)", r.Method, r.Why)
		}
	}
}

// PROTOCOL.md shows the rules as CDPTable renders them, between its
// markers (go test ./internal/server/pairing -run TestCDPTableInProtocol -update rewrites it).
func TestCDPTableInProtocol(t *testing.T) {
	const path = "../../../PROTOCOL.md"
	const begin, end = "<!-- cdp-rules:begin (generated: go test ./internal/server/pairing -run TestCDPTableInProtocol -update) -->\n", "<!-- cdp-rules:end -->"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("PROTOCOL.md has no %q … %q block", begin, end)
	}
	got, want := doc[i+len(begin):j], CDPTable()
	if *update {
		if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("PROTOCOL.md's CDP table is not the rules' (-rules +doc; rewrite it with -update):\n%s", d)
	}
}

// A method off the allow-list is refused with the scope it needs and why.
func TestCheckCDPMethod(t *testing.T) {
	for _, tt := range []struct {
		method string
		ok     bool
	}{
		{"Runtime.evaluate", true},
		{"DOM.setFileInputFiles", false},
		{"Target.createTarget", false},
		{"Page.someNewMethod", false},
	} {
		err := CheckCDPMethod(tt.method)
		if tt.ok {
			if err != nil {
				t.Errorf("%s: got %v, want it allowed", tt.method, err)
			}
			continue
		}
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeScopeDenied || pe.Data["method"] != tt.method || pe.Data["need"] != NeedCDP.String() || pe.Data["why"] == "" {
			t.Errorf("%s: got %v (data %v), want scope_denied with need, method and why", tt.method, err, pe)
		}
	}
}

// A raw navigation goes only where goto would, as goto writes it, and
// never to a browser, DevTools or extension page.
func TestCDPDestination(t *testing.T) {
	for _, tt := range []struct {
		dest string
		want string // "": refused
	}{
		{"https://example.org/", "https://example.org/"},
		{"chrome-extension://abcdefghijklmnopabcdefghijklmnop/popup.html", ""},
		{"CHROME-EXTENSION://abcdefghijklmnopabcdefghijklmnop/popup.html", ""},
		{"chrome://settings", ""},
		{"view-source:chrome://settings", ""},
		{"devtools://devtools/bundled/inspector.html", ""},
		{"javascript:alert(1)", ""},
		{"localhost:8080", ""},
	} {
		got, err := CDPDestination("Page.navigate", tt.dest)
		if got != tt.want {
			t.Errorf("%s: got %q (%v), want %q", tt.dest, got, err, tt.want)
		}
		if tt.want == "" && protocol.CodeOf(err) != protocol.CodeScopeDenied {
			t.Errorf("%s: got %v, want scope_denied", tt.dest, err)
		}
	}
}
