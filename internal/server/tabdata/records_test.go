package tabdata

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/testkit/cdpfake"
	"github.com/egohost/egohost/protocol"
)

// record is a tab's record of a page of example.com that logged a
// warning and made two requests, one to bank.example.
func record(t *testing.T) *page.Record {
	t.Helper()
	r := page.NewRecord()
	for _, ev := range []struct{ method, params string }{
		{"Runtime.consoleAPICalled", `{"type":"warning","args":[{"type":"string","value":"careful"}],"timestamp":1000}`},
		{"Runtime.consoleAPICalled", `{"type":"debug","args":[{"type":"string","value":"noise"}],"timestamp":1001}`},
		{"Network.requestWillBeSent", `{"requestId":"1","documentURL":"https://example.com/","wallTime":2,"type":"Fetch","request":{"url":"https://example.com/api","method":"POST","hasPostData":true,"headers":{"Content-Type":"application/json"}}}`},
		{"Network.requestWillBeSent", `{"requestId":"2","documentURL":"https://example.com/","wallTime":3,"type":"Fetch","request":{"url":"https://bank.example/balance","method":"GET"}}`},
	} {
		r.Add(ev.method, json.RawMessage(ev.params))
	}
	return r
}

// console.list and network.list read the tab's record, at the level
// asked, of a tab not yet detached.
func TestRecordLists(t *testing.T) {
	detached := protocol.Errorf(protocol.CodeDetached, "tab 7 was detached")
	tests := []struct {
		name    string
		list    func(m *Methods, c Call) (any, error)
		noRec   bool
		openErr error
		want    any
		code    protocol.Code
	}{
		{name: "console at debug", list: func(m *Methods, c Call) (any, error) {
			return m.ConsoleList(context.Background(), c, protocol.ConsoleListParams{})
		}, want: []string{"careful", "noise"}},
		{name: "console at warning", list: func(m *Methods, c Call) (any, error) {
			return m.ConsoleList(context.Background(), c, protocol.ConsoleListParams{Level: "warning"})
		}, want: []string{"careful"}},
		{name: "console at an unknown level", list: func(m *Methods, c Call) (any, error) {
			return m.ConsoleList(context.Background(), c, protocol.ConsoleListParams{Level: "loud"})
		}, code: protocol.CodeInvalidParams},
		{name: "console of a detached tab", noRec: true, list: func(m *Methods, c Call) (any, error) {
			return m.ConsoleList(context.Background(), c, protocol.ConsoleListParams{})
		}, code: protocol.CodeDetached},
		{name: "network", list: func(m *Methods, c Call) (any, error) {
			return m.NetworkList(context.Background(), c, protocol.NetworkListParams{})
		}, want: []string{"https://example.com/api", "https://bank.example/balance"}},
		{name: "network of a tab that does not open", openErr: detached, list: func(m *Methods, c Call) (any, error) {
			return m.NetworkList(context.Background(), c, protocol.NetworkListParams{})
		}, code: protocol.CodeDetached},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &fakeBrowser{record: record(t), recordErr: tt.openErr}
			if tt.noRec {
				b.record = nil
			}
			res, err := tt.list(testMethods(), &fakeCall{browser: b, tab: 7})
			if got := codeOf(err); got != tt.code {
				t.Fatalf("got %v (%v), want code %v", got, err, tt.code)
			}
			if err != nil {
				return
			}
			var got []string
			switch r := res.(type) {
			case protocol.ConsoleListResult:
				for _, m := range r.Messages {
					got = append(got, m.Text)
				}
			case protocol.NetworkListResult:
				for _, q := range r.Requests {
					got = append(got, q.URL)
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("listed (-want +got):\n%s", d)
			}
		})
	}
}

// network.request answers one request of the tab's record, by its ID,
// when the caller may read the origin it went to; its bodies only when
// asked for.
func TestNetworkRequest(t *testing.T) {
	blocked := errors.New("a dialog blocks tab 7")
	tests := []struct {
		name   string
		params protocol.NetworkRequestParams
		noRec  bool
		tabErr error
		want   string // the request's URL
		body   bool
		code   protocol.Code
		err    error
	}{
		{name: "one request", params: protocol.NetworkRequestParams{ID: 1}, want: "https://example.com/api"},
		{name: "with its bodies", params: protocol.NetworkRequestParams{ID: 1, Body: true}, want: "https://example.com/api", body: true},
		{name: "an origin the agent may not read", params: protocol.NetworkRequestParams{ID: 2}, code: protocol.CodeForbiddenOriginScope},
		{name: "no such request", params: protocol.NetworkRequestParams{ID: 9}, code: protocol.CodeInvalidParams},
		{name: "id 0", params: protocol.NetworkRequestParams{}, code: protocol.CodeInvalidParams},
		{name: "maxBytes below 0", params: protocol.NetworkRequestParams{ID: 1, MaxBytes: -1}, code: protocol.CodeInvalidParams},
		{name: "maxBytes above the most", params: protocol.NetworkRequestParams{ID: 1, MaxBytes: page.MaxBodyBytes + 1}, code: protocol.CodeInvalidParams},
		{name: "a detached tab", params: protocol.NetworkRequestParams{ID: 1}, noRec: true, code: protocol.CodeDetached},
		{name: "a tab not reached", params: protocol.NetworkRequestParams{ID: 1}, tabErr: blocked, code: protocol.CodeInternal, err: blocked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sess := cdpfake.New()
			sess.Reply("Network.getRequestPostData", map[string]any{"postData": `{"a":1}`})
			sess.Reply("Network.getResponseBody", map[string]any{"body": "ok"})
			tab := &fakeTab{id: 7, record: record(t), sess: sess}
			if tt.noRec {
				tab.record = nil
			}
			c := &fakeCall{paired: true, denied: "bank.example", tabs: tab, err: tt.tabErr}
			res, err := testMethods().NetworkRequest(context.Background(), c, tt.params)
			if got := codeOf(err); got != tt.code || (tt.err != nil && !errors.Is(err, tt.err)) {
				t.Fatalf("got %v (%v), want code %v", got, err, tt.code)
			}
			if err != nil {
				if len(sess.Calls()) != 0 {
					t.Errorf("a refused call asked the tab %v", sess.Calls())
				}
				return
			}
			r := res.(protocol.NetworkRequestResult)
			if r.Tab != 7 || r.Request.URL != tt.want || r.RequestHeaders == nil {
				t.Errorf("got tab %d, %s, headers %v; want tab 7, %s, headers", r.Tab, r.Request.URL, r.RequestHeaders, tt.want)
			}
			if gotBody := r.RequestBody != nil || r.ResponseBody != nil; gotBody != tt.body {
				t.Errorf("got bodies %+v, %+v; want bodies %v", r.RequestBody, r.ResponseBody, tt.body)
			}
		})
	}
}
