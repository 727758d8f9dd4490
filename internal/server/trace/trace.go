// Package trace records what agents did, one JSON line per step (a call,
// with its screenshots before and after when it acted), and reads a trace
// back. It knows nothing of the service: the Recorder starts and stops the
// one trace being recorded (recorder.go), the service fills the steps
// (internal/server/service/trace.go) with the notes of a call's tab work
// (notes.go), the viewer (html.go) renders them.
package trace

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/protocol"
)

// Version is the file format's version, in its header line.
const Version = 1

// DefaultMaxBytes is a trace's size bound when none is given
// (trace.max_bytes).
const DefaultMaxBytes = 50 << 20

// MaxText is the most bytes of a step's longer texts (an error message,
// a snapshot diff) a trace keeps; audit.MaxField caps the short ones.
const MaxText = 16 << 10

// Line is one line of a trace file: its Kind says which part is set.
type Line struct {
	Kind   string    `json:"kind"` // "header", "step", "note" or "end"
	Header *Header   `json:"header,omitempty"`
	Step   *Step     `json:"step,omitempty"`
	Note   string    `json:"note,omitempty"` // kind "note": what changed (screenshots stopped)
	End    *End      `json:"end,omitempty"`
	Time   time.Time `json:"time"`
}

// Header is a trace's first line.
type Header struct {
	Version int `json:"version"`
	// Agents are the agents traced; empty: every agent.
	Agents   []string `json:"agents,omitempty"`
	MaxBytes int64    `json:"maxBytes"`
}

// Step is one call of a traced agent.
type Step struct {
	N int `json:"n"` // from 1
	// Call is the call as the audit log has it: method, agent, tab,
	// origin, target, the params' summary (lengths, never typed text),
	// result code and duration.
	Call protocol.AuditEntry `json:"call"`
	// Error is the error's message when the call failed.
	Error string `json:"error,omitempty"`
	// Summary says in words what the call answered (the element acted
	// on, where a navigation landed).
	Summary string `json:"summary,omitempty"`
	// Box is the element the call acted on, in CSS pixels of the
	// viewport the screenshots show.
	Box *Box `json:"box,omitempty"`
	// Before and After are the screenshots of an action.
	Before *Shot `json:"before,omitempty"`
	After  *Shot `json:"after,omitempty"`
	// ShotsOff: the action's screenshots were left out, the trace being
	// past its size bound.
	ShotsOff bool `json:"shotsOff,omitempty"`
	// NoShot says why an action has no screenshot (a dialog was open, the
	// tab was in the background).
	NoShot string `json:"noShot,omitempty"`
	// Diff is the snapshot's text when the call took a diff snapshot.
	Diff string `json:"diff,omitempty"`
	// Console are the console errors of the step, Failed its failed
	// requests (status ≥ 400 or a network error).
	Console []string `json:"console,omitempty"`
	Failed  []string `json:"failed,omitempty"`
}

// Box is a rectangle in CSS pixels.
type Box struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// Shot is a JPEG screenshot of the viewport, ViewW × ViewH CSS pixels
// scaled to Width × Height.
type Shot struct {
	JPEG   []byte  `json:"jpeg"` // base64 in the file
	Width  int     `json:"width"`
	Height int     `json:"height"`
	ViewW  float64 `json:"viewW"`
	ViewH  float64 `json:"viewH"`
}

// End is a trace's last line.
type End struct {
	Steps int   `json:"steps"`
	Bytes int64 `json:"bytes"`
	// Dropped counts the steps left out once the file reached twice its
	// bound (steps without screenshots stop there too).
	Dropped int `json:"dropped,omitempty"`
}

// Sanitise caps every text of s an agent or a page could choose: the
// call's fields as the audit log caps them, the longer texts at MaxText,
// the lists at audit.MaxList.
func (s Step) Sanitise() Step {
	s.Call = audit.Sanitise(s.Call)
	s.Error = cutText(s.Error)
	s.Diff = cutText(s.Diff)
	s.Summary = audit.Cut(s.Summary)
	s.NoShot = audit.Cut(s.NoShot)
	s.Console = cutList(s.Console)
	s.Failed = cutList(s.Failed)
	return s
}

func cutText(s string) string {
	if len(s) <= MaxText {
		return s
	}
	end := MaxText
	for end > 0 && s[end]&0xc0 == 0x80 { // a UTF-8 continuation byte
		end--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:end], len(s))
}

func cutList(in []string) []string {
	if len(in) > audit.MaxList {
		n := len(in)
		in = append(in[:audit.MaxList-1:audit.MaxList-1], fmt.Sprintf("… (%d in all)", n))
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = audit.Cut(s)
	}
	return out
}

// Writer appends a trace's lines to its file. It is safe for concurrent
// use.
type Writer struct {
	path string
	max  int64

	mu       sync.Mutex
	f        *os.File
	bw       *bufio.Writer
	bytes    int64
	steps    int
	dropped  int
	shotsOff bool
	err      error
}

// Create makes a new trace file at path (0600; an existing file is an
// error) and writes its header. max ≤ 0 means DefaultMaxBytes.
func Create(path string, h Header, max int64) (*Writer, error) {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("trace create: %w", err)
	}
	w := &Writer{path: path, max: max, f: f, bw: bufio.NewWriter(f)}
	h.Version, h.MaxBytes = Version, max
	if err := w.line(Line{Kind: "header", Header: &h}); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return w, w.bw.Flush()
}

// Path is the trace file's path.
func (w *Writer) Path() string { return w.path }

// ShotsOn reports whether an action's screenshots still fit: false once
// the trace passed its bound (the caller then takes none).
func (w *Writer) ShotsOn() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.shotsOff
}

// Write appends a step, numbering it. Past the bound, its screenshots
// are left out (and the trace gets a note, once); past twice the bound,
// the step is left out and counted.
func (w *Writer) Write(s Step) error {
	s = s.Sanitise()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.bytes >= 2*w.max {
		w.dropped++
		return nil
	}
	if s.Before != nil || s.After != nil {
		size := int64(0)
		for _, sh := range []*Shot{s.Before, s.After} {
			if sh != nil {
				size += int64(len(sh.JPEG))*4/3 + 128
			}
		}
		if w.shotsOff || w.bytes+size > w.max {
			s.Before, s.After, s.ShotsOff = nil, nil, true
		}
	}
	if s.ShotsOff && !w.shotsOff {
		w.shotsOff = true
		note := fmt.Sprintf("screenshots stopped: the trace reached its bound of %d bytes (trace.max_bytes); steps go on without them", w.max)
		if err := w.line(Line{Kind: "note", Note: note}); err != nil {
			return err
		}
	}
	w.steps++
	s.N = w.steps
	if err := w.line(Line{Kind: "step", Step: &s}); err != nil {
		return err
	}
	return w.bw.Flush()
}

// line writes one line (w.mu held).
func (w *Writer) line(l Line) error {
	if l.Time.IsZero() {
		l.Time = time.Now().UTC()
	}
	b, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("trace write: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.bw.Write(b); err != nil {
		w.err = fmt.Errorf("trace write: %w", err)
		return w.err
	}
	w.bytes += int64(len(b))
	return nil
}

// Close writes the end line and closes the file.
func (w *Writer) Close() (End, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	end := End{Steps: w.steps, Dropped: w.dropped}
	if w.f == nil {
		return end, errors.New("trace close: closed already")
	}
	err := w.err
	if err == nil {
		end.Bytes = w.bytes
		err = w.line(Line{Kind: "end", End: &end})
	}
	if err == nil {
		err = w.bw.Flush()
	}
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("trace close: %w", cerr)
	}
	w.f = nil
	if w.err == nil {
		w.err = errors.New("trace write: closed")
	}
	return end, err
}

// Read reads back what the writer has written so far (the trace being
// recorded, without its end line).
func (w *Writer) Read() (*Trace, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil, errors.New("trace read: closed")
	}
	if err := w.bw.Flush(); err != nil {
		return nil, fmt.Errorf("trace read: %w", err)
	}
	return ReadFile(w.path)
}

// Trace is a trace file read back.
type Trace struct {
	Header Header
	Steps  []Step
	Notes  []string
	// End is nil while the trace is being recorded (or when it was cut
	// short).
	End *End
}

// MaxLine is the longest line Read takes (a step with two screenshots is
// far smaller).
const MaxLine = 64 << 20

// Read reads a trace file's lines. A line of an unknown kind is passed
// over (a newer writer's); one that is not JSON is an error.
func Read(r io.Reader) (*Trace, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	t := &Trace{}
	n := 0
	for sc.Scan() {
		n++
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("trace read: line %d: %w", n, err)
		}
		switch {
		case l.Kind == "header" && l.Header != nil:
			t.Header = *l.Header
		case l.Kind == "step" && l.Step != nil:
			t.Steps = append(t.Steps, *l.Step)
		case l.Kind == "note":
			t.Notes = append(t.Notes, l.Note)
		case l.Kind == "end" && l.End != nil:
			t.End = l.End
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("trace read: line %d: %w", n+1, err)
	}
	if n == 0 || t.Header.Version == 0 {
		return nil, errors.New("trace read: no header line: not a trace file")
	}
	return t, nil
}

// ReadFile reads the trace file at path.
func ReadFile(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace read: %w", err)
	}
	defer f.Close()
	return Read(f)
}

// maxHeaderLine is the longest first line IsTrace reads: a header is a
// few hundred bytes (its agents' names at most).
const maxHeaderLine = 64 << 10

// IsTrace reports whether r starts with a trace's header line: whether
// the file is one Create made (a retention sweep deletes only those).
func IsTrace(r io.Reader) bool {
	sc := bufio.NewScanner(io.LimitReader(r, maxHeaderLine))
	sc.Buffer(make([]byte, 0, 4<<10), maxHeaderLine)
	if !sc.Scan() {
		return false
	}
	var l Line
	if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
		return false
	}
	return l.Kind == "header" && l.Header != nil && l.Header.Version > 0
}
