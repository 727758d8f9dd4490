package service

import (
	"context"

	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/protocol"
)

// network.request: one recorded request's headers and, on request, its
// bodies, which Chrome keeps for a while. The headers are what the tab's
// record kept of the request's events (page.Record); the bodies are asked of
// Chrome by the request's ID, never by an ID the agent gives: an agent
// reads only its own tab's requests, and only of origins its rules let it
// read (a body read this way is past CORS).

func (s *Service) networkRequest(ctx context.Context, c *call, p protocol.NetworkRequestParams) (any, error) {
	if p.ID <= 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "network.request: id must be a request's id from network.list (1, 2, …)")
	}
	if p.MaxBytes < 0 || p.MaxBytes > page.MaxBodyBytes {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "network.request: maxBytes must be 0 (the default, %d) to %d", page.DefaultBodyBytes, page.MaxBodyBytes)
	}
	limit := p.MaxBytes
	if limit == 0 {
		limit = page.DefaultBodyBytes
	}
	tc, err := s.tabContextWithin(ctx, c, p.Target, "network.request", 0)
	if err != nil {
		return nil, err
	}
	rec := tc.link.Tabs.RecordOf(tc.tabID)
	if rec == nil {
		return nil, protocol.Errorf(protocol.CodeDetached, "network.request: tab %d was detached", tc.tabID)
	}
	req, ok := rec.Request(p.ID, tc.reach)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "network.request: tab %d's record has no request %d (%s; list them with network.list)", tc.tabID, p.ID, rec.IDRange())
	}
	// A request's headers and bodies are the origin's it went to, read
	// past CORS: they follow the agent's origin rules as Network.getResponseBody does.
	if err := s.checkOriginRead(c, req.URL); err != nil {
		return nil, err
	}
	res := protocol.NetworkRequestResult{Tab: tc.tabID, Request: req.NetworkRequest, RequestHeaders: req.RequestHeaders, ResponseHeaders: req.ResponseHeaders}
	if res.RequestHeaders == nil {
		res.RequestHeaders = map[string]string{}
	}
	if !p.Body {
		return res, nil
	}
	res.RequestBody = req.RequestBody(ctx, tc.page, limit)
	res.ResponseBody = req.ResponseBody(ctx, tc.page, limit)
	return res, nil
}

// console.list and network.list read the tab's record (page.Record).

// tabRecordOf opens the target's page (which starts its recording) and
// returns its record.
func (s *Service) tabRecordOf(ctx context.Context, c *call, t protocol.Target) (*page.Record, int, error) {
	l, id, err := s.target(ctx, c, t)
	if err != nil {
		return nil, 0, err
	}
	tab, _, err := l.Tabs.Open(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	rec := tab.Record()
	if rec == nil {
		return nil, 0, protocol.Errorf(protocol.CodeDetached, "tab %d was detached", id)
	}
	return rec, id, nil
}

func (s *Service) consoleList(ctx context.Context, c *call, p protocol.ConsoleListParams) (any, error) {
	if p.Level == "" {
		p.Level = "debug"
	}
	if !page.KnownLevel(p.Level) {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "console.list: level %q is not debug, info, warning or error", p.Level)
	}
	rec, id, err := s.tabRecordOf(ctx, c, p.Target)
	if err != nil {
		return nil, err
	}
	msgs, dropped := rec.ConsoleMessages(p.Level, p.Clear, s.reachFor(c.conn.grant))
	return protocol.ConsoleListResult{Tab: id, Messages: msgs, Dropped: dropped}, nil
}

func (s *Service) networkList(ctx context.Context, c *call, p protocol.NetworkListParams) (any, error) {
	rec, id, err := s.tabRecordOf(ctx, c, p.Target)
	if err != nil {
		return nil, err
	}
	reqs, dropped := rec.NetworkRequests(p.Static, p.Clear, s.reachFor(c.conn.grant))
	return protocol.NetworkListResult{Tab: id, Requests: reqs, Dropped: dropped}, nil
}
