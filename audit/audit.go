// Package audit is the log of what agents did to tabs: one JSON line per
// call, appended to an owner-only file that is rotated by size, and read
// back with filters (egohost audit, the popup's agents panel).
package audit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/egohost/egohost/protocol"
)

// Entry is one call (protocol.AuditEntry). It never holds typed text,
// evaluated source or any other value an agent sent: fill, type and press
// log a length, eval a hash and a length.
type Entry = protocol.AuditEntry

// Log appends entries to a file, rotating it at MaxSize: the file moves
// to path.1 (the one before is dropped). It is safe for concurrent use.
type Log struct {
	path    string
	maxSize int64

	mu   sync.Mutex
	f    *os.File
	size int64
}

// Open opens (creating 0600) the log at path; maxSize ≤ 0 means 10 MiB.
func Open(path string, maxSize int64) (*Log, error) {
	if maxSize <= 0 {
		maxSize = 10 << 20
	}
	l := &Log{path: path, maxSize: maxSize}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Log) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open audit log: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("open audit log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("open audit log: %w", err)
	}
	l.f, l.size = f, st.Size()
	return nil
}

// Append writes one entry.
func (l *Log) Append(e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return errors.New("audit: log closed")
	}
	if l.size > 0 && l.size+int64(len(b)) > l.maxSize {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	n, err := l.f.Write(b)
	l.size += int64(n)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// rotate moves the file to path.1 and starts a new one. l.mu is held.
func (l *Log) rotate() error {
	l.f.Close()
	l.f = nil
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return fmt.Errorf("audit: rotate: %w", err)
	}
	return l.open()
}

// Close closes the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Filter selects entries.
type Filter struct {
	Agent string    // "" = every agent
	Since time.Time // zero = from the start
	Limit int       // the last Limit entries; 0 = all
}

// Match reports whether e passes the filter (Limit aside).
func (f Filter) Match(e Entry) bool {
	return (f.Agent == "" || e.Agent == f.Agent) && (f.Since.IsZero() || !e.Time.Before(f.Since))
}

// Read returns the entries of the log at path (the rotated file first)
// that pass f, oldest first. Lines that do not parse are skipped.
func Read(path string, f Filter) ([]Entry, error) {
	var out []Entry
	for _, p := range []string{path + ".1", path} {
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read audit log: %w", err)
		}
		out = append(out, parse(bytes.NewReader(b), f)...)
	}
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out, nil
}

func parse(r io.Reader, f Filter) []Entry {
	var out []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) == nil && f.Match(e) {
			out = append(out, e)
		}
	}
	return out
}

// Follow calls fn with each entry appended to the log at path from offset
// on (the file's size when Follow starts, if offset < 0) until ctx ends,
// polling every interval. A rotation starts it over at the new file's
// start.
func Follow(ctx context.Context, path string, offset int64, interval time.Duration, f Filter, fn func(Entry)) error {
	if offset < 0 {
		if st, err := os.Stat(path); err == nil {
			offset = st.Size()
		} else {
			offset = 0
		}
	}
	var partial []byte
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		st, err := os.Stat(path)
		if err == nil {
			if st.Size() < offset {
				offset, partial = 0, nil // rotated
			}
			if st.Size() > offset {
				file, err := os.Open(path)
				if err != nil {
					return fmt.Errorf("follow audit log: %w", err)
				}
				b := make([]byte, st.Size()-offset)
				n, _ := file.ReadAt(b, offset)
				file.Close()
				offset += int64(n)
				partial = append(partial, b[:n]...)
				if i := bytes.LastIndexByte(partial, '\n'); i >= 0 {
					for _, e := range parse(bytes.NewReader(partial[:i+1]), f) {
						fn(e)
					}
					partial = append([]byte(nil), partial[i+1:]...)
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
