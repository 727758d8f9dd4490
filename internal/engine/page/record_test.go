package page

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/protocol"
)

func event(t *testing.T, r *Record, method, params string) {
	t.Helper()
	if !json.Valid([]byte(params)) {
		t.Fatalf("bad fixture %s", params)
	}
	r.Add(method, json.RawMessage(params))
}

func TestRecordConsole(t *testing.T) {
	r := NewRecord()
	event(t, r, "Runtime.consoleAPICalled", `{"type":"log","args":[{"type":"string","value":"hello"},{"type":"number","value":42,"description":"42"},{"type":"object","description":"Object"}],"timestamp":1000,
		"stackTrace":{"callFrames":[{"url":"http://x/a.js","lineNumber":4}]}}`)
	event(t, r, "Runtime.consoleAPICalled", `{"type":"warning","args":[{"type":"number","unserializableValue":"NaN"}],"timestamp":1001}`)
	event(t, r, "Runtime.consoleAPICalled", `{"type":"debug","args":[],"timestamp":1002}`)
	event(t, r, "Runtime.exceptionThrown", `{"timestamp":1003,"exceptionDetails":{"text":"Uncaught","lineNumber":9,"url":"http://x/b.js",
		"exception":{"type":"object","description":"TypeError: x is null\n    at f (http://x/b.js:10:3)"}}}`)
	r.Add("Runtime.consoleAPICalled", json.RawMessage(`not json`)) // ignored
	all := []protocol.ConsoleMessage{
		{Level: "info", Type: "log", Text: "hello 42 Object", URL: "http://x/a.js", Line: 5, Time: 1000},
		{Level: "warning", Type: "warning", Text: "NaN", Time: 1001},
		{Level: "debug", Type: "debug", Text: "", Time: 1002},
		{Level: "error", Type: "exception", Text: "Uncaught TypeError: x is null", URL: "http://x/b.js", Line: 10, Time: 1003},
	}
	tests := []struct {
		level string
		want  []protocol.ConsoleMessage
	}{
		{"debug", all},
		{"info", []protocol.ConsoleMessage{all[0], all[1], all[3]}},
		{"warning", []protocol.ConsoleMessage{all[1], all[3]}},
		{"error", []protocol.ConsoleMessage{all[3]}},
	}
	for _, tt := range tests {
		t.Run(tt.level, func(t *testing.T) {
			got, dropped := r.ConsoleMessages(tt.level, false, nil)
			if d := cmp.Diff(tt.want, got); d != "" || dropped != 0 {
				t.Errorf("messages (-want +got), dropped %d:\n%s", dropped, d)
			}
		})
	}
	if got, _ := r.ConsoleMessages("debug", true, nil); len(got) != 4 {
		t.Fatalf("got %d messages, want 4 before clearing", len(got))
	}
	if got, _ := r.ConsoleMessages("debug", false, nil); len(got) != 0 {
		t.Errorf("got %d messages after clear, want 0", len(got))
	}
}

func TestRecordNetwork(t *testing.T) {
	r := NewRecord()
	event(t, r, "Network.requestWillBeSent", `{"requestId":"1","wallTime":2,"type":"Document","request":{"url":"http://x/old","method":"GET","headers":{"Accept":"text/html"}}}`)
	event(t, r, "Network.requestWillBeSent", `{"requestId":"1","wallTime":3,"type":"Document","request":{"url":"http://x/new","method":"GET","headers":{"Accept":"text/html"}},
		"redirectResponse":{"status":301,"statusText":"Moved Permanently","mimeType":"text/html","headers":{"Location":"/new"}}}`)
	event(t, r, "Network.responseReceived", `{"requestId":"1","type":"Document","response":{"status":200,"statusText":"OK","mimeType":"text/html","headers":{"Content-Length":512}}}`)
	event(t, r, "Network.loadingFinished", `{"requestId":"1","encodedDataLength":512}`)
	event(t, r, "Network.requestWillBeSent", `{"requestId":"2","wallTime":4,"type":"Image","request":{"url":"http://x/a.png","method":"GET"}}`)
	event(t, r, "Network.requestWillBeSent", `{"requestId":"3","wallTime":5,"type":"Fetch","request":{"url":"http://x/api","method":"POST","hasPostData":true,"headers":{"Content-Type":"application/json"}}}`)
	event(t, r, "Network.loadingFailed", `{"requestId":"3","errorText":"net::ERR_CONNECTION_REFUSED"}`)
	event(t, r, "Network.responseReceived", `{"requestId":"unknown","response":{"status":200}}`)

	doc := []protocol.NetworkRequest{
		{ID: 1, Method: "GET", URL: "http://x/old", Type: "Document", Status: 301, StatusText: "Moved Permanently", MimeType: "text/html", Finished: true, Time: 2000},
		{ID: 2, Method: "GET", URL: "http://x/new", Type: "Document", Status: 200, StatusText: "OK", MimeType: "text/html", Finished: true, Bytes: 512, Time: 3000},
	}
	img := protocol.NetworkRequest{ID: 3, Method: "GET", URL: "http://x/a.png", Type: "Image", Time: 4000}
	api := protocol.NetworkRequest{ID: 4, Method: "POST", URL: "http://x/api", Type: "Fetch", Failed: "net::ERR_CONNECTION_REFUSED", Finished: true, Time: 5000}
	got, _ := r.NetworkRequests(false, false, nil)
	if d := cmp.Diff(append(doc, api), got); d != "" {
		t.Errorf("without static (-want +got):\n%s", d)
	}
	got, _ = r.NetworkRequests(true, false, nil)
	if d := cmp.Diff(append(doc, img, api), got); d != "" {
		t.Errorf("with static (-want +got):\n%s", d)
	}

	// network.request's details: each hop its own headers, under the
	// request's ID; Chrome's ID for the bodies.
	details := []struct {
		id       int
		want     requestDetail
		chromeID string
	}{
		{1, requestDetail{requestHeaders: map[string]string{"Accept": "text/html"}, responseHeaders: map[string]string{"Location": "/new"}, redirected: true}, "1"},
		{2, requestDetail{requestHeaders: map[string]string{"Accept": "text/html"}, responseHeaders: map[string]string{"Content-Length": "512"}}, "1"},
		{4, requestDetail{requestHeaders: map[string]string{"Content-Type": "application/json"}, hasPostData: true}, "3"},
	}
	for _, tt := range details {
		req, ok := r.Request(tt.id, nil)
		if !ok || req.ID != tt.id || req.chromeID != tt.chromeID {
			t.Errorf("request %d: got %+v, chrome ID %q, %t; want it, chrome ID %q", tt.id, req.NetworkRequest, req.chromeID, ok, tt.chromeID)
		}
		if req.RequestHeaders == nil || !cmp.Equal(req.RequestHeaders, req.detail.requestHeaders) || !cmp.Equal(req.ResponseHeaders, req.detail.responseHeaders) {
			t.Errorf("request %d: its headers %v, %v are not its detail's", tt.id, req.RequestHeaders, req.ResponseHeaders)
		}
		if diff := cmp.Diff(tt.want, req.detail, cmp.AllowUnexported(requestDetail{})); diff != "" {
			t.Errorf("request %d's detail (-want +got):\n%s", tt.id, diff)
		}
	}
	// A clear forgets them, and the next request gets a new ID: an old ID
	// never names a newer request.
	r.NetworkRequests(true, true, nil)
	if _, ok := r.Request(2, nil); ok {
		t.Error("request 2 is still there after a clear")
	}
	event(t, r, "Network.requestWillBeSent", `{"requestId":"9","type":"XHR","request":{"url":"http://x/later","method":"GET"}}`)
	if got, _ := r.NetworkRequests(true, false, nil); len(got) != 1 || got[0].ID != 5 {
		t.Errorf("after a clear: got %+v, want one request with ID 5", got)
	}
}

// The ring forgets the oldest requests and their IDs: a late event of a
// dropped request changes nothing, and memory stays bounded.
func TestRecordNetworkIsBounded(t *testing.T) {
	r := NewRecord()
	n := maxNetworkRequests + 10
	for i := range n {
		event(t, r, "Network.requestWillBeSent", fmt.Sprintf(`{"requestId":"%d","type":"XHR","request":{"url":"http://x/%d","method":"GET"}}`, i, i))
	}
	event(t, r, "Network.responseReceived", `{"requestId":"0","response":{"status":200}}`)
	got, dropped := r.NetworkRequests(true, false, nil)
	if len(got) != maxNetworkRequests || dropped != 10 {
		t.Fatalf("got %d requests, %d dropped; want %d, 10", len(got), dropped, maxNetworkRequests)
	}
	if got[0].URL != "http://x/10" || got[0].Status != 0 {
		t.Errorf("oldest kept: got %+v, want http://x/10 untouched", got[0])
	}
	if len(r.byID) != maxNetworkRequests || len(r.ids) != maxNetworkRequests || len(r.details) != maxNetworkRequests {
		t.Errorf("index sizes %d, %d, %d; want %d", len(r.byID), len(r.ids), len(r.details), maxNetworkRequests)
	}
}

// A huge console message or data: URL is clipped: the ring's memory stays
// bounded by count and size.
func TestRecordClipsHugeText(t *testing.T) {
	r := NewRecord()
	huge := strings.Repeat("é", 1<<20)
	b, _ := json.Marshal(map[string]any{"type": "log", "args": []map[string]any{{"type": "string", "value": huge}}})
	r.Add("Runtime.consoleAPICalled", b)
	headers := map[string]any{"X-Huge": huge}
	for i := range 500 {
		headers[fmt.Sprintf("X-%03d", i)] = "v"
	}
	b, _ = json.Marshal(map[string]any{"requestId": "1", "request": map[string]any{"url": "data:text/plain," + huge, "method": "GET", "headers": headers}})
	r.Add("Network.requestWillBeSent", b)
	if req, _ := r.Request(1, nil); len(req.RequestHeaders) != maxRecordedHeaders {
		t.Errorf("kept %d headers of 501, want %d", len(req.RequestHeaders), maxRecordedHeaders)
	}
	msgs, _ := r.ConsoleMessages("debug", false, nil)
	reqs, _ := r.NetworkRequests(true, false, nil)
	for _, s := range []string{msgs[0].Text, reqs[0].URL} {
		if len(s) > maxRecordedText+64 || !utf8.ValidString(s) || !strings.HasSuffix(s, " bytes in all)") {
			t.Errorf("got %d bytes ending %q, want at most about %d, valid UTF-8, saying it was clipped", len(s), s[max(0, len(s)-40):], maxRecordedText)
		}
	}
}

// A caller with a reach sees only the console messages and requests of
// the documents it may reach: a denied page's messages (its execution
// context's origin) and requests (the document that made them) are left
// out, and so are messages of an opaque or unknown context.
func TestRecordKeepsWhoseDocument(t *testing.T) {
	r := NewRecord()
	event(t, r, "Runtime.executionContextCreated", `{"context":{"id":1,"origin":"https://fine.example","name":""}}`)
	event(t, r, "Runtime.executionContextCreated", `{"context":{"id":2,"origin":"https://bank.example","name":""}}`)
	event(t, r, "Runtime.executionContextCreated", `{"context":{"id":3,"origin":"://","name":""}}`)
	event(t, r, "Runtime.consoleAPICalled", `{"type":"log","args":[{"type":"string","value":"fine"}],"executionContextId":1,"timestamp":1}`)
	event(t, r, "Runtime.consoleAPICalled", `{"type":"log","args":[{"type":"string","value":"bank"}],"executionContextId":2,"timestamp":2}`)
	event(t, r, "Runtime.exceptionThrown", `{"timestamp":3,"exceptionDetails":{"text":"Uncaught bank","executionContextId":2}}`)
	event(t, r, "Runtime.consoleAPICalled", `{"type":"log","args":[{"type":"string","value":"opaque"}],"executionContextId":3,"timestamp":4}`)
	event(t, r, "Network.requestWillBeSent", `{"requestId":"1","documentURL":"https://fine.example/","request":{"url":"https://fine.example/api","method":"GET"},"type":"XHR","wallTime":1}`)
	event(t, r, "Network.requestWillBeSent", `{"requestId":"2","documentURL":"https://bank.example/","request":{"url":"https://bank.example/api?token=1","method":"GET"},"type":"XHR","wallTime":2}`)
	reach := func(url, origin string) (bool, string) {
		if strings.Contains(url, "bank") || strings.Contains(origin, "bank") {
			return false, "deny *.bank.example"
		}
		return true, ""
	}
	msgs, _ := r.ConsoleMessages("debug", false, reach)
	if len(msgs) != 1 || msgs[0].Text != "fine" {
		t.Errorf("console with a reach: got %+v, want the fine page's message only", msgs)
	}
	if all, _ := r.ConsoleMessages("debug", false, nil); len(all) != 4 {
		t.Errorf("console without a reach: got %d messages, want 4", len(all))
	}
	reqs, _ := r.NetworkRequests(true, false, reach)
	if len(reqs) != 1 || reqs[0].URL != "https://fine.example/api" {
		t.Errorf("network with a reach: got %+v, want the fine page's request only", reqs)
	}
	// network.request by number: the bank page's request (#2) is as
	// unknown as in the list, though its number can be guessed.
	if _, ok := r.Request(2, reach); ok {
		t.Errorf("request 2 with a reach: found, want the denied page's request unknown")
	}
	if req, ok := r.Request(1, reach); !ok || req.URL != "https://fine.example/api" {
		t.Errorf("request 1 with a reach: got %+v, %v, want the fine page's request", req, ok)
	}
	event(t, r, "Runtime.executionContextsCleared", `{}`)
	event(t, r, "Runtime.consoleAPICalled", `{"type":"log","args":[{"type":"string","value":"after"}],"executionContextId":1,"timestamp":5}`)
	if msgs, _ := r.ConsoleMessages("debug", false, reach); len(msgs) != 1 {
		t.Errorf("a context cleared is unknown: got %+v, want the message of the cleared context left out", msgs)
	}
}
