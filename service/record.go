package service

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/browserlink"
	"github.com/egohost/egohost/cdptab"
	"github.com/egohost/egohost/extwire"
	"github.com/egohost/egohost/protocol"
)

// Capacities of a tab's recordings: the newest entries are kept, each
// text clipped (a console.log of a huge string, a data: URL).
const (
	maxConsoleMessages = 1000
	maxNetworkRequests = 1000
	maxRecordedText    = 4096 // bytes of a message's text or a URL
	maxContexts        = 4096 // execution contexts whose origin is remembered
)

// clip cuts s to maxRecordedText bytes (at a rune boundary) and says so.
func clip(s string) string {
	if len(s) <= maxRecordedText {
		return s
	}
	cut := maxRecordedText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes in all)", len(s))
}

// ring keeps the last n values put into it.
type ring[T any] struct {
	buf     []T
	next    int // where the next value goes once buf is full
	dropped int
	n       int
}

func newRing[T any](n int) ring[T] { return ring[T]{n: n} }

// put adds v, dropping the oldest value when the ring is full; it returns
// the value dropped, if any.
func (r *ring[T]) put(v T) (old T, evicted bool) {
	if len(r.buf) < r.n {
		r.buf = append(r.buf, v)
		return old, false
	}
	old = r.buf[r.next]
	r.buf[r.next] = v
	r.next = (r.next + 1) % r.n
	r.dropped++
	return old, true
}

// all returns the values, oldest first.
func (r *ring[T]) all() []T {
	out := make([]T, 0, len(r.buf))
	out = append(out, r.buf[r.next:]...)
	return append(out, r.buf[:r.next]...)
}

func (r *ring[T]) reset() { *r = newRing[T](r.n) }

// tabRecord is what the service records of one followed tab: its console
// messages, uncaught exceptions and network requests, in bounded rings.
// The link's reader feeds it; it never blocks on anything but its mutex.
// Each entry keeps whose document it came from (a console message: its
// execution context's origin; a request: the URL of the document that
// made it), so a caller is shown only the entries of documents it may
// reach.
type tabRecord struct {
	mu       sync.Mutex
	console  ring[consoleEntry]
	requests ring[*protocol.NetworkRequest]
	byID     map[string]*protocol.NetworkRequest // requests still in the ring, by Chrome's request ID
	ids      map[*protocol.NetworkRequest]string
	docs     map[*protocol.NetworkRequest]string         // the document that made each request in the ring
	details  map[*protocol.NetworkRequest]*requestDetail // their headers (netrequest.go)
	seq      int                                         // the last request's ID
	contexts map[int64]string                            // the main session's execution contexts' origins
}

// consoleEntry is a console message and its execution context's origin.
type consoleEntry struct {
	msg    protocol.ConsoleMessage
	origin string
}

func newTabRecord() *tabRecord {
	return &tabRecord{
		console:  newRing[consoleEntry](maxConsoleMessages),
		requests: newRing[*protocol.NetworkRequest](maxNetworkRequests),
		byID:     make(map[string]*protocol.NetworkRequest),
		ids:      make(map[*protocol.NetworkRequest]string),
		docs:     make(map[*protocol.NetworkRequest]string),
		contexts: make(map[int64]string),
		details:  make(map[*protocol.NetworkRequest]*requestDetail),
	}
}

// recordStartTimeout bounds the start of a tab's record: a browser that
// does not answer must not take the whole request's deadline.
const recordStartTimeout = 5 * time.Second

// startRecording turns on the CDP domains whose events the record needs on
// the tab's main session. Runtime.enable also replays the console messages
// the page logged before.
func startRecording(ctx context.Context, s *browserlink.Session) error {
	ctx, cancel := context.WithTimeout(ctx, recordStartTimeout)
	defer cancel()
	if err := s.Call(ctx, network.CommandEnable, network.EnableParams{}, nil); err != nil {
		return err
	}
	return s.Call(ctx, runtime.CommandEnable, nil, nil)
}

// record feeds a CDP event of the main session to its tab's record, if the
// tab is followed.
func (l *link) record(in *extwire.Message) {
	if in.SessionID != "" {
		return
	}
	switch in.Method {
	case runtime.ConsoleAPICalled.Method, runtime.ExceptionThrown.Method,
		runtime.ExecutionContextCreated.Method, runtime.ExecutionContextDestroyed.Method, runtime.ExecutionContextsCleared.Method,
		network.RequestWillBeSent.Method, network.ResponseReceived.Method,
		network.LoadingFinished.Method, network.LoadingFailed.Method:
	default:
		return
	}
	l.mu.Lock()
	t := l.tabs[in.TabID]
	l.mu.Unlock()
	if t == nil || (l.held != nil && l.held(in.TabID)) {
		return // not followed, or the person's own doings (takeover.go)
	}
	if rec := t.rec.Load(); rec != nil {
		rec.add(in.Method, in.Params)
	}
}

// remoteValue is the part of a Runtime.RemoteObject a console line shows.
type remoteValue struct {
	Type                string          `json:"type"`
	Value               json.RawMessage `json:"value"`
	UnserializableValue string          `json:"unserializableValue"`
	Description         string          `json:"description"`
}

func (v remoteValue) text() string {
	switch {
	case v.Type == "string":
		var s string
		if json.Unmarshal(v.Value, &s) == nil {
			return s
		}
	case v.UnserializableValue != "":
		return v.UnserializableValue
	case v.Description != "":
		return v.Description
	case len(v.Value) > 0:
		return string(v.Value)
	}
	return v.Type
}

type callFrame struct {
	URL        string `json:"url"`
	LineNumber int    `json:"lineNumber"`
}

// consoleLevel maps a console call's type to a level.
func consoleLevel(typ string) string {
	switch typ {
	case "error", "assert":
		return "error"
	case "warning":
		return "warning"
	case "debug":
		return "debug"
	}
	return "info"
}

// add records one event. Events it cannot decode are ignored.
func (r *tabRecord) add(method string, params json.RawMessage) {
	switch method {
	case runtime.ExecutionContextCreated.Method:
		var ev struct {
			Context struct {
				ID     int64  `json:"id"`
				Origin string `json:"origin"`
			} `json:"context"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return
		}
		r.mu.Lock()
		if len(r.contexts) < maxContexts {
			r.contexts[ev.Context.ID] = ev.Context.Origin
		}
		r.mu.Unlock()
	case runtime.ExecutionContextDestroyed.Method:
		var ev struct {
			ID int64 `json:"executionContextId"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return
		}
		r.mu.Lock()
		delete(r.contexts, ev.ID)
		r.mu.Unlock()
	case runtime.ExecutionContextsCleared.Method:
		r.mu.Lock()
		clear(r.contexts)
		r.mu.Unlock()
	case runtime.ConsoleAPICalled.Method:
		var ev struct {
			Type       string        `json:"type"`
			Args       []remoteValue `json:"args"`
			Timestamp  float64       `json:"timestamp"`
			Context    int64         `json:"executionContextId"`
			StackTrace *struct {
				CallFrames []callFrame `json:"callFrames"`
			} `json:"stackTrace"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return
		}
		parts := make([]string, len(ev.Args))
		for i, a := range ev.Args {
			parts[i] = a.text()
		}
		m := protocol.ConsoleMessage{Level: consoleLevel(ev.Type), Type: ev.Type, Text: clip(strings.Join(parts, " ")), Time: ev.Timestamp}
		if ev.StackTrace != nil && len(ev.StackTrace.CallFrames) > 0 {
			m.URL, m.Line = clip(ev.StackTrace.CallFrames[0].URL), ev.StackTrace.CallFrames[0].LineNumber+1
		}
		r.mu.Lock()
		r.console.put(consoleEntry{msg: m, origin: r.contexts[ev.Context]})
		r.mu.Unlock()
	case runtime.ExceptionThrown.Method:
		var ev struct {
			Timestamp float64 `json:"timestamp"`
			Details   struct {
				Text       string       `json:"text"`
				LineNumber int          `json:"lineNumber"`
				URL        string       `json:"url"`
				Exception  *remoteValue `json:"exception"`
				Context    int64        `json:"executionContextId"`
			} `json:"exceptionDetails"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return
		}
		text := ev.Details.Text
		if e := ev.Details.Exception; e != nil && e.Description != "" {
			// The description is "TypeError: x is null\n    at …": the
			// first line names the error; the stack is left out.
			first, _, _ := strings.Cut(e.Description, "\n")
			text = "Uncaught " + first
		} else if e != nil {
			text = "Uncaught " + e.text()
		}
		m := protocol.ConsoleMessage{Level: "error", Type: "exception", Text: clip(text), URL: clip(ev.Details.URL), Line: ev.Details.LineNumber + 1, Time: ev.Timestamp}
		r.mu.Lock()
		r.console.put(consoleEntry{msg: m, origin: r.contexts[ev.Details.Context]})
		r.mu.Unlock()
	case network.RequestWillBeSent.Method:
		var ev struct {
			RequestID   string  `json:"requestId"`
			WallTime    float64 `json:"wallTime"`
			Type        string  `json:"type"`
			DocumentURL string  `json:"documentURL"`
			Request     struct {
				URL         string         `json:"url"`
				Method      string         `json:"method"`
				Headers     map[string]any `json:"headers"`
				HasPostData bool           `json:"hasPostData"`
			} `json:"request"`
			RedirectResponse *struct {
				Status     int            `json:"status"`
				StatusText string         `json:"statusText"`
				MimeType   string         `json:"mimeType"`
				Headers    map[string]any `json:"headers"`
			} `json:"redirectResponse"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if prev := r.byID[ev.RequestID]; prev != nil && ev.RedirectResponse != nil {
			// A redirect ends the previous hop under the same ID.
			prev.Status, prev.StatusText, prev.MimeType, prev.Finished = ev.RedirectResponse.Status, ev.RedirectResponse.StatusText, ev.RedirectResponse.MimeType, true
			if d := r.details[prev]; d != nil {
				d.responseHeaders, d.redirected = headerMap(ev.RedirectResponse.Headers), true
			}
		}
		r.seq++
		req := &protocol.NetworkRequest{ID: r.seq, Method: ev.Request.Method, URL: clip(ev.Request.URL), Type: ev.Type, Time: ev.WallTime * 1000}
		if old, evicted := r.requests.put(req); evicted {
			if id := r.ids[old]; r.byID[id] == old {
				delete(r.byID, id)
			}
			delete(r.ids, old)
			delete(r.docs, old)
			delete(r.details, old)
		}
		r.details[req] = &requestDetail{requestHeaders: headerMap(ev.Request.Headers), hasPostData: ev.Request.HasPostData}
		r.byID[ev.RequestID] = req
		r.ids[req] = ev.RequestID
		r.docs[req] = ev.DocumentURL
	case network.ResponseReceived.Method:
		var ev struct {
			RequestID string `json:"requestId"`
			Type      string `json:"type"`
			Response  struct {
				Status     int            `json:"status"`
				StatusText string         `json:"statusText"`
				MimeType   string         `json:"mimeType"`
				Headers    map[string]any `json:"headers"`
			} `json:"response"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if req := r.byID[ev.RequestID]; req != nil {
			req.Status, req.StatusText, req.MimeType = ev.Response.Status, ev.Response.StatusText, ev.Response.MimeType
			if req.Type == "" {
				req.Type = ev.Type
			}
			if d := r.details[req]; d != nil {
				d.responseHeaders = headerMap(ev.Response.Headers)
			}
		}
	case network.LoadingFinished.Method:
		var ev struct {
			RequestID         string  `json:"requestId"`
			EncodedDataLength float64 `json:"encodedDataLength"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if req := r.byID[ev.RequestID]; req != nil {
			req.Finished, req.Bytes = true, int64(ev.EncodedDataLength)
		}
	case network.LoadingFailed.Method:
		var ev struct {
			RequestID string `json:"requestId"`
			ErrorText string `json:"errorText"`
			Canceled  bool   `json:"canceled"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if req := r.byID[ev.RequestID]; req != nil {
			req.Finished, req.Failed = true, ev.ErrorText
			if req.Failed == "" && ev.Canceled {
				req.Failed = "canceled"
			}
		}
	}
}

// levelRank orders console levels by severity.
var levelRank = map[string]int{"debug": 0, "info": 1, "warning": 2, "error": 3}

// consoleMessages returns the messages at level or above, oldest first,
// of the documents reach allows (all with a nil reach; a message whose
// context's origin is opaque or unknown is not shown to a reach).
func (r *tabRecord) consoleMessages(level string, clear bool, reach cdptab.Reach) ([]protocol.ConsoleMessage, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	all, dropped := r.console.all(), r.console.dropped
	if clear {
		r.console.reset()
	}
	out := make([]protocol.ConsoleMessage, 0, len(all))
	for _, e := range all {
		if levelRank[e.msg.Level] < levelRank[level] {
			continue
		}
		if reach != nil {
			if o := e.origin; o == "" || o == "null" || o == "://" {
				continue
			} else if ok, _ := reach(o, o); !ok {
				continue
			}
		}
		out = append(out, e.msg)
	}
	return out, dropped
}

// staticTypes are the resource types network.list leaves out unless asked.
var staticTypes = map[string]bool{"Image": true, "Font": true, "Stylesheet": true, "Script": true, "Media": true, "Manifest": true, "TextTrack": true}

// networkRequests returns copies of the requests, oldest first, made by
// the documents reach allows (all with a nil reach).
func (r *tabRecord) networkRequests(static, clear bool, reach cdptab.Reach) ([]protocol.NetworkRequest, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	all, dropped, docs := r.requests.all(), r.requests.dropped, r.docs
	if clear {
		r.requests.reset()
		r.byID = make(map[string]*protocol.NetworkRequest)
		r.ids = make(map[*protocol.NetworkRequest]string)
		r.docs = make(map[*protocol.NetworkRequest]string)
		r.details = make(map[*protocol.NetworkRequest]*requestDetail)
	}
	out := make([]protocol.NetworkRequest, 0, len(all))
	for _, req := range all {
		if !static && staticTypes[req.Type] {
			continue
		}
		if reach != nil {
			if ok, _ := reach(docs[req], ""); !ok || docs[req] == "" {
				continue
			}
		}
		out = append(out, *req)
	}
	return out, dropped
}

// tabRecordOf opens the target's page (which starts its recording) and
// returns its record.
func (s *Service) tabRecordOf(ctx context.Context, c *call, t protocol.Target) (*tabRecord, int, error) {
	l, id, err := s.target(ctx, c, t)
	if err != nil {
		return nil, 0, err
	}
	ts, err := l.page(ctx, id)
	if err != nil {
		return nil, 0, err
	}
	rec := ts.rec.Load()
	if rec == nil {
		return nil, 0, protocol.Errorf(protocol.CodeDetached, "tab %d was detached", id)
	}
	return rec, id, nil
}

func (s *Service) consoleList(ctx context.Context, c *call, p protocol.ConsoleListParams) (any, error) {
	if p.Level == "" {
		p.Level = "debug"
	}
	if _, ok := levelRank[p.Level]; !ok {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "console.list: level %q is not debug, info, warning or error", p.Level)
	}
	rec, id, err := s.tabRecordOf(ctx, c, p.Target)
	if err != nil {
		return nil, err
	}
	msgs, dropped := rec.consoleMessages(p.Level, p.Clear, s.reachFor(c.conn.grant))
	return protocol.ConsoleListResult{Tab: id, Messages: msgs, Dropped: dropped}, nil
}

func (s *Service) networkList(ctx context.Context, c *call, p protocol.NetworkListParams) (any, error) {
	rec, id, err := s.tabRecordOf(ctx, c, p.Target)
	if err != nil {
		return nil, err
	}
	reqs, dropped := rec.networkRequests(p.Static, p.Clear, s.reachFor(c.conn.grant))
	return protocol.NetworkListResult{Tab: id, Requests: reqs, Dropped: dropped}, nil
}
