package cdpmethods

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/target"
	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/protocol"
)

// tab is a fake browser's tab 7 on https://example.com/a: its history
// (entries 3 on www.bank.example, 4 the tab's page, 5 on example.com),
// its main frame, its two requests egohost recorded, and two child
// sessions: C1, an out-of-process frame that attached on about:blank and
// shows https://example.com/frame now, and C2 on the extension's popup.
func tab(url string) *fakeLink {
	sess := cdpfake.New()
	sess.Reply("Page.getNavigationHistory", map[string]any{"currentIndex": 1, "entries": []any{
		map[string]any{"id": 3, "url": "https://www.bank.example/", "userTypedURL": "", "title": "", "transitionType": "link"},
		map[string]any{"id": 4, "url": url, "userTypedURL": "", "title": "", "transitionType": "link"},
		map[string]any{"id": 5, "url": "https://example.com/b", "userTypedURL": "", "title": "", "transitionType": "link"},
	}})
	sess.Reply("Page.getFrameTree", map[string]any{"frameTree": map[string]any{"frame": map[string]any{"id": "MAIN", "loaderId": "L", "url": url, "securityOrigin": "", "mimeType": "text/html"}}})
	for id, shows := range map[string]string{"C1": "https://example.com/frame", "C2": "chrome-extension://abcdefghijklmnopabcdefghijklmnop/popup.html"} {
		kid := sess.AddChild(cdptab.Child{SessionID: target.SessionID(id), Type: "iframe", URL: "about:blank"})
		kid.Reply("Target.getTargetInfo", map[string]any{"targetInfo": map[string]any{"targetId": id, "type": "iframe", "title": "", "url": shows, "attached": true, "canAccessOpener": false}})
	}
	return &fakeLink{id: "B1", url: url, sess: sess, reply: json.RawMessage(`{"ok":true}`), own: egohostWorlds, requests: map[string]string{
		"r1": "https://api.bank.example/me",
		"r2": "https://example.com/data",
	}}
}

// egohostWorlds are the tab's contexts of egohost's own worlds: 3 in its
// own session, 4 in C1's, and one known by its unique ID.
var egohostWorlds = map[string]bool{"/3": true, "C1/4": true, "-77.-88": true}

// bankFrame is a tab's frames: the page, and a frame of a denied origin.
var bankFrame = []string{"https://example.com/a", "https://pay.bank.example/card"}

// TestChecks is every decision of cdp.send's access checks: each refusal
// (its code, and nothing sent to the browser) and each call let through,
// for a paired agent whose origin rules deny bank.example, and for the
// owner.
func TestChecks(t *testing.T) {
	const (
		sent        = protocol.Code(0)
		scopeDenied = protocol.CodeScopeDenied
		forbidden   = protocol.CodeForbiddenOriginScope
	)
	tests := []struct {
		name      string
		owner     bool   // the owner calls (no allow-list, no origin rules)
		noRules   bool   // the paired agent has no origin rules
		url       string // the tab's ("" https://example.com/a)
		pageErr   error
		frames    []string // the URLs of the tab's frames
		method    string
		params    string
		sessionID string
		want      protocol.Code
		wantIn    string // in the error's message
	}{
		// The allow-list (pairing.CheckCDPMethod).
		{name: "an allowed method", method: "Runtime.evaluate", params: `{"expression":"1"}`, want: sent},
		{name: "set files", method: "DOM.setFileInputFiles", params: `{"files":["/etc/passwd"],"backendNodeId":1}`, want: scopeDenied},
		{name: "all cookies", method: "Network.getAllCookies", want: scopeDenied},
		{name: "storage cookies", method: "Storage.getCookies", want: scopeDenied},
		{name: "new target", method: "Target.createTarget", params: `{"url":"https://example.com/"}`, want: scopeDenied},
		{name: "unknown method", method: "Page.someNewMethod", want: scopeDenied},
		{name: "owner: set files", owner: true, method: "DOM.setFileInputFiles", params: `{"files":["/etc/hostname"],"backendNodeId":1}`, want: sent},

		// Child sessions.
		{name: "a session of no tab", method: "Runtime.evaluate", sessionID: "NOT-A-CHILD", want: scopeDenied, wantIn: "is not a child session of tab 7"},
		{name: "a child session on a page it may read", method: "Runtime.evaluate", sessionID: "C1", want: sent},
		{name: "a child session on the popup", method: "Runtime.evaluate", sessionID: "C2", want: scopeDenied, wantIn: "is a browser, DevTools or extension page"},
		{name: "the tab's page does not open", pageErr: protocol.Errorf(protocol.CodeDetached, "tab 7 was detached"), method: "Runtime.evaluate", sessionID: "C1", want: protocol.CodeDetached},
		{name: "owner: a session of no tab", owner: true, method: "Runtime.evaluate", sessionID: "NOT-A-CHILD", want: sent},

		// Navigations (pairing.CheckNavigation).
		{name: "navigate without a url", method: "Page.navigate", params: `{}`, want: scopeDenied, wantIn: "it needs a url"},
		{name: "navigate to the popup", method: "Page.navigate", params: `{"url":"chrome-extension://abcdefghijklmnopabcdefghijklmnop/popup.html"}`, want: scopeDenied},
		{name: "navigate to the popup, spelt oddly", method: "Page.navigate", params: `{"url":"CHROME-EXTENSION://abcdefghijklmnopabcdefghijklmnop/popup.html"}`, want: scopeDenied},
		{name: "navigate to chrome:", method: "Page.navigate", params: `{"url":"chrome://settings"}`, want: scopeDenied},
		{name: "navigate to view-source of chrome:", method: "Page.navigate", params: `{"url":"view-source:chrome://settings"}`, want: scopeDenied},
		{name: "navigate to javascript:", method: "Page.navigate", params: `{"url":"javascript:alert(1)"}`, want: scopeDenied},
		{name: "navigate to a bare host", method: "Page.navigate", params: `{"url":"localhost:8080"}`, want: scopeDenied},
		{name: "navigate to a denied origin", method: "Page.navigate", params: `{"url":"https://www.bank.example/"}`, want: forbidden},
		{name: "navigate on the web", method: "Page.navigate", params: `{"url":"https://example.org/"}`, want: sent},
		{name: "back to a denied origin", method: "Page.navigateToHistoryEntry", params: `{"entryId":3}`, want: forbidden},
		{name: "forward to an allowed one", method: "Page.navigateToHistoryEntry", params: `{"entryId":5}`, want: sent},
		{name: "an entry the tab does not have", method: "Page.navigateToHistoryEntry", params: `{"entryId":99}`, want: sent},
		// Chrome reads names as they are spelt; so do the checks: a "URL"
		// beside the "url" is another member, which Chrome ignores.
		{name: "navigate to a denied origin, an allowed URL beside it", method: "Page.navigate", params: `{"url":"https://www.bank.example/","URL":"https://example.org/"}`, want: forbidden},
		{name: "navigate to the popup, a Url beside it", method: "Page.navigate", params: `{"url":"chrome-extension://abcdefghijklmnopabcdefghijklmnop/popup.html","Url":"https://example.org/"}`, want: scopeDenied},
		{name: "owner: navigate to the popup", owner: true, method: "Page.navigate", params: `{"url":"chrome-extension://abcdefghijklmnopabcdefghijklmnop/popup.html"}`, want: sent},

		// The navigation that crashes the browser: refused to everyone.
		{name: "a fragment of about:blank", url: "about:blank", method: "Page.navigate", params: `{"url":"about:blank#x"}`, want: protocol.CodeUnsupported, wantIn: "crashes the whole browser"},
		{name: "owner: a fragment of about:blank", owner: true, url: "about:blank", method: "Page.navigate", params: `{"url":"about:blank#x"}`, want: protocol.CodeUnsupported},
		{name: "a fragment of about:blank in a child frame", url: "about:blank", method: "Page.navigate", params: `{"url":"about:blank#x","frameId":"CHILD"}`, want: sent},
		{name: "a fragment of about:blank, a URL beside it", url: "about:blank", method: "Page.navigate", params: `{"url":"about:blank#x","URL":"https://example.org/"}`, want: protocol.CodeUnsupported},
		{name: "a fragment of about:blank from another page", method: "Page.navigate", params: `{"url":"about:blank#x"}`, want: sent},

		// Cookies (pairing.CheckOwnCookies): the tab's origin only.
		{name: "cookies of another origin", method: "Network.getCookies", params: `{"urls":["https://bank.example/"]}`, want: scopeDenied},
		{name: "cookies without urls", method: "Network.getCookies", want: scopeDenied},
		{name: "cookies of its origin", method: "Network.getCookies", params: `{"urls":["https://example.com/x"]}`, want: sent},
		{name: "cookies of another origin, its own beside them", method: "Network.getCookies", params: `{"urls":["https://bank.example/"],"Urls":["https://example.com/x"]}`, want: scopeDenied},
		{name: "set a cookie for another domain", method: "Network.setCookie", params: `{"name":"a","value":"b","domain":".bank.example"}`, want: scopeDenied},
		{name: "set a cookie for its domain", method: "Network.setCookie", params: `{"name":"a","value":"b","url":"https://example.com/"}`, want: sent},
		{name: "owner: cookies of another origin", owner: true, method: "Network.getCookies", params: `{"urls":["https://bank.example/"]}`, want: sent},

		// egohost's own worlds (pairing.CheckWorldName): its engine takes a
		// world of its name in a new document for its own.
		{name: "a world named egohost", method: "Page.createIsolatedWorld", params: `{"frameId":"MAIN","worldName":"egohost"}`, want: scopeDenied, wantIn: `a worldName that starts with "egohost" is egohost's own`},
		{name: "a world named as the overlay's", method: "Page.createIsolatedWorld", params: `{"frameId":"MAIN","worldName":"egohost-overlay"}`, want: scopeDenied},
		{name: "a world of its own", method: "Page.createIsolatedWorld", params: `{"frameId":"MAIN","worldName":"mine"}`, want: sent},
		{name: "a world without a name", method: "Page.createIsolatedWorld", params: `{"frameId":"MAIN"}`, want: sent},
		{name: "owner: a world named egohost", owner: true, method: "Page.createIsolatedWorld", params: `{"frameId":"MAIN","worldName":"egohost"}`, want: sent},

		// Resources read past CORS (pairing.CheckOriginRead).
		{name: "a denied origin's script", method: "Page.getResourceContent", params: `{"frameId":"F","url":"https://cdn.bank.example/app.js"}`, want: forbidden},
		{name: "an allowed origin's script", method: "Page.getResourceContent", params: `{"frameId":"F","url":"https://example.com/app.js"}`, want: sent},
		{name: "a response egohost did not record", method: "Network.getResponseBody", params: `{"requestId":"1000.1"}`, want: scopeDenied, wantIn: "is not one egohost recorded on tab 7"},
		{name: "a denied origin's response", method: "Network.getResponseBody", params: `{"requestId":"r1"}`, want: forbidden},
		{name: "an allowed origin's response", method: "Network.getResponseBody", params: `{"requestId":"r2"}`, want: sent},
		{name: "any response, without origin rules", noRules: true, method: "Network.getResponseBody", params: `{"requestId":"1000.1"}`, want: sent},
		{name: "a denied origin's posted body", method: "Network.getRequestPostData", params: `{"requestId":"r1"}`, want: forbidden},
		{name: "an allowed origin's posted body", method: "Network.getRequestPostData", params: `{"requestId":"r2"}`, want: sent},
		{name: "a posted body egohost did not record", method: "Network.getRequestPostData", params: `{"requestId":"1000.1"}`, want: scopeDenied},
		{name: "a denied origin's request sent again", method: "Network.replayXHR", params: `{"requestId":"r1"}`, want: forbidden},
		{name: "an allowed origin's request sent again", method: "Network.replayXHR", params: `{"requestId":"r2"}`, want: sent},

		// A tab that shows a frame the agent may not reach: no raw CDP at
		// all, whatever the method (its DOM and scripts, pixels, input).
		{name: "evaluate on a tab showing a denied frame", frames: bankFrame, method: "Runtime.evaluate", params: `{"expression":"1"}`, want: forbidden, wantIn: "tab 7 shows a frame of https://pay.bank.example"},
		{name: "a screenshot of a tab showing a denied frame", frames: bankFrame, method: "Page.captureScreenshot", want: forbidden},
		{name: "a click on a tab showing a denied frame", frames: bankFrame, method: "Input.dispatchMouseEvent", params: `{"type":"mousePressed","x":10,"y":10,"button":"left","clickCount":1}`, want: forbidden},
		{name: "the DOM of a tab showing a denied frame", frames: bankFrame, method: "DOM.getDocument", params: `{"depth":-1,"pierce":true}`, want: forbidden},
		{name: "an extension's frame, without origin rules", noRules: true, frames: []string{"https://example.com/a", "chrome-extension://abcdefghijklmnopabcdefghijklmnop/menu.html"}, method: "Input.dispatchMouseEvent", params: `{"type":"mousePressed","x":10,"y":10}`, want: forbidden, wantIn: "chrome-extension://abcdefghijklmnopabcdefghijklmnop"},
		{name: "a tab whose frames are all allowed", frames: []string{"https://example.com/a", "https://ads.example.org/x"}, method: "Runtime.evaluate", params: `{"expression":"1"}`, want: sent},
		{name: "owner: a tab showing a denied frame", owner: true, frames: bankFrame, method: "Page.captureScreenshot", want: sent},

		// egohost's own worlds, named by context, unique ID, object or name.
		{name: "evaluate in egohost's world", method: "Runtime.evaluate", params: `{"expression":"1","contextId":3}`, want: scopeDenied, wantIn: "egohost's own isolated world"},
		{name: "evaluate in another context", method: "Runtime.evaluate", params: `{"expression":"1","contextId":5}`, want: sent},
		{name: "evaluate in egohost's world by its unique ID", method: "Runtime.evaluate", params: `{"expression":"1","uniqueContextId":"-77.-88"}`, want: scopeDenied},
		{name: "evaluate by another unique ID", method: "Runtime.evaluate", params: `{"expression":"1","uniqueContextId":"-1.-2"}`, want: sent},
		{name: "call on an object of egohost's world", method: "Runtime.callFunctionOn", params: `{"functionDeclaration":"function(){return globalThis}","objectId":"-4242.3.17"}`, want: scopeDenied},
		{name: "an object of egohost's world, its context spelt with a space", method: "Runtime.getProperties", params: `{"objectId":"-4242. 3.17"}`, want: scopeDenied},
		{name: "an object of egohost's world, its context spelt +03", method: "Runtime.getProperties", params: `{"objectId":"-4242.+03.17"}`, want: scopeDenied},
		{name: "an object ID V8 would refuse", method: "Runtime.getProperties", params: `{"objectId":"-4242.x3.17"}`, want: protocol.CodeInvalidParams},
		{name: "an object ID of two parts", method: "Runtime.getProperties", params: `{"objectId":"3.17"}`, want: protocol.CodeInvalidParams},
		{name: "egohost's unique ID spelt with leading zeros", method: "Runtime.evaluate", params: `{"expression":"1","uniqueContextId":" -077.-0088"}`, want: scopeDenied},
		{name: "a unique ID V8 would refuse", method: "Runtime.evaluate", params: `{"expression":"1","uniqueContextId":"junk"}`, want: protocol.CodeInvalidParams},
		{name: "call on an object of the page's world", method: "Runtime.callFunctionOn", params: `{"functionDeclaration":"function(){return 1}","objectId":"-4242.1.17"}`, want: sent},
		{name: "call in egohost's world by context", method: "Runtime.callFunctionOn", params: `{"functionDeclaration":"function(){}","executionContextId":3}`, want: scopeDenied},
		{name: "a frame's world of egohost, in its session", method: "Runtime.evaluate", params: `{"expression":"1","contextId":4}`, sessionID: "C1", want: scopeDenied},
		{name: "the same number in the tab's own session", method: "Runtime.evaluate", params: `{"expression":"1","contextId":4}`, want: sent},
		{name: "properties of egohost's objects", method: "Runtime.getProperties", params: `{"objectId":"1.3.2"}`, want: scopeDenied},
		{name: "a promise of egohost's world", method: "Runtime.awaitPromise", params: `{"promiseObjectId":"1.3.2"}`, want: scopeDenied},
		{name: "objects of a prototype in egohost's world", method: "Runtime.queryObjects", params: `{"prototypeObjectId":"1.3.2"}`, want: scopeDenied},
		{name: "an error of egohost's world", method: "Runtime.getExceptionDetails", params: `{"errorObjectId":"1.3.2"}`, want: scopeDenied},
		{name: "a node in egohost's world", method: "DOM.resolveNode", params: `{"backendNodeId":9,"executionContextId":3}`, want: scopeDenied},
		{name: "a node in the page's world", method: "DOM.resolveNode", params: `{"backendNodeId":9}`, want: sent},
		{name: "a binding in worlds of egohost's name", method: "Runtime.addBinding", params: `{"name":"leak","executionContextName":"egohost"}`, want: scopeDenied},
		{name: "a binding in egohost's world", method: "Runtime.addBinding", params: `{"name":"leak","executionContextId":3}`, want: scopeDenied},
		{name: "a binding in every world", method: "Runtime.addBinding", params: `{"name":"String"}`, want: scopeDenied, wantIn: "egohost's own too"},
		{name: "a binding in worlds of the agent's name", method: "Runtime.addBinding", params: `{"name":"mine","executionContextName":"mine"}`, want: sent},
		{name: "a binding in the page's world", method: "Runtime.addBinding", params: `{"name":"mine","executionContextId":1}`, want: sent},
		{name: "owner: a binding in every world", owner: true, method: "Runtime.addBinding", params: `{"name":"mine"}`, want: sent},
		{name: "a context ID as text", method: "Runtime.evaluate", params: `{"expression":"1","contextId":"3"}`, want: protocol.CodeInvalidParams},
		{name: "a mistyped object beside egohost's context", method: "Runtime.evaluate", params: `{"expression":"1","contextId":3,"objectId":7}`, want: protocol.CodeInvalidParams},
		{name: "owner: evaluate in egohost's world", owner: true, method: "Runtime.evaluate", params: `{"expression":"1","contextId":3}`, want: sent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := tt.url
			if url == "" {
				url = "https://example.com/a"
			}
			l := tab(url)
			l.pageErr, l.frames = tt.pageErr, tt.frames
			c := &fakeCall{paired: !tt.owner, link: l, tab: 7, subs: &fakeSubs{}}
			if !tt.owner && !tt.noRules {
				c.denied = "bank.example"
			}
			p := protocol.CDPSendParams{Target: protocol.Target{Tab: 7}, Method: tt.method, SessionID: tt.sessionID}
			if tt.params != "" {
				p.Params = json.RawMessage(tt.params)
			}
			_, err := New(&fakeService{top: url}, slog.New(slog.DiscardHandler)).Send(context.Background(), c, p)
			if tt.want == sent {
				if err != nil {
					t.Fatalf("got %v, want it sent", err)
				}
				if len(l.ops) != 1 || l.ops[0].Method != tt.method || l.ops[0].SessionID != tt.sessionID {
					t.Fatalf("the browser got %+v, want %s", l.ops, tt.method)
				}
				return
			}
			if protocol.CodeOf(err) != tt.want {
				t.Fatalf("got %v, want %s", err, tt.want.Name())
			}
			if len(l.ops) > 0 {
				t.Errorf("the refused %s reached the browser: %+v", tt.method, l.ops)
			}
			if !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("got %q, want it to say %q", err, tt.wantIn)
			}
			var pe *protocol.Error
			if tt.want == scopeDenied && (!errors.As(err, &pe) || pe.Data["method"] != tt.method || pe.Data["why"] == "") {
				t.Errorf("data: got %+v, want method %s and why", pe, tt.method)
			}
		})
	}
}

// The child session check reads what the child shows now, not the URL it
// attached on, and holds it to the caller's origin rules.
func TestChildSessionShowsNow(t *testing.T) {
	l := tab("https://example.com/a")
	c := &fakeCall{paired: true, link: l, tab: 7, denied: "example.com", subs: &fakeSubs{}}
	// C1 attached on about:blank, which the rules let through; it shows
	// https://example.com/frame now.
	_, err := New(&fakeService{}, slog.New(slog.DiscardHandler)).Send(context.Background(), c, protocol.CDPSendParams{Method: "Runtime.evaluate", SessionID: "C1"})
	if protocol.CodeOf(err) != protocol.CodeForbiddenOriginScope || len(l.ops) > 0 {
		t.Fatalf("got %v (the browser got %+v), want forbidden_origin_scope and nothing sent", err, l.ops)
	}
}

// The person is asked, when the agent's policy names the kind, before a
// raw navigation to another origin from the tab's own session and before
// a raw cookie write; the person's no is the call's answer, and nothing
// is sent.
func TestConfirmations(t *testing.T) {
	no := protocol.Errorf(protocol.CodeDeniedByPerson, "the person said no")
	tests := []struct {
		name      string
		kinds     []confirm.Kind
		method    string
		params    string
		sessionID string
		want      []protocol.Confirm // what the person is asked
		wantOn    []string           // about the URL
	}{
		{
			name: "navigate to another origin", kinds: []confirm.Kind{confirm.NavigateNewOrigin},
			method: "Page.navigate", params: `{"url":"https://example.org/x"}`,
			want:   []protocol.Confirm{{Action: confirm.DescribeNavigation("send Page.navigate to", "example.org", "example.com"), Browser: "B1", Tab: 7}},
			wantOn: []string{"https://example.org/x"},
		},
		{
			name: "go back to another origin", kinds: []confirm.Kind{confirm.NavigateNewOrigin},
			method: "Page.navigateToHistoryEntry", params: `{"entryId":3}`,
			want:   []protocol.Confirm{{Action: confirm.DescribeNavigation("send Page.navigateToHistoryEntry to", "www.bank.example", "example.com"), Browser: "B1", Tab: 7}},
			wantOn: []string{"https://www.bank.example/"},
		},
		{name: "navigate on the same origin", kinds: []confirm.Kind{confirm.NavigateNewOrigin}, method: "Page.navigate", params: `{"url":"https://example.com/b"}`},
		{name: "navigate a child session", kinds: []confirm.Kind{confirm.NavigateNewOrigin}, method: "Page.navigate", params: `{"url":"https://example.org/x"}`, sessionID: "C1"},
		{name: "navigate, with a policy that names no navigation", kinds: []confirm.Kind{confirm.CookieWrite}, method: "Page.navigate", params: `{"url":"https://example.org/x"}`},
		{
			name: "set a cookie", kinds: []confirm.Kind{confirm.CookieWrite},
			method: "Network.setCookie", params: `{"name":"a","value":"b","url":"https://example.com/"}`,
			want:   []protocol.Confirm{{Action: "send Network.setCookie on example.com", Browser: "B1", Tab: 7}},
			wantOn: []string{"https://example.com/a"},
		},
		{
			name: "delete cookies", kinds: []confirm.Kind{confirm.CookieWrite},
			method: "Network.deleteCookies", params: `{"name":"a","url":"https://example.com/"}`,
			want:   []protocol.Confirm{{Action: "send Network.deleteCookies on example.com", Browser: "B1", Tab: 7}},
			wantOn: []string{"https://example.com/a"},
		},
		{name: "read cookies", kinds: []confirm.Kind{confirm.CookieWrite}, method: "Network.getCookies", params: `{"urls":["https://example.com/x"]}`},
		{name: "set a cookie, with a policy that names no cookie write", kinds: []confirm.Kind{confirm.NavigateNewOrigin}, method: "Network.setCookie", params: `{"name":"a","value":"b","url":"https://example.com/"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, answer := range []error{nil, no} {
				l := tab("https://example.com/a")
				c := &fakeCall{paired: true, link: l, tab: 7, kinds: tt.kinds, answer: answer, subs: &fakeSubs{}}
				p := protocol.CDPSendParams{Method: tt.method, Params: json.RawMessage(tt.params), SessionID: tt.sessionID}
				_, err := New(&fakeService{top: l.url}, slog.New(slog.DiscardHandler)).Send(context.Background(), c, p)
				if diff := cmp.Diff(tt.want, c.asked); diff != "" {
					t.Fatalf("asked (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.wantOn, c.askedOn); diff != "" {
					t.Errorf("asked about (-want +got):\n%s", diff)
				}
				if answer == nil || len(tt.want) == 0 {
					if err != nil || len(l.ops) != 1 {
						t.Errorf("answer %v: got %v (the browser got %+v), want it sent", answer, err, l.ops)
					}
					continue
				}
				if !errors.Is(err, no) || len(l.ops) > 0 {
					t.Errorf("the person said no: got %v (the browser got %+v), want the no and nothing sent", err, l.ops)
				}
			}
		})
	}
}

// The names an agent may not give its worlds are those the link counts as
// egohost's own when Chrome reports a world made under them: one rule in
// two packages (pairing may import nothing of the link).
func TestWorldNamesAgree(t *testing.T) {
	for _, name := range []string{"egohost", "egohost-overlay", "egohostx", "", "mine", "Egohost", " egohost", "my-egohost"} {
		if a, b := pairing.EgohostWorld(name), browserlink.OwnWorldName(name); a != b {
			t.Errorf("world %q: pairing says egohost's %v, the link %v", name, a, b)
		}
	}
}

// V8's inspector reads the numbers of object and context IDs with C's
// strtoll: the check reads them the same way, or a spelling V8 takes
// would name a context the check did not see.
func TestV8Int(t *testing.T) {
	tests := []struct {
		in   string
		bits int
		want int64
		ok   bool
	}{
		{"3", 32, 3, true},
		{" \t3", 32, 3, true},
		{"+3", 32, 3, true},
		{"003", 32, 3, true},
		{"-12", 32, -12, true},
		{"", 32, 0, true},
		{"3 ", 32, 0, false},
		{"0x3", 32, 0, false},
		{"+", 32, 0, false},
		{"\u00a03", 32, 0, false},
		{"2147483648", 32, 0, false},
		{"99999999999999999999", 64, math.MaxInt64, true},
		{"-99999999999999999999", 64, math.MinInt64, true},
	}
	for _, tt := range tests {
		got, ok := v8Int(tt.in, tt.bits)
		if got != tt.want || ok != tt.ok {
			t.Errorf("v8Int(%q, %d): got %d, %v; want %d, %v", tt.in, tt.bits, got, ok, tt.want, tt.ok)
		}
	}
}
