package page

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"

	"github.com/egohost/egohost/internal/link/cdptab"
	"github.com/egohost/egohost/internal/ring"
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

// Record is what is recorded of one followed tab: its console
// messages, uncaught exceptions and network requests, in bounded rings.
// The link's reader feeds it; it never blocks on anything but its mutex.
// Each entry keeps whose document it came from (a console message: its
// execution context's origin; a request: the URL of the document that
// made it), so a caller is shown only the entries of documents it may
// reach.
type Record struct {
	mu       sync.Mutex
	console  ring.Ring[consoleEntry]
	requests ring.Ring[*protocol.NetworkRequest]
	byID     map[string]*protocol.NetworkRequest // requests still in the ring, by Chrome's request ID
	ids      map[*protocol.NetworkRequest]string
	docs     map[*protocol.NetworkRequest]string         // the document that made each request in the ring
	details  map[*protocol.NetworkRequest]*requestDetail // their headers (requests.go)
	seq      int                                         // the last request's ID
	contexts map[int64]string                            // the main session's execution contexts' origins
}

// consoleEntry is a console message and its execution context's origin.
type consoleEntry struct {
	msg    protocol.ConsoleMessage
	origin string
}

func NewRecord() *Record {
	return &Record{
		console:  ring.New[consoleEntry](maxConsoleMessages),
		requests: ring.New[*protocol.NetworkRequest](maxNetworkRequests),
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

// StartRecording turns on the CDP domains whose events the record needs on
// the tab's main session, both at once. Runtime.enable also replays the
// console messages the page logged before.
func StartRecording(ctx context.Context, s cdp.Session) error {
	ctx, cancel := context.WithTimeout(ctx, recordStartTimeout)
	defer cancel()
	netErr := make(chan error, 1)
	go func() { netErr <- s.Call(ctx, network.CommandEnable, network.EnableParams{}, nil) }()
	rtErr := s.Call(ctx, runtime.CommandEnable, nil, nil)
	return errors.Join(<-netErr, rtErr)
}

// Records reports whether the record takes events of method (of a tab's
// main session): the link's reader skips the rest without a lock.
func Records(method string) bool {
	switch method {
	case runtime.ConsoleAPICalled.Method, runtime.ExceptionThrown.Method,
		runtime.ExecutionContextCreated.Method, runtime.ExecutionContextDestroyed.Method, runtime.ExecutionContextsCleared.Method,
		network.RequestWillBeSent.Method, network.ResponseReceived.Method,
		network.LoadingFinished.Method, network.LoadingFailed.Method:
		return true
	}
	return false
}

// LoggedAt is when the page logged a console message or a log entry, or
// threw an exception (the event's timestamp: Chrome replays the messages
// logged before when Runtime or Log is enabled again, each with its own
// time); the zero time for any other event, or one whose time cannot be
// read.
func LoggedAt(method string, params json.RawMessage) time.Time {
	var ms float64 // since the epoch (Runtime.Timestamp, Network.TimeSinceEpoch in ms)
	switch method {
	case runtime.ConsoleAPICalled.Method, runtime.ExceptionThrown.Method:
		var ev struct {
			Timestamp float64 `json:"timestamp"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return time.Time{}
		}
		ms = ev.Timestamp
	case "Log.entryAdded":
		var ev struct {
			Entry struct {
				Timestamp float64 `json:"timestamp"`
			} `json:"entry"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return time.Time{}
		}
		ms = ev.Entry.Timestamp
	}
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMicro(int64(ms * 1000))
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
func (r *Record) Add(method string, params json.RawMessage) {
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
		r.console.Put(consoleEntry{msg: m, origin: r.contexts[ev.Context]})
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
		r.console.Put(consoleEntry{msg: m, origin: r.contexts[ev.Details.Context]})
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
			RedirectResponse *response `json:"redirectResponse"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if prev := r.byID[ev.RequestID]; prev != nil && ev.RedirectResponse != nil {
			// A redirect ends the previous hop under the same ID.
			r.answered(prev, *ev.RedirectResponse)
			prev.Finished = true
			if d := r.details[prev]; d != nil {
				d.redirected = true
			}
		}
		r.seq++
		req := &protocol.NetworkRequest{ID: r.seq, Method: ev.Request.Method, URL: clip(ev.Request.URL), Type: ev.Type, Time: ev.WallTime * 1000}
		if old, evicted := r.requests.Put(req); evicted {
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
			RequestID string   `json:"requestId"`
			Type      string   `json:"type"`
			Response  response `json:"response"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if req := r.byID[ev.RequestID]; req != nil {
			r.answered(req, ev.Response)
			if req.Type == "" {
				req.Type = ev.Type
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

// response is what the record keeps of a CDP Network.Response: a
// request's answer, or the redirect that ended a hop.
type response struct {
	Status     int            `json:"status"`
	StatusText string         `json:"statusText"`
	MimeType   string         `json:"mimeType"`
	Headers    map[string]any `json:"headers"`
}

// answered records resp as req's response. r.mu is held.
func (r *Record) answered(req *protocol.NetworkRequest, resp response) {
	req.Status, req.StatusText, req.MimeType = resp.Status, resp.StatusText, resp.MimeType
	if d := r.details[req]; d != nil {
		d.responseHeaders = headerMap(resp.Headers)
	}
}

// KnownLevel reports whether level is a console level (debug, info,
// warning, error).
func KnownLevel(level string) bool {
	_, ok := levelRank[level]
	return ok
}

// ConsoleMessages returns the messages at level or above, oldest first,
// of the documents reach allows (all with a nil reach; a message whose
// context's origin is opaque or unknown is not shown to a reach).
func (r *Record) ConsoleMessages(level string, clear bool, reach cdptab.Reach) ([]protocol.ConsoleMessage, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	all, dropped := r.console.All(), r.console.Dropped()
	if clear {
		r.console.Reset()
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

// NetworkRequests returns copies of the requests, oldest first, made by
// the documents reach allows (all with a nil reach).
func (r *Record) NetworkRequests(static, clear bool, reach cdptab.Reach) ([]protocol.NetworkRequest, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	all, dropped, docs := r.requests.All(), r.requests.Dropped(), r.docs
	if clear {
		r.requests.Reset()
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
