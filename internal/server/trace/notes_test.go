package trace

import (
	"bytes"
	"image"
	"image/jpeg"
	"slices"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// A retried run keeps the first picture before; the last why and the
// tab's log are the step's.
func TestNotes(t *testing.T) {
	var n Notes
	first, second := &Shot{Width: 1}, &Shot{Width: 2}
	n.Before(first, "")
	n.Before(second, "no screenshot: a dialog was open")
	n.After(nil, "", []string{"error: boom"}, nil)
	n.Box(Box{X: 1, W: 2})
	var st Step
	n.Fill(&st)
	if st.Before != first || st.After != nil || st.NoShot != "no screenshot: a dialog was open" || st.Box == nil || st.Box.W != 2 || !slices.Equal(st.Console, []string{"error: boom"}) {
		t.Errorf("got %+v, want the first picture, no after, the dialog's why, the box and the console line", st)
	}
}

// A step's log is the tab's since the step began: console errors, and
// the requests that failed or got a status of 400 or more, without their
// queries.
func TestTabLog(t *testing.T) {
	since := time.UnixMilli(1000)
	msgs := []protocol.ConsoleMessage{{Type: "error", Text: "before", Time: 999}, {Type: "error", Text: "boom", Time: 1000}}
	reqs := []protocol.NetworkRequest{
		{Method: "GET", URL: "https://a.example/old", Failed: "net::ERR_FAILED", Time: 10},
		{Method: "GET", URL: "https://a.example/x?token=1", Failed: "net::ERR_FAILED", Time: 1001},
		{Method: "POST", URL: "https://a.example/y", Status: 500, StatusText: "Internal Server Error", Time: 1002},
		{Method: "GET", URL: "https://a.example/z", Status: 200, Time: 1003},
	}
	console, failed := TabLog(msgs, reqs, since)
	if want := []string{"error: boom"}; !slices.Equal(console, want) {
		t.Errorf("console: got %q, want %q", console, want)
	}
	if want := []string{"GET https://a.example/x: net::ERR_FAILED", "POST https://a.example/y: 500 Internal Server Error"}; !slices.Equal(failed, want) {
		t.Errorf("failed: got %q, want %q", failed, want)
	}
}

// A step's summary names where a call landed, never a query; a snapshot's
// text is kept only when the call asked for a diff.
func TestSummary(t *testing.T) {
	snap := protocol.SnapshotResult{URL: "https://a.example/p?q=secret", Title: "P", Text: "- button"}
	tests := []struct {
		name     string
		res      any
		diff     bool
		summary  string
		diffText string
	}{
		{"action", protocol.ActionResult{Element: "button 'Go'", Settled: protocol.Settled{URL: "https://a.example/done?id=1"}}, false, "button 'Go' → https://a.example/done", ""},
		{"navigation", protocol.NavResult{URL: "https://a.example/?t=1", Title: "A"}, false, "https://a.example/ “A”", ""},
		{"snapshot", snap, false, "https://a.example/p “P”", ""},
		{"snapshot diff", snap, true, "https://a.example/p “P”", "- button"},
		{"eval", protocol.EvalResult{}, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			summary, diff := Summary(tt.res, tt.diff)
			if summary != tt.summary || diff != tt.diffText {
				t.Errorf("got %q, %q, want %q, %q", summary, diff, tt.summary, tt.diffText)
			}
		})
	}
}

// A shot knows its picture's size from the JPEG; bytes that are no JPEG
// are no shot.
func TestNewShot(t *testing.T) {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 40, 30)), nil); err != nil {
		t.Fatal(err)
	}
	shot, err := NewShot(b.Bytes(), 80, 60)
	if err != nil || shot.Width != 40 || shot.Height != 30 || shot.ViewW != 80 || shot.ViewH != 60 {
		t.Errorf("got %+v, %v, want 40×30 of an 80×60 viewport", shot, err)
	}
	if _, err := NewShot([]byte("not a picture"), 80, 60); err == nil {
		t.Error("bytes that are no JPEG: got a shot")
	}
}
