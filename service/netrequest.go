package service

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"

	"github.com/egohost/egohost/cdptab"
	"github.com/egohost/egohost/protocol"
)

// network.request: one recorded request's headers and, on request, its
// bodies, which Chrome keeps for a while. The headers are what the tab's
// record kept of the request's events (record.go); the bodies are asked of
// Chrome by the request's ID, never by an ID the agent gives: an agent
// reads only its own tab's requests, and only of origins its rules let it
// read (a body read this way is past CORS).

// Caps of what network.request keeps and answers.
const (
	maxRecordedHeaders = 64       // headers kept per request and response
	defaultBodyBytes   = 64 << 10 // a body's cap when the call names none
	maxBodyBytes       = 1 << 20  // the largest cap a call may ask for
)

// requestDetail is what the record keeps of a request beyond its line in
// network.list.
type requestDetail struct {
	requestHeaders  map[string]string
	responseHeaders map[string]string
	hasPostData     bool
	redirected      bool // a hop that ended in a redirect: its body is the next hop's
}

// headerMap keeps up to maxRecordedHeaders headers, each value clipped.
func headerMap(h map[string]any) map[string]string {
	if len(h) == 0 {
		return nil
	}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	out := make(map[string]string, min(len(names), maxRecordedHeaders))
	for _, k := range names[:min(len(names), maxRecordedHeaders)] {
		out[clip(k)] = clip(fmt.Sprint(h[k]))
	}
	return out
}

// request returns a copy of the request with that ID, its detail and
// Chrome's request ID.
func (r *tabRecord) request(id int, reach cdptab.Reach) (protocol.NetworkRequest, requestDetail, string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, req := range r.requests.all() {
		if req.ID != id {
			continue
		}
		if reach != nil {
			// A request a document the caller may not reach made is not
			// its to see, as in network.list.
			if ok, _ := reach(r.docs[req], ""); !ok || r.docs[req] == "" {
				return protocol.NetworkRequest{}, requestDetail{}, "", false
			}
		}
		var d requestDetail
		if p := r.details[req]; p != nil {
			d = *p
		}
		return *req, d, r.ids[req], true
	}
	return protocol.NetworkRequest{}, requestDetail{}, "", false
}

// idRange says which IDs the record holds, for an error message.
func (r *tabRecord) idRange() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := r.requests.all()
	if len(all) == 0 {
		return "it holds none"
	}
	return fmt.Sprintf("it holds %d to %d", all[0].ID, all[len(all)-1].ID)
}

// recordOf returns the record of a followed tab.
func (l *link) recordOf(tab int) *tabRecord {
	l.mu.Lock()
	t := l.tabs[tab]
	l.mu.Unlock()
	if t == nil {
		return nil
	}
	return t.rec.Load()
}

func (s *Service) networkRequest(ctx context.Context, c *call, p protocol.NetworkRequestParams) (any, error) {
	if p.ID <= 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "network.request: id must be a request's id from network.list (1, 2, …)")
	}
	if p.MaxBytes < 0 || p.MaxBytes > maxBodyBytes {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "network.request: maxBytes must be 0 (the default, %d) to %d", defaultBodyBytes, maxBodyBytes)
	}
	limit := p.MaxBytes
	if limit == 0 {
		limit = defaultBodyBytes
	}
	tc, err := s.tabContextWithin(ctx, c, p.Target, "network.request", 0)
	if err != nil {
		return nil, err
	}
	rec := tc.link.recordOf(tc.tabID)
	if rec == nil {
		return nil, protocol.Errorf(protocol.CodeDetached, "network.request: tab %d was detached", tc.tabID)
	}
	req, d, chromeID, ok := rec.request(p.ID, tc.reach)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "network.request: tab %d's record has no request %d (%s; list them with network.list)", tc.tabID, p.ID, rec.idRange())
	}
	// A request's headers and bodies are the origin's it went to, read
	// past CORS: they follow the agent's origin rules as Network.getResponseBody does.
	if err := s.checkOriginRead(c, req.URL); err != nil {
		return nil, err
	}
	res := protocol.NetworkRequestResult{Tab: tc.tabID, Request: req, RequestHeaders: d.requestHeaders, ResponseHeaders: d.responseHeaders}
	if res.RequestHeaders == nil {
		res.RequestHeaders = map[string]string{}
	}
	if !p.Body {
		return res, nil
	}
	res.RequestBody = requestBody(ctx, tc.page, chromeID, d, limit)
	res.ResponseBody = responseBody(ctx, tc.page, chromeID, req, d, limit)
	return res, nil
}

// requestBody asks Chrome for a request's post data.
func requestBody(ctx context.Context, s cdp.Session, chromeID string, d requestDetail, limit int) *protocol.Body {
	if !d.hasPostData {
		return &protocol.Body{Missing: "the request has no body"}
	}
	r, err := cdp.Call(ctx, s, network.GetRequestPostData, network.GetRequestPostDataParams{RequestID: network.RequestID(chromeID)})
	if err != nil {
		return &protocol.Body{Missing: "Chrome no longer holds it: " + err.Error()}
	}
	return cutBody(r.PostData, limit)
}

// responseBody asks Chrome for a response's body.
func responseBody(ctx context.Context, s cdp.Session, chromeID string, req protocol.NetworkRequest, d requestDetail, limit int) *protocol.Body {
	switch {
	case d.redirected:
		return &protocol.Body{Missing: "a redirect: the body is the next request's"}
	case req.Failed != "":
		return &protocol.Body{Missing: "the request failed: " + req.Failed}
	case !req.Finished:
		return &protocol.Body{Missing: "the response has not finished loading"}
	}
	r, err := cdp.Call(ctx, s, network.GetResponseBody, network.GetResponseBodyParams{RequestID: network.RequestID(chromeID)})
	if err != nil {
		return &protocol.Body{Missing: "Chrome no longer holds it: " + err.Error()}
	}
	return cutBody(r.Body, limit)
}

// cutBody keeps the first limit bytes of a body: text (valid UTF-8) cut
// at a character boundary, other bytes as base64.
func cutBody(body []byte, limit int) *protocol.Body {
	out := &protocol.Body{Bytes: len(body)}
	if !utf8.Valid(body) {
		if len(body) > limit {
			out.Cut, body = len(body)-limit, body[:limit]
		}
		out.Base64, out.Text = true, base64.StdEncoding.EncodeToString(body)
		return out
	}
	if len(body) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		out.Cut, body = len(body)-cut, body[:cut]
	}
	out.Text = string(body)
	return out
}
