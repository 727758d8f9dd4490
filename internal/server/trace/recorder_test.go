package trace

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// writeTraceFile makes a file in dir last written at mod: a trace (with
// Create's header) or other bytes.
func writeTraceFile(t *testing.T, dir, name string, isTrace bool, mod time.Time) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if isTrace {
		w, err := Create(path, Header{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
	} else if err := os.WriteFile(path, []byte("not a trace\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
	return path
}

// trace.max_age: the recorder deletes the traces older than it when told
// (as the service starts) and as a trace starts, and logs each; newer traces, files it did
// not make (of any age), symlinks (and what they point to, even an old
// trace outside the folder) and the trace being written stay.
func TestRecorderMaxAge(t *testing.T) {
	const maxAge = 7 * 24 * time.Hour
	now := time.Now()
	old, young := now.Add(-maxAge-time.Hour), now.Add(-maxAge+time.Hour)
	dir := filepath.Join(t.TempDir(), "traces")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	outside := writeTraceFile(t, t.TempDir(), "elsewhere.jsonl", true, old)
	writeTraceFile(t, dir, "trace-20261101-080000.000.jsonl", true, old)
	writeTraceFile(t, dir, "shop.jsonl", true, old) // a name given to trace start --out
	writeTraceFile(t, dir, "trace-20261201-080000.000.jsonl", true, young)
	writeTraceFile(t, dir, "notes.txt", false, old)
	writeTraceFile(t, dir, "trace-20261101-090000.000.jsonl.bak", false, old)
	if err := os.Symlink(outside, filepath.Join(dir, "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(dir, "sub.jsonl"), old, old); err != nil {
		t.Fatal(err)
	}

	var log bytes.Buffer
	r := NewRecorder(dir, 0, maxAge, slog.New(slog.NewTextHandler(&log, nil)))
	t.Cleanup(func() { r.Stop() })
	r.Prune(now) // as the service starts
	names := func() []string {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range ents {
			got = append(got, e.Name())
		}
		return got
	}
	want := []string{"link.jsonl", "notes.txt", "sub.jsonl", "trace-20261101-090000.000.jsonl.bak", "trace-20261201-080000.000.jsonl"}
	if got := names(); !slices.Equal(got, want) {
		t.Errorf("after the start, got files %q, want %q", got, want)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the symlink's old trace outside the folder: %v, want it kept", err)
	}
	for _, n := range []string{"trace-20261101-080000.000.jsonl", "shop.jsonl"} {
		if !strings.Contains(log.String(), "trace deleted") || !strings.Contains(log.String(), n) {
			t.Errorf("log %q does not tell %s was deleted", log.String(), n)
		}
	}

	// A trace starts: the one that has aged since goes; the new one and
	// the one being written (even when old) never do.
	st, err := r.Start(nil, "current", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(st.File, old, old); err != nil {
		t.Fatal(err)
	}
	r.maxAge = time.Hour // the young trace is older than that
	r.Prune(time.Now())
	want = []string{"current.jsonl", "link.jsonl", "notes.txt", "sub.jsonl", "trace-20261101-090000.000.jsonl.bak"}
	if got := names(); !slices.Equal(got, want) {
		t.Errorf("with a trace being written, got files %q, want %q", got, want)
	}
	if _, _, err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(st.File, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Start(nil, "next", time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := names(); slices.Contains(got, "current.jsonl") || !slices.Contains(got, "next.jsonl") {
		t.Errorf("after the next trace started, got files %q, want current.jsonl deleted and next.jsonl there", got)
	}

	// 0 keeps every trace.
	r.maxAge = 0
	r.Prune(time.Now().Add(100 * maxAge))
	if got := names(); !slices.Contains(got, "next.jsonl") {
		t.Errorf("with trace.max_age 0, got files %q, want next.jsonl kept", got)
	}
}
