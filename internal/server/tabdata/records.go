package tabdata

import (
	"context"

	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/protocol"
)

// console.list and network.list read the tab's record (page.Record).

// tabRecordOf opens the target's page (which starts its recording) and
// returns its record.
func tabRecordOf(ctx context.Context, c Call, t protocol.Target) (*page.Record, int, error) {
	b, id, err := c.Target(ctx, t)
	if err != nil {
		return nil, 0, err
	}
	rec, err := b.Record(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	if rec == nil {
		return nil, 0, protocol.Errorf(protocol.CodeDetached, "tab %d was detached", id)
	}
	return rec, id, nil
}

// ConsoleList is console.list: the tab's console messages of a level and
// above, those of documents the caller may not reach withheld.
func (m *Methods) ConsoleList(ctx context.Context, c Call, p protocol.ConsoleListParams) (any, error) {
	if p.Level == "" {
		p.Level = "debug"
	}
	if !page.KnownLevel(p.Level) {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "console.list: level %q is not debug, info, warning or error", p.Level)
	}
	rec, id, err := tabRecordOf(ctx, c, p.Target)
	if err != nil {
		return nil, err
	}
	msgs, dropped := rec.ConsoleMessages(p.Level, p.Clear, c.Reach())
	return protocol.ConsoleListResult{Tab: id, Messages: msgs, Dropped: dropped}, nil
}

// NetworkList is network.list: the tab's requests, those of documents
// the caller may not reach withheld.
func (m *Methods) NetworkList(ctx context.Context, c Call, p protocol.NetworkListParams) (any, error) {
	rec, id, err := tabRecordOf(ctx, c, p.Target)
	if err != nil {
		return nil, err
	}
	reqs, dropped := rec.NetworkRequests(p.Static, p.Clear, c.Reach())
	return protocol.NetworkListResult{Tab: id, Requests: reqs, Dropped: dropped}, nil
}

// NetworkRequest is network.request: one recorded request's headers and,
// on request, its bodies, which Chrome keeps for a while. The headers
// are what the tab's record kept of the request's events (page.Record);
// the bodies are asked of Chrome by the request's ID, never by an ID the
// agent gives: an agent reads only its own tab's requests, and only of
// origins its rules let it read (a body read this way is past CORS).
func (m *Methods) NetworkRequest(ctx context.Context, c Call, p protocol.NetworkRequestParams) (any, error) {
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
	tab, err := c.Tab(ctx, p.Target, "network.request")
	if err != nil {
		return nil, err
	}
	rec := tab.Record()
	if rec == nil {
		return nil, protocol.Errorf(protocol.CodeDetached, "network.request: tab %d was detached", tab.ID())
	}
	req, ok := rec.Request(p.ID, c.Reach())
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "network.request: tab %d's record has no request %d (%s; list them with network.list)", tab.ID(), p.ID, rec.IDRange())
	}
	// A request's headers and bodies are the origin's it went to, read
	// past CORS: they follow the agent's origin rules as Network.getResponseBody does.
	if err := c.CheckOriginRead(req.URL); err != nil {
		return nil, err
	}
	res := protocol.NetworkRequestResult{Tab: tab.ID(), Request: req.NetworkRequest, RequestHeaders: req.RequestHeaders, ResponseHeaders: req.ResponseHeaders}
	if res.RequestHeaders == nil {
		res.RequestHeaders = map[string]string{}
	}
	if !p.Body {
		return res, nil
	}
	res.RequestBody = req.RequestBody(ctx, tab.Session(), limit)
	res.ResponseBody = req.ResponseBody(ctx, tab.Session(), limit)
	return res, nil
}
