package tabdata

import (
	"context"
	"errors"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/protocol"
)

// cookieCall is a call on tab 7, whose session shows pageURL ("": no
// main frame) with the cookies of jar; Network.setCookie adds its cookie
// to the jar unless Chrome refuses it (keep false).
func cookieCall(pageURL string, keep bool, jar ...*network.Cookie) (*fakeCall, *cdpfake.Session) {
	sess := cdpfake.New()
	tree := cdppage.GetFrameTreeResult{FrameTree: &cdppage.FrameTree{}}
	if pageURL != "" {
		tree.FrameTree.Frame = &cdp.Frame{URL: pageURL, SecurityOrigin: pairing.Origin(pageURL)}
	}
	sess.Reply(cdppage.CommandGetFrameTree, tree)
	cdpfake.HandleParams(sess, network.CommandGetCookies, func(context.Context, network.GetCookiesParams) (any, error) {
		return network.GetCookiesResult{Cookies: jar}, nil
	})
	cdpfake.HandleParams(sess, network.CommandSetCookie, func(_ context.Context, p network.SetCookieParams) (any, error) {
		if keep {
			jar = append(jar, &network.Cookie{Name: p.Name, Value: p.Value, Domain: pairing.Host(pageURL), Path: "/"})
		}
		return struct{}{}, nil
	})
	sess.Reply(network.CommandDeleteCookies, struct{}{})
	return &fakeCall{browser: &fakeBrowser{sess: sess}, tab: 7}, sess
}

// methodsCalled is what a session was asked, by method.
func methodsCalled(sess *cdpfake.Session) []string {
	var out []string
	for _, c := range sess.Calls() {
		out = append(out, c.Method)
	}
	return out
}

func session(name string) *network.Cookie {
	return &network.Cookie{Name: name, Value: "v-" + name, Domain: "example.com", Path: "/"}
}

// cookies.get reads the cookies of the URL the tab shows now, once the
// caller may reach it and it has cookies.
func TestCookiesGet(t *testing.T) {
	gone := protocol.Errorf(protocol.CodeTabNotFound, "no tab 7")
	tests := []struct {
		name     string
		page     string
		paired   bool
		targeted error
		want     []string // the cookies' names
		code     protocol.Code
	}{
		{name: "the owner's", page: "https://example.com/a", want: []string{"sid", "theme"}},
		{name: "a paired agent on its origin", page: "https://example.com/a", paired: true, want: []string{"sid", "theme"}},
		{name: "a page the agent may not reach", page: "https://bank.example/a", paired: true, code: protocol.CodeForbiddenOriginScope},
		{name: "a page without cookies", page: "chrome://newtab/", code: protocol.CodeUnsupported},
		{name: "no main frame", code: protocol.CodeInternal},
		{name: "no tab", targeted: gone, code: protocol.CodeTabNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, sess := cookieCall(tt.page, true, session("sid"), session("theme"))
			c.paired, c.denied, c.err = tt.paired, "bank.example", tt.targeted
			res, err := testMethods().CookiesGet(context.Background(), c, protocol.CookiesGetParams{})
			if got := codeOf(err); got != tt.code {
				t.Fatalf("got %v (%v), want code %v", got, err, tt.code)
			}
			if tt.code != 0 {
				if calls := methodsCalled(sess); len(calls) > 1 {
					t.Errorf("a refused call asked the tab %v", calls)
				}
				return
			}
			r := res.(protocol.CookiesResult)
			var names []string
			for _, c := range r.Cookies {
				names = append(names, c.Name)
			}
			if r.Tab != 7 || r.URL != tt.page || !cmp.Equal(names, tt.want) {
				t.Errorf("got tab %d, %s, %v; want tab 7, %s, %v", r.Tab, r.URL, names, tt.page, tt.want)
			}
		})
	}
}

// cookies.set sets one cookie once its params are sound and the person,
// when its policy asks, says yes; a cookie Chrome did not keep is an
// error.
func TestCookiesSet(t *testing.T) {
	no := protocol.Errorf(protocol.CodeDeniedByPerson, "the person said no")
	tests := []struct {
		name   string
		params protocol.CookiesSetParams
		asks   bool
		answer error
		keep   bool
		code   protocol.Code
		calls  []string // what the tab was asked
	}{
		{name: "set", params: protocol.CookiesSetParams{Name: "sid", Value: "1"}, keep: true,
			calls: []string{cdppage.CommandGetFrameTree, network.CommandSetCookie, network.CommandGetCookies}},
		{name: "the person says yes", params: protocol.CookiesSetParams{Name: "sid", Value: "1"}, asks: true, keep: true,
			calls: []string{cdppage.CommandGetFrameTree, network.CommandSetCookie, network.CommandGetCookies}},
		{name: "the person says no", params: protocol.CookiesSetParams{Name: "sid", Value: "1"}, asks: true, answer: no, keep: true,
			code: protocol.CodeDeniedByPerson, calls: []string{cdppage.CommandGetFrameTree}},
		{name: "Chrome keeps none", params: protocol.CookiesSetParams{Name: "sid", Value: "1"}, code: protocol.CodeUnsupported,
			calls: []string{cdppage.CommandGetFrameTree, network.CommandSetCookie, network.CommandGetCookies}},
		{name: "no name", params: protocol.CookiesSetParams{Value: "1"}, code: protocol.CodeInvalidParams},
		{name: "an unknown sameSite", params: protocol.CookiesSetParams{Name: "sid", SameSite: "Loose"}, code: protocol.CodeInvalidParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, sess := cookieCall("https://example.com/a", tt.keep)
			c.answer = tt.answer
			if tt.asks {
				c.kinds = []confirm.Kind{confirm.CookieWrite}
			}
			res, err := testMethods().CookiesSet(context.Background(), c, tt.params)
			if got := codeOf(err); got != tt.code {
				t.Fatalf("got %v (%v), want code %v", got, err, tt.code)
			}
			if d := cmp.Diff(tt.calls, methodsCalled(sess)); d != "" {
				t.Errorf("the tab's calls (-want +got):\n%s", d)
			}
			if tt.asks {
				want := []protocol.Confirm{{Action: confirm.DescribeCookies("set", []string{"sid"}, "example.com"), Browser: "b1", Tab: 7}}
				if d := cmp.Diff(want, c.asked); d != "" || c.askedOn[0] != "https://example.com/a" {
					t.Errorf("asked on %v (-want +got):\n%s", c.askedOn, d)
				}
			}
			if tt.code == 0 {
				if r := res.(protocol.CookiesResult); len(r.Cookies) != 1 || r.Cookies[0].Name != "sid" {
					t.Errorf("got %+v, want cookie sid", r)
				}
			}
		})
	}
}

// cookies.clear deletes the cookies read before it asks, and asks only
// when there is one to clear and its policy names cookie writes.
func TestCookiesClear(t *testing.T) {
	no := errors.New("the person said no")
	tests := []struct {
		name    string
		jar     []*network.Cookie
		asks    bool
		answer  error
		deleted int
		asked   int
		err     error
	}{
		{name: "nothing to clear", asks: true, asked: 0},
		{name: "two cookies", jar: []*network.Cookie{session("sid"), session("theme")}, deleted: 2},
		{name: "the person says yes", jar: []*network.Cookie{session("sid")}, asks: true, deleted: 1, asked: 1},
		{name: "the person says no", jar: []*network.Cookie{session("sid")}, asks: true, answer: no, asked: 1, err: no},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, sess := cookieCall("https://example.com/a", true, tt.jar...)
			c.answer = tt.answer
			if tt.asks {
				c.kinds = []confirm.Kind{confirm.CookieWrite}
			}
			res, err := testMethods().CookiesClear(context.Background(), c, protocol.CookiesClearParams{})
			if !errors.Is(err, tt.err) {
				t.Fatalf("got %v, want %v", err, tt.err)
			}
			if len(c.asked) != tt.asked {
				t.Errorf("asked %d times, want %d", len(c.asked), tt.asked)
			}
			deletes := 0
			for _, m := range methodsCalled(sess) {
				if m == network.CommandDeleteCookies {
					deletes++
				}
			}
			if deletes != tt.deleted {
				t.Errorf("deleted %d cookies, want %d", deletes, tt.deleted)
			}
			if err == nil {
				if r := res.(protocol.CookiesClearResult); r.Deleted != tt.deleted || r.Tab != 7 || r.URL != "https://example.com/a" {
					t.Errorf("got %+v, want %d deleted of tab 7", r, tt.deleted)
				}
			}
		})
	}
}
