// Package fakeext is a scripted extension that speaks through the
// service's relay socket as a relay does (PROTOCOL.md §2): for the tests
// of the hub (internal/server/hub) and of the service.
package fakeext

import (
	"encoding/base64"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/link/chromeext"
	"github.com/egohost/egohost/nativemsg"
)

// Ext is a fake extension on one relay connection.
type Ext struct {
	T    testing.TB
	Conn net.Conn
	R    *nativemsg.Reader
	W    *nativemsg.Writer
	ID   string // its extension ID, from the origin it dialed with
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
	e := &Ext{T: t, Conn: conn, R: nativemsg.NewReader(conn, 64<<20), W: nativemsg.NewWriter(conn, 64<<20), ID: id}
	e.Send(map[string]any{"relay": "hello", "origin": origin, "pid": 1})
	return e
}

// Send sends v as one frame.
func (e *Ext) Send(v any) {
	b, _ := json.Marshal(v)
	if err := e.W.Write(b); err != nil {
		e.T.Fatalf("fake extension send: %v", err)
	}
}

// Read reads the next frame from the service, reassembling chunks.
func (e *Ext) Read() map[string]any {
	e.T.Helper()
	// Generous: 2 MiB under the race detector on a loaded machine takes seconds.
	e.Conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	var pieces []string
	for {
		b, err := e.R.Read()
		if err != nil {
			e.T.Fatalf("fake extension read: %v", err)
		}
		if len(b) > nativemsg.MaxHostFrame {
			e.T.Fatalf("service sent a %d-byte frame, over Chrome's cap", len(b))
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			e.T.Fatalf("bad frame from service: %v", err)
		}
		if _, ok := m["chunk"]; !ok {
			return m
		}
		pieces = append(pieces, m["data"].(string))
		if int(m["index"].(float64)) == int(m["count"].(float64))-1 {
			raw, err := base64.StdEncoding.DecodeString(strings.Join(pieces, ""))
			if err != nil {
				e.T.Fatalf("chunks: %v", err)
			}
			var whole map[string]any
			if err := json.Unmarshal(raw, &whole); err != nil {
				e.T.Fatalf("chunks: %v", err)
			}
			return whole
		}
	}
}

// HelloAs says hello with a browser key ("" = none, as an older
// extension) and returns the browser ID the welcome gives.
func (e *Ext) HelloAs(key string) string {
	e.T.Helper()
	hello := map[string]any{"event": "hello", "extensionId": e.ID, "version": "0.1.0", "userAgent": "fake"}
	if key != "" {
		hello["browserKey"] = key
	}
	e.Send(hello)
	m := e.Read()
	if m["event"] != "welcome" {
		e.T.Fatalf("after hello: got %v, want welcome", m)
	}
	id, _ := m["browserId"].(string)
	return id
}
