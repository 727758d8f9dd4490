package page

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/protocol"
)

// A recorded request's headers and, on request, its bodies, which Chrome
// keeps for a while. The headers are what the tab's record kept of the
// request's events (record.go); the bodies are asked of Chrome by the
// request's ID, never by an ID an agent gives.

// Caps of what a request's record keeps and its bodies answer.
const (
	maxRecordedHeaders = 64       // headers kept per request and response
	DefaultBodyBytes   = 64 << 10 // a body's cap when the call names none
	MaxBodyBytes       = 1 << 20  // the largest cap a call may ask for
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

// Request is one recorded request: its line in network.list, and what the
// record kept of it beyond that.
type Request struct {
	protocol.NetworkRequest
	RequestHeaders, ResponseHeaders map[string]string
	detail                          requestDetail
	chromeID                        string
}

// Request returns a copy of the request with that ID, when reach (nil:
// everything) allows the document that made it.
func (r *Record) Request(id int, reach cdptab.Reach) (Request, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, req := range r.requests.All() {
		if req.ID != id {
			continue
		}
		if reach != nil {
			// A request a document the caller may not reach made is not
			// its to see, as in network.list.
			if ok, _ := reach(r.docs[req], ""); !ok || r.docs[req] == "" {
				return Request{}, false
			}
		}
		var d requestDetail
		if p := r.details[req]; p != nil {
			d = *p
		}
		return Request{NetworkRequest: *req, RequestHeaders: d.requestHeaders, ResponseHeaders: d.responseHeaders, detail: d, chromeID: r.ids[req]}, true
	}
	return Request{}, false
}

// URLOf returns the URL of the request Chrome names requestID, while the
// record holds it.
func (r *Record) URLOf(requestID string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if req := r.byID[requestID]; req != nil {
		return req.URL, true
	}
	return "", false
}

// IDRange says which IDs the record holds, for an error message.
func (r *Record) IDRange() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := r.requests.All()
	if len(all) == 0 {
		return "it holds none"
	}
	return fmt.Sprintf("it holds %d to %d", all[0].ID, all[len(all)-1].ID)
}

// RequestBody asks Chrome, on the tab's session s, for the request's post
// data, cut at limit bytes.
func (q Request) RequestBody(ctx context.Context, s cdp.Session, limit int) *protocol.Body {
	if !q.detail.hasPostData {
		return &protocol.Body{Missing: "the request has no body"}
	}
	r, err := cdp.Call(ctx, s, network.GetRequestPostData, network.GetRequestPostDataParams{RequestID: network.RequestID(q.chromeID)})
	if err != nil {
		return &protocol.Body{Missing: "Chrome no longer holds it: " + err.Error()}
	}
	return cutBody(r.PostData, limit)
}

// ResponseBody asks Chrome, on the tab's session s, for the response's
// body, cut at limit bytes.
func (q Request) ResponseBody(ctx context.Context, s cdp.Session, limit int) *protocol.Body {
	switch {
	case q.detail.redirected:
		return &protocol.Body{Missing: "a redirect: the body is the next request's"}
	case q.Failed != "":
		return &protocol.Body{Missing: "the request failed: " + q.Failed}
	case !q.Finished:
		return &protocol.Body{Missing: "the response has not finished loading"}
	}
	r, err := cdp.Call(ctx, s, network.GetResponseBody, network.GetResponseBodyParams{RequestID: network.RequestID(q.chromeID)})
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
