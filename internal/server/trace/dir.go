package trace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/egohost/egohost/protocol"
)

// FileName checks the name a trace was given (a plain file name: a trace
// lives in the data dir's traces folder, never where a caller points), or
// makes one from the time; ok is false for a name that is not plain.
func FileName(out string, now time.Time) (name string, ok bool) {
	if out == "" {
		return "trace-" + now.Format("20060102-150405.000") + ".jsonl", true
	}
	if len(out) > 128 || out == "." || out == ".." || strings.ContainsAny(out, `/\:`) || strings.ContainsFunc(out, func(r rune) bool { return r < ' ' || r == 0x7f }) || strings.HasPrefix(out, ".") {
		return "", false
	}
	if filepath.Ext(out) == "" {
		out += ".jsonl"
	}
	return out, true
}

// List is the files of the traces folder dir, newest first (none when
// the folder does not exist).
func List(dir string) ([]protocol.TraceFile, error) {
	out := []protocol.TraceFile{}
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list traces: %w", err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, protocol.TraceFile{Name: e.Name(), Path: filepath.Join(dir, e.Name()), Bytes: info.Size(), Modified: info.ModTime().UTC()})
	}
	slices.SortFunc(out, func(a, b protocol.TraceFile) int { return b.Modified.Compare(a.Modified) })
	return out, nil
}

// Pruned is a trace file Prune deleted.
type Pruned struct {
	Name     string
	Modified time.Time
}

// Prune deletes the trace files in dir last written before cutoff, but
// keep (a name). It deletes only what a Writer made: regular files (a
// symlink is not followed nor deleted) that start with a trace's header
// line (IsTrace); other files stay.
func Prune(dir string, cutoff time.Time, keep string) ([]Pruned, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("prune traces: %w", err)
	}
	var deleted []Pruned
	var errs []error
	for _, e := range ents {
		if e.Name() == keep || !e.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		info, err := e.Info() // Lstat: a symlink is not followed
		if err != nil || !info.Mode().IsRegular() || !info.ModTime().Before(cutoff) {
			continue
		}
		if !isTraceFile(path, info) {
			continue
		}
		if err := os.Remove(path); err != nil {
			errs = append(errs, fmt.Errorf("prune traces: %w", err))
			continue
		}
		deleted = append(deleted, Pruned{Name: e.Name(), Modified: info.ModTime()})
	}
	return deleted, errors.Join(errs...)
}

// isTraceFile reports whether path, still the regular file info describes
// (not swapped for a symlink since), is a trace file.
func isTraceFile(path string, info fs.FileInfo) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	now, err := f.Stat()
	if err != nil || !os.SameFile(info, now) {
		return false
	}
	return IsTrace(f)
}

// Recording is a trace being recorded: its writer, and whose calls it
// records.
type Recording struct {
	W      *Writer
	Status protocol.TraceStatus
	agents map[string]bool // nil: every agent
}

// NewRecording records the named agents' calls (none: every agent's)
// into w, the file at path.
func NewRecording(w *Writer, path string, agents []string, started time.Time) *Recording {
	r := &Recording{W: w, Status: protocol.TraceStatus{File: path, Agents: agents, Started: started}}
	if len(agents) > 0 {
		r.agents = make(map[string]bool, len(agents))
		for _, n := range agents {
			r.agents[n] = true
		}
	}
	return r
}

// EveryAgent reports whether the recording was started for every agent.
func (r *Recording) EveryAgent() bool { return r.agents == nil }

// Records reports whether the recording records the named agent's calls.
func (r *Recording) Records(agent string) bool { return r.agents == nil || r.agents[agent] }

// LastSteps reads back the last (at most) steps of one agent.
func (r *Recording) LastSteps(agent string, last int) (*Trace, error) {
	tr, err := r.W.Read()
	if err != nil {
		return nil, err
	}
	var steps []Step
	for _, step := range tr.Steps {
		if step.Call.Agent == agent {
			steps = append(steps, step)
		}
	}
	tr.Steps = steps[max(0, len(steps)-last):]
	return tr, nil
}
