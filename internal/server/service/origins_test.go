package service

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/internal/server/hub"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/protocol"
)

// spaces.claim judges the tab against the agent's origin rules: a tab on
// a denied origin stays the person's, refused without naming its origin
// and before anything changes in the browser (no group is made).
func TestClaimChecksOriginRules(t *testing.T) {
	ext, bot := bankDenied(t, "*", "https://www.bank.example/login?token=s3cret")
	ext.answerAll(func(req map[string]any) map[string]any { // the browser: no tab groups yet; anything else is answered empty
		if req["op"] == "groups.add" {
			t.Errorf("the refused claim made a group: %v", req)
		}
		res := map[string]any{}
		if req["op"] == "groups.list" {
			res["groups"] = []any{}
		}
		return res
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var claimed protocol.SpaceResult
	err := bot.Call(ctx, protocol.MethodSpacesClaim, protocol.SpacesClaimParams{Target: protocol.Target{Tab: 7}}, &claimed)
	wantCode(t, err, protocol.CodeForbiddenOriginScope)
	if e := protocol.AsError(err); strings.Contains(e.Message, "bank") || e.Data["origin"] != nil {
		t.Errorf("the refusal names the person's tab's origin: %v %v", e.Message, e.Data)
	}
}

// cookies.get judges the URL whose cookies it reads, read at the moment
// of reading: a tab the service last heard on an allowed origin whose
// main frame is on a denied one now (it moved on since) gives no cookie,
// and Network.getCookies is never sent.
func TestCookiesJudgeTheURLTheyRead(t *testing.T) {
	ext, bot := bankDenied(t, "bot", "https://fine.example/")
	ext.answerAll(func(req map[string]any) map[string]any { // the browser: the tab's main frame is on the bank now
		res := map[string]any{}
		switch {
		case req["op"] == "groups.list":
			res["groups"] = []any{}
		case req["method"] == "Page.getFrameTree":
			res["frameTree"] = map[string]any{"frame": map[string]any{"id": "MAIN", "loaderId": "L", "url": "https://www.bank.example/account", "securityOrigin": "https://www.bank.example", "mimeType": "text/html"}}
		case req["method"] == "Network.getCookies":
			t.Errorf("cookies of %v were read", req["params"])
			res["cookies"] = []any{map[string]any{"name": "session", "value": "s3cret", "domain": "www.bank.example", "path": "/", "httpOnly": true}}
		}
		return res
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got protocol.CookiesResult
	err := bot.Call(ctx, protocol.MethodCookiesGet, map[string]any{"tab": 7}, &got)
	wantCode(t, err, protocol.CodeForbiddenOriginScope)
	if len(got.Cookies) > 0 {
		t.Errorf("cookies.get returned %+v", got.Cookies)
	}
}

// BenchmarkOriginCheck: what the origin rules add to a call in process,
// beside BenchmarkCallOverhead (the grant check and the audit line):
// checkScope on the tab's URL (the rules' canonicalisation and matching),
// and the reach handed to the page-level checks judging one document.
// The checks in the page cost no round trip of their own (they ride in
// evaluations that happen anyway): BenchmarkOriginChecks in e2e measures
// them through the chain.
func BenchmarkOriginCheck(b *testing.B) {
	s := benchService(b, func(o *Options) {
		o.OriginRules = map[string]pairing.Rules{
			"*":   {Deny: []string{"*.bank.example", "mail.example", "*.internal.example"}},
			"bot": {Deny: []string{"https://*.corp.example"}, Schemes: []string{"data"}},
		}
	})
	l := &link{Link: &hub.Link{ID: "b1"}}
	const url = "https://www.example.com/app/items?page=2#top"
	l.URLs.Set(7, url)
	g := grant{kind: grantPaired, name: "bot", scopes: []pairing.Scope{pairing.Space, pairing.AllTabs}}
	c := &call{conn: &agent{grant: g}, method: "click"}
	for b.Loop() {
		if err := s.checkScope(context.Background(), c, l, 7); err != nil {
			b.Fatal(err)
		}
		if ok, why := s.reachFor(g)(url, "https://www.example.com"); !ok {
			b.Fatal(errors.New(why))
		}
	}
}

// A dialog that a document the caller may not reach opened says so, and
// nothing of what that document wrote in it.
func TestDialogOfAWithheldDocument(t *testing.T) {
	reach := func(url, origin string) (bool, string) { return !strings.Contains(url, "bank"), "deny *.bank.example" }
	tc := &tabContext{reach: reach}
	bank := &protocol.Dialog{Type: "prompt", Message: "your PIN?", DefaultPrompt: "1234", URL: "https://www.bank.example/x"}
	got := tc.seen(bank)
	if strings.Contains(got.Message, "PIN") || got.DefaultPrompt != "" || got.URL != "" || !strings.Contains(got.Message, "withheld") {
		t.Errorf("a bank page's dialog as the agent sees it: %+v", got)
	}
	fine := &protocol.Dialog{Type: "alert", Message: "hello", URL: "https://fine.example/"}
	if got := tc.seen(fine); got != fine {
		t.Errorf("an allowed page's dialog: got %+v, want it as it is", got)
	}
	if got := (&tabContext{}).seen(bank); got != bank {
		t.Errorf("the owner sees the dialog as it is: got %+v", got)
	}
}

// bankDenied starts a service whose origin rules for who deny
// *.bank.example, a linked extension whose tab 7 is at url, and the
// agent "bot" paired with all-tabs.
func bankDenied(t *testing.T, who, url string) (*fakeExt, *client.Client) {
	t.Helper()
	f := newFixtureWith(t, func(o *Options) {
		o.OriginRules = map[string]pairing.Rules{who: {Deny: []string{"*.bank.example"}}}
	}, nil)
	ext := f.linkedExt(t)
	ext.Send(map[string]any{"event": "tab.updated", "tab": map[string]any{"id": 7, "url": url, "windowId": 1}})
	bot, _ := f.pairAgent(t, "bot", pairing.Space, pairing.AllTabs)
	waitForRegistry(t, f, 7)
	return ext, bot
}
