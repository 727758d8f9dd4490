package trace

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/protocol"
)

// Recorder starts and stops the one trace being recorded in a traces
// folder (the owner's trace.start and trace.stop, trace.enabled), and
// deletes the traces older than its MaxAge. Its errors are the agents'
// (protocol.Error).
type Recorder struct {
	dir      string        // the traces folder
	maxBytes int64         // a trace's bound (trace.max_bytes; 0: DefaultMaxBytes)
	maxAge   time.Duration // older traces are deleted (trace.max_age; 0: never)
	log      *slog.Logger

	mu  sync.Mutex // starts and stops
	cur atomic.Pointer[Recording]
}

// NewRecorder records traces in dir, each of at most maxBytes, and
// deletes those older than maxAge (0: none), logging to log.
func NewRecorder(dir string, maxBytes int64, maxAge time.Duration, log *slog.Logger) *Recorder {
	return &Recorder{dir: dir, maxBytes: maxBytes, maxAge: maxAge, log: log}
}

// Dir is the traces folder.
func (r *Recorder) Dir() string { return r.dir }

// Current is the trace being recorded, nil when none is (one atomic
// load: every call asks).
func (r *Recorder) Current() *Recording { return r.cur.Load() }

// Start starts recording the agents' calls (none: every agent's) into
// the traces folder's file out (a plain name; "": one named for now),
// after deleting the old traces.
func (r *Recorder) Start(agents []string, out string, now time.Time) (protocol.TraceStatus, error) {
	name, ok := FileName(out, now)
	if !ok {
		return protocol.TraceStatus{}, protocol.Errorf(protocol.CodeInvalidParams, "trace.start: out %q must be a plain file name (it goes in the data dir's %s folder)", audit.Cut(out), filepath.Base(r.dir))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if t := r.cur.Load(); t != nil {
		return protocol.TraceStatus{}, protocol.Errorf(protocol.CodeInvalidParams, "trace.start: a trace is being recorded already (%s): stop it first (`egohost trace stop`)", t.Status.File)
	}
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return protocol.TraceStatus{}, protocol.Errorf(protocol.CodeInternal, "trace.start: %v", err)
	}
	r.Prune(now)
	path := filepath.Join(r.dir, name)
	w, err := Create(path, Header{Agents: agents}, r.maxBytes)
	if errors.Is(err, fs.ErrExist) {
		return protocol.TraceStatus{}, protocol.Errorf(protocol.CodeForbiddenPath, "trace.start: %s exists: name another file", path).With("path", path).With("reason", "exists")
	} else if err != nil {
		return protocol.TraceStatus{}, protocol.Errorf(protocol.CodeInternal, "trace.start: %v", err)
	}
	t := NewRecording(w, path, agents, now)
	r.cur.Store(t)
	r.log.Info("trace started", "file", path, "agents", strings.Join(agents, ","))
	return t.Status, nil
}

// Stop ends the trace being recorded; ok is false when none was.
func (r *Recorder) Stop() (res protocol.TraceStopResult, ok bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.cur.Swap(nil)
	if t == nil {
		return protocol.TraceStopResult{}, false, nil
	}
	end, err := t.W.Close()
	return protocol.TraceStopResult{File: t.Status.File, Steps: end.Steps, Bytes: end.Bytes, Dropped: end.Dropped}, true, err
}

// Prune deletes the traces older than the max age (none when it is 0),
// never the one being written, and logs what it deleted. The service
// prunes as it starts; Start prunes (under its lock, so never the trace
// it is about to replace) as a trace starts.
func (r *Recorder) Prune(now time.Time) {
	if r.maxAge <= 0 {
		return
	}
	var keep string
	if t := r.cur.Load(); t != nil {
		keep = filepath.Base(t.Status.File)
	}
	deleted, err := Prune(r.dir, now.Add(-r.maxAge), keep)
	for _, d := range deleted {
		r.log.Info("trace deleted: older than trace.max_age", "file", filepath.Join(r.dir, d.Name), "modified", d.Modified.UTC().Format(time.RFC3339), "max_age", r.maxAge.String())
	}
	if err != nil {
		r.log.Warn("trace.max_age: delete old traces", "dir", r.dir, "err", err)
	}
}
