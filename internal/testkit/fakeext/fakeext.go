// Package fakeext is a scripted extension that speaks through the
// service's relay socket as a relay does (PROTOCOL.md §2): for the tests
// of the hub (internal/server/hub) and of the service.
package fakeext

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/link/chromeext"
	"github.com/egohost/egohost/nativemsg"
	"github.com/egohost/egohost/protocol"
)

// Ext is a fake extension on one relay connection. It reads the
// service's frames as they come, and answers the events.quiet requests at
// once, as the extension does (Quiets); Read returns the other frames.
type Ext struct {
	T    testing.TB
	Conn net.Conn
	W    *nativemsg.Writer
	ID   string // its extension ID, from the origin it dialed with

	frames chan map[string]any // the frames but events.quiet requests; closed when the reading ends
	quiets chan Quiet
	mu     sync.Mutex
	err    error  // why the reading ended
	refuse string // the error code the next events.quiet request gets ("": none)
}

// Quiet is an events.quiet request the fake answered.
type Quiet struct {
	Methods, Lifecycle []string
	Refused            string // the error code it was answered with ("": its result)
}

// Dial connects a fake extension of origin to the relay socket and sends
// the relay's handshake.
func Dial(t testing.TB, socket, origin string) *Ext {
	t.Helper()
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	id, _ := chromeext.ParseOrigin(origin)
	e := On(t, conn, 64<<20)
	e.ID = id
	e.Send(map[string]any{"relay": "hello", "origin": origin, "pid": 1})
	return e
}

// On is a fake extension on conn, which the test has dialed (and may
// have written to): it reads frames of up to maxFrame bytes.
func On(t testing.TB, conn net.Conn, maxFrame int) *Ext {
	e := &Ext{T: t, Conn: conn, W: nativemsg.NewWriter(conn, 64<<20), frames: make(chan map[string]any, 64), quiets: make(chan Quiet, 64)}
	go e.read(nativemsg.NewReader(conn, maxFrame))
	return e
}

// Send sends v as one frame.
func (e *Ext) Send(v any) {
	b, _ := json.Marshal(v)
	if err := e.W.Write(b); err != nil {
		e.T.Fatalf("fake extension send: %v", err)
	}
}

// Read returns the next frame from the service (chunks reassembled), but
// the events.quiet requests, which the fake answers itself.
func (e *Ext) Read() map[string]any {
	e.T.Helper()
	// Generous: 2 MiB under the race detector on a loaded machine takes seconds.
	select {
	case m, ok := <-e.frames:
		if !ok {
			e.mu.Lock()
			err := e.err
			e.mu.Unlock()
			e.T.Fatalf("fake extension read: %v", err)
		}
		return m
	case <-time.After(30 * time.Second):
		e.T.Fatalf("fake extension read: no frame from the service within 30 s")
	}
	return nil
}

// Frames delivers the frames Read would return, for a test that waits for
// a frame or something else; it is closed when the connection ends.
func (e *Ext) Frames() <-chan map[string]any { return e.frames }

// Quiets delivers the events.quiet requests the fake answered, in order
// (the first 64 not taken are kept).
func (e *Ext) Quiets() <-chan Quiet { return e.quiets }

// RefuseNextQuiet makes the fake answer the next events.quiet request
// with an error of code (as an older extension does with unknown_op).
func (e *Ext) RefuseNextQuiet(code string) {
	e.mu.Lock()
	e.refuse = code
	e.mu.Unlock()
}

// read reads the service's frames until the connection ends.
func (e *Ext) read(r *nativemsg.Reader) {
	err := e.readFrames(r)
	e.mu.Lock()
	e.err = err
	e.mu.Unlock()
	close(e.frames)
}

func (e *Ext) readFrames(r *nativemsg.Reader) error {
	var pieces []string
	for {
		b, err := r.Read()
		if err != nil {
			return err
		}
		if len(b) > nativemsg.MaxHostFrame {
			return fmt.Errorf("service sent a %d-byte frame, over Chrome's cap", len(b))
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("bad frame from service: %w", err)
		}
		if _, ok := m["chunk"]; ok {
			pieces = append(pieces, m["data"].(string))
			if int(m["index"].(float64)) != int(m["count"].(float64))-1 {
				continue
			}
			raw, err := base64.StdEncoding.DecodeString(strings.Join(pieces, ""))
			if err != nil {
				return fmt.Errorf("chunks: %w", err)
			}
			pieces = nil
			m = nil
			if err := json.Unmarshal(raw, &m); err != nil {
				return fmt.Errorf("chunks: %w", err)
			}
		}
		if m["op"] == "events.quiet" {
			e.answerQuiet(m)
			continue
		}
		e.frames <- m
	}
}

// answerQuiet answers an events.quiet request as the extension does.
func (e *Ext) answerQuiet(m map[string]any) {
	q := Quiet{Methods: names(m["methods"]), Lifecycle: names(m["lifecycle"])}
	e.mu.Lock()
	q.Refused, e.refuse = e.refuse, ""
	e.mu.Unlock()
	reply := map[string]any{"id": m["id"], "result": map[string]any{"quiet": len(q.Methods) + len(q.Lifecycle)}}
	if q.Refused != "" {
		reply = map[string]any{"id": m["id"], "error": map[string]any{"code": q.Refused, "message": "refused by the test"}}
	}
	b, _ := json.Marshal(reply)
	if err := e.W.Write(b); err != nil {
		return // the connection ended
	}
	select {
	case e.quiets <- q:
	default:
	}
}

func names(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, s := range list {
		str, _ := s.(string)
		out = append(out, str)
	}
	return out
}

// HelloAs says hello with a browser key ("" = none, as an older
// extension) and returns the browser ID the welcome gives.
func (e *Ext) HelloAs(key string, tabs ...protocol.Tab) string {
	e.T.Helper()
	hello := map[string]any{"event": "hello", "extensionId": e.ID, "version": "0.1.0", "userAgent": "fake"}
	if key != "" {
		hello["browserKey"] = key
	}
	if len(tabs) > 0 {
		hello["tabs"] = tabs
	}
	e.Send(hello)
	m := e.Read()
	if m["event"] != "welcome" {
		e.T.Fatalf("after hello: got %v, want welcome", m)
	}
	id, _ := m["browserId"].(string)
	return id
}
