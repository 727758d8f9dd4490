package tabdata

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/cookiewire"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// cookieTab returns the target's browser, main session and its main frame's URL,
// which must be http(s): cookies belong to an origin. That URL, read now,
// is the one the caller's origin rules judge and the only one whose
// cookies are read or written: a page that moved since the tab was
// checked is judged where it is.
func cookieTab(ctx context.Context, c Call, t protocol.Target, op string) (Browser, cdp.Session, int, string, error) {
	b, id, err := c.Target(ctx, t)
	if err != nil {
		return nil, nil, 0, "", err
	}
	sess := b.Session(id)
	var tree cdppage.GetFrameTreeResult
	if err := sess.Call(ctx, cdppage.CommandGetFrameTree, nil, &tree); err != nil {
		return nil, nil, 0, "", err
	}
	if tree.FrameTree == nil || tree.FrameTree.Frame == nil {
		return nil, nil, 0, "", protocol.Errorf(protocol.CodeInternal, "%s: tab %d has no main frame", op, id)
	}
	u := tree.FrameTree.Frame.URL
	if err := c.Reach().Check(u, tree.FrameTree.Frame.SecurityOrigin, false); err != nil {
		return nil, nil, 0, "", wireerr.Classify(err)
	}
	if err := cookiewire.CheckURL(op, id, u); err != nil {
		return nil, nil, 0, "", err
	}
	return b, sess, id, u, nil
}

func tabCookies(ctx context.Context, sess cdp.Session, u, name string) ([]protocol.Cookie, error) {
	var res network.GetCookiesResult
	if err := sess.Call(ctx, network.CommandGetCookies, network.GetCookiesParams{URLs: []string{u}}, &res); err != nil {
		return nil, err
	}
	return cookiewire.Cookies(res.Cookies, name), nil
}

// CookiesGet is cookies.get: the cookies of the tab's page (one by name,
// or all).
func (m *Methods) CookiesGet(ctx context.Context, c Call, p protocol.CookiesGetParams) (any, error) {
	_, sess, id, u, err := cookieTab(ctx, c, p.Target, "cookies.get")
	if err != nil {
		return nil, err
	}
	cookies, err := tabCookies(ctx, sess, u, p.Name)
	if err != nil {
		return nil, err
	}
	return protocol.CookiesResult{Tab: id, URL: u, Cookies: cookies}, nil
}

// CookiesSet is cookies.set: one cookie of the tab's page, once the
// person says yes when the caller's policy asks, and as Chrome kept it.
func (m *Methods) CookiesSet(ctx context.Context, c Call, p protocol.CookiesSetParams) (any, error) {
	if err := p.Check(protocol.MethodCookiesSet); err != nil {
		return nil, err
	}
	b, sess, id, u, err := cookieTab(ctx, c, p.Target, "cookies.set")
	if err != nil {
		return nil, err
	}
	q := protocol.Confirm{Action: confirm.DescribeCookies("set", []string{p.Name}, cookiewire.SetDomain(p, u)), Browser: b.ID(), Tab: id}
	if err := c.Confirm(ctx, confirm.CookieWrite, u, q); err != nil {
		return nil, err
	}
	if err := sess.Call(ctx, network.CommandSetCookie, cookiewire.SetParams(p, u), nil); err != nil {
		return nil, err
	}
	cookies, err := tabCookies(ctx, sess, u, p.Name)
	if err != nil {
		return nil, err
	}
	if len(cookies) == 0 {
		// Chrome refused it silently (a Secure cookie on http, a domain
		// that is not the page's, …).
		return nil, protocol.Errorf(protocol.CodeUnsupported, "cookies.set: Chrome did not keep cookie %q for %s (check domain, path, secure and sameSite)", p.Name, u)
	}
	return protocol.CookiesResult{Tab: id, URL: u, Cookies: cookies}, nil
}

// CookiesClear is cookies.clear: it deletes the cookies of the tab's page
// (one by name, or all), once the person says yes when the caller's
// policy asks.
func (m *Methods) CookiesClear(ctx context.Context, c Call, p protocol.CookiesClearParams) (any, error) {
	b, sess, id, u, err := cookieTab(ctx, c, p.Target, "cookies.clear")
	if err != nil {
		return nil, err
	}
	cookies, err := tabCookies(ctx, sess, u, p.Name)
	if err != nil {
		return nil, err
	}
	if len(cookies) > 0 && c.MayAsk(confirm.CookieWrite) {
		// The cookies read now are those cleared after a yes (by name,
		// domain and path): a cookie the page sets meanwhile stays.
		names, domains := cookiewire.Cleared(cookies)
		q := protocol.Confirm{Action: confirm.DescribeCookies("clear", names, domains), Browser: b.ID(), Tab: id}
		if err := c.Confirm(ctx, confirm.CookieWrite, u, q); err != nil {
			return nil, err
		}
	}
	for _, c := range cookies {
		if err := sess.Call(ctx, network.CommandDeleteCookies, cookiewire.DeleteParams(c), nil); err != nil {
			return nil, err
		}
	}
	return protocol.CookiesClearResult{Tab: id, URL: u, Deleted: len(cookies)}, nil
}
