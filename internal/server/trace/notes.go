package trace

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/protocol"
)

// A step's pictures are JPEGs of quality ShotQuality, at most ShotWidth
// pixels wide (the service asks Chrome for them so).
const (
	ShotWidth   = 800
	ShotQuality = 60
)

// NewShot is the picture of a viewport of viewW × viewH CSS pixels that
// Chrome captured as a JPEG (data).
func NewShot(data []byte, viewW, viewH float64) (*Shot, error) {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("read the JPEG: %w", err)
	}
	return &Shot{JPEG: data, Width: cfg.Width, Height: cfg.Height, ViewW: viewW, ViewH: viewH}, nil
}

// Notes are what a call's tab work adds to its step, as it goes: the
// screenshots before and after it acted (or why there are none), the
// element's box, and what the tab logged meanwhile. Safe for concurrent
// use (a retried run notes again).
type Notes struct {
	mu            sync.Mutex
	noShot        string // why a picture was not taken
	before, after *Shot
	box           *Box
	console       []string
	failed        []string
}

// Before notes the picture before the call acted (a retried run keeps
// the first), or why there is none.
func (n *Notes) Before(shot *Shot, why string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.before == nil {
		n.before = shot
	}
	if why != "" {
		n.noShot = why
	}
}

// After notes the picture after the call acted (or why there is none),
// and the tab's console errors and failed requests since the step began
// (TabLog).
func (n *Notes) After(shot *Shot, why string, console, failed []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if shot != nil {
		n.after = shot
	}
	if why != "" {
		n.noShot = why
	}
	n.console, n.failed = console, failed
}

// Box notes the element the call acted on.
func (n *Notes) Box(b Box) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.box = &b
}

// Fill adds the notes to the call's step.
func (n *Notes) Fill(st *Step) {
	n.mu.Lock()
	defer n.mu.Unlock()
	st.Before, st.After, st.Box = n.before, n.after, n.box
	st.Console, st.Failed, st.NoShot = n.console, n.failed, n.noShot
}

// TabLog words what a tab logged since a time for a step: its console
// errors (msgs, of level error) and its failed requests (a network error,
// or a status of 400 or more), their URLs without the query.
func TabLog(msgs []protocol.ConsoleMessage, reqs []protocol.NetworkRequest, since time.Time) (console, failed []string) {
	from := float64(since.UnixMilli())
	for _, m := range msgs {
		if m.Time >= from {
			console = append(console, m.Type+": "+m.Text)
		}
	}
	for _, r := range reqs {
		if r.Time < from {
			continue
		}
		switch {
		case r.Failed != "":
			failed = append(failed, fmt.Sprintf("%s %s: %s", r.Method, audit.StripQuery(r.URL), r.Failed))
		case r.Status >= 400:
			failed = append(failed, fmt.Sprintf("%s %s: %d %s", r.Method, audit.StripQuery(r.URL), r.Status, r.StatusText))
		}
	}
	return console, failed
}

// Summary says in words what a call answered (res), and gives a diff
// snapshot's text when the call asked for a diff. Values the page or the
// agent chose (an eval's value, a field's text) are left out.
func Summary(res any, diff bool) (summary, diffText string) {
	switch r := res.(type) {
	case protocol.ActionResult:
		summary = r.Element
		if r.Settled.URL != "" {
			summary += " → " + audit.StripQuery(r.Settled.URL)
		}
	case protocol.NavResult:
		summary = fmt.Sprintf("%s “%s”", audit.StripQuery(r.URL), r.Title)
	case protocol.TabResult:
		summary = fmt.Sprintf("tab %d: %s “%s”", r.Tab.ID, audit.StripQuery(r.Tab.URL), r.Tab.Title)
	case protocol.SnapshotResult:
		summary = fmt.Sprintf("%s “%s”", audit.StripQuery(r.URL), r.Title)
		if diff {
			diffText = r.Text
		}
	case protocol.WaitResult:
		summary = r.What
	}
	return summary, diffText
}
