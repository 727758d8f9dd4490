package service

import (
	"context"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"

	"github.com/egohost/egohost/internal/link/browserlink"
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
func (s *Service) cookieTab(ctx context.Context, c *call, t protocol.Target, op string) (*link, *browserlink.Session, int, string, error) {
	l, id, err := s.target(ctx, c, t)
	if err != nil {
		return nil, nil, 0, "", err
	}
	sess := l.Session(id)
	var tree page.GetFrameTreeResult
	if err := sess.Call(ctx, page.CommandGetFrameTree, nil, &tree); err != nil {
		return nil, nil, 0, "", err
	}
	if tree.FrameTree == nil || tree.FrameTree.Frame == nil {
		return nil, nil, 0, "", protocol.Errorf(protocol.CodeInternal, "%s: tab %d has no main frame", op, id)
	}
	u := tree.FrameTree.Frame.URL
	if err := s.reachFor(c.conn.grant).Check(u, tree.FrameTree.Frame.SecurityOrigin, false); err != nil {
		return nil, nil, 0, "", wireerr.Classify(err)
	}
	if err := cookiewire.CheckURL(op, id, u); err != nil {
		return nil, nil, 0, "", err
	}
	return l, sess, id, u, nil
}

func (s *Service) tabCookies(ctx context.Context, sess *browserlink.Session, u, name string) ([]protocol.Cookie, error) {
	var res network.GetCookiesResult
	if err := sess.Call(ctx, network.CommandGetCookies, network.GetCookiesParams{URLs: []string{u}}, &res); err != nil {
		return nil, err
	}
	return cookiewire.Cookies(res.Cookies, name), nil
}

func (s *Service) cookiesGet(ctx context.Context, c *call, p protocol.CookiesGetParams) (any, error) {
	_, sess, id, u, err := s.cookieTab(ctx, c, p.Target, "cookies.get")
	if err != nil {
		return nil, err
	}
	cookies, err := s.tabCookies(ctx, sess, u, p.Name)
	if err != nil {
		return nil, err
	}
	return protocol.CookiesResult{Tab: id, URL: u, Cookies: cookies}, nil
}

func (s *Service) cookiesSet(ctx context.Context, c *call, p protocol.CookiesSetParams) (any, error) {
	if err := p.Check(protocol.MethodCookiesSet); err != nil {
		return nil, err
	}
	l, sess, id, u, err := s.cookieTab(ctx, c, p.Target, "cookies.set")
	if err != nil {
		return nil, err
	}
	q := protocol.Confirm{Action: confirm.DescribeCookies("set", []string{p.Name}, cookiewire.SetDomain(p, u)), Browser: l.ID, Tab: id}
	if err := s.confirmCall(ctx, c, confirm.CookieWrite, u, q); err != nil {
		return nil, err
	}
	if err := sess.Call(ctx, network.CommandSetCookie, cookiewire.SetParams(p, u), nil); err != nil {
		return nil, err
	}
	cookies, err := s.tabCookies(ctx, sess, u, p.Name)
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

func (s *Service) cookiesClear(ctx context.Context, c *call, p protocol.CookiesClearParams) (any, error) {
	l, sess, id, u, err := s.cookieTab(ctx, c, p.Target, "cookies.clear")
	if err != nil {
		return nil, err
	}
	cookies, err := s.tabCookies(ctx, sess, u, p.Name)
	if err != nil {
		return nil, err
	}
	if len(cookies) > 0 && s.mayAsk(c, confirm.CookieWrite) {
		// The cookies read now are those cleared after a yes (by name,
		// domain and path): a cookie the page sets meanwhile stays.
		names, domains := cookiewire.Cleared(cookies)
		q := protocol.Confirm{Action: confirm.DescribeCookies("clear", names, domains), Browser: l.ID, Tab: id}
		if err := s.confirmCall(ctx, c, confirm.CookieWrite, u, q); err != nil {
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
