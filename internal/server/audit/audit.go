// Package audit is the log of what agents did to tabs and what the person
// decided: one JSON line per event, every field an agent controls capped,
// appended to an owner-only file that is rotated by size (a few files
// kept), and read back with filters past any bad line (egohost audit,
// the popup's agents panel).
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
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/egohost/egohost/protocol"
)

// Entry is one call (protocol.AuditEntry). It never holds typed text,
// evaluated source or any other value an agent sent: fill, type and press
// log a length, eval a hash and a length. Every text field is capped
// (Sanitise) when it is written and when it is read.
type Entry = protocol.AuditEntry

// DefaultMaxSize is the log's size before it rotates when Open is given
// none; DefaultKeep how many rotated files it keeps.
const (
	DefaultMaxSize = 10 << 20
	DefaultKeep    = 5
)

// MaxLine is the longest line the readers take; a longer one (never
// written by Append, whose entries are capped) is skipped.
const MaxLine = 64 << 10

// Log appends entries to a file, rotating it at maxSize: the file moves
// to path.1, path.1 to path.2 and so on, and the one past path.keep is
// dropped. It is safe for concurrent use.
type Log struct {
	path    string
	maxSize int64
	keep    int

	mu   sync.Mutex
	f    *os.File
	size int64
}

// Open opens (creating 0600) the log at path. maxSize ≤ 0 means
// DefaultMaxSize, keep ≤ 0 DefaultKeep.
func Open(path string, maxSize int64, keep int) (*Log, error) {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	if keep <= 0 {
		keep = DefaultKeep
	}
	l := &Log{path: path, maxSize: maxSize, keep: keep}
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

// Append writes one entry, capped (Sanitise).
func (l *Log) Append(e Entry) error {
	b, err := json.Marshal(Sanitise(e))
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

// rotate shifts the files by one (path → path.1 → path.2 …, dropping
// path.keep, and any older one a larger keep left) and starts a new one.
// l.mu is held.
func (l *Log) rotate() error {
	l.f.Close()
	l.f = nil
	if files, err := logFiles(l.path); err == nil {
		for _, p := range files {
			if n, ok := rotatedNumber(l.path, p); ok && n >= l.keep {
				os.Remove(p)
			}
		}
	}
	for i := l.keep - 1; i >= 1; i-- {
		err := os.Rename(rotated(l.path, i), rotated(l.path, i+1))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("audit: rotate: %w", err)
		}
	}
	if err := os.Rename(l.path, rotated(l.path, 1)); err != nil {
		return fmt.Errorf("audit: rotate: %w", err)
	}
	return l.open()
}

// rotated is the name of the i-th rotated file (1: the newest).
func rotated(path string, i int) string { return path + "." + strconv.Itoa(i) }

// rotatedNumber is the i of a rotated file's name p, and whether p is one.
func rotatedNumber(path, p string) (int, bool) {
	rest, ok := strings.CutPrefix(p, path+".")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n > 0 && strconv.Itoa(n) == rest
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

// TailFilter is the filter an audit.tail call asks for: its agent, its
// since (RFC 3339), its limit (1 to 1000; 50 when not given). Its errors
// are invalid_params.
func TailFilter(p protocol.AuditTailParams) (Filter, error) {
	f := Filter{Agent: p.Agent, Limit: p.Limit}
	if f.Limit == 0 {
		f.Limit = 50
	}
	if f.Limit < 0 || f.Limit > 1000 {
		return Filter{}, protocol.Errorf(protocol.CodeInvalidParams, "audit.tail: limit must be between 1 and 1000")
	}
	if p.Since != "" {
		t, err := time.Parse(time.RFC3339, p.Since)
		if err != nil {
			return Filter{}, protocol.Errorf(protocol.CodeInvalidParams, "audit.tail: since: %v", err)
		}
		f.Since = t
	}
	return f, nil
}

// Result is what Scan read.
type Result struct {
	Entries []Entry // oldest first
	// Skipped counts the lines that were not entries (not JSON, or over
	// MaxLine): they are passed over, never the end of the reading.
	Skipped int
}

// Read returns the entries of the log at path (the oldest rotated file
// first) that pass f, oldest first. Lines that are not entries are
// skipped (Scan counts them).
func Read(path string, f Filter) ([]Entry, error) {
	r, err := Scan(path, f)
	return r.Entries, err
}

// Scan is Read, also counting the lines it skipped.
func Scan(path string, f Filter) (Result, error) {
	var res Result
	files, err := logFiles(path)
	if err != nil {
		return res, err
	}
	for _, p := range files {
		file, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			continue // rotated away under us
		}
		if err != nil {
			return res, fmt.Errorf("read audit log: %w", err)
		}
		lr := newLineReader(file)
		for {
			line, err := lr.next()
			if err != nil {
				break
			}
			e, ok := parseLine(line)
			switch {
			case !ok:
				res.Skipped++
			case f.Match(e):
				res.Entries = append(res.Entries, e)
				if f.Limit > 0 && len(res.Entries) >= 2*f.Limit {
					res.Entries = append(res.Entries[:0], res.Entries[len(res.Entries)-f.Limit:]...)
				}
			}
		}
		res.Skipped += lr.overlong
		file.Close()
	}
	if f.Limit > 0 && len(res.Entries) > f.Limit {
		res.Entries = res.Entries[len(res.Entries)-f.Limit:]
	}
	return res, nil
}

// logFiles lists the log's files, the oldest rotated one first and path
// itself last (those that exist).
func logFiles(path string) ([]string, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	var nums []int
	for _, e := range ents {
		if n, ok := rotatedNumber(base, e.Name()); ok {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	out := make([]string, 0, len(nums)+1)
	for i := len(nums) - 1; i >= 0; i-- {
		out = append(out, rotated(path, nums[i]))
	}
	return append(out, path), nil
}

// parseLine decodes one line into a capped entry.
func parseLine(line []byte) (Entry, bool) {
	var e Entry
	if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &e) != nil {
		return e, false
	}
	return Sanitise(e), true
}

// lineReader splits a file into lines of at most MaxLine bytes, passing
// over (and counting) longer ones without holding them.
type lineReader struct {
	r        *bufio.Reader
	overlong int
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, MaxLine)}
}

// next returns the next whole line without its newline; an unfinished
// last line (being written) is left out. The slice is valid until the
// next call.
func (lr *lineReader) next() ([]byte, error) {
	for {
		line, err := lr.r.ReadSlice('\n')
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			lr.overlong++
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = lr.r.ReadSlice('\n')
			}
			if err != nil {
				return nil, err
			}
		default:
			return nil, err
		}
	}
}

// Follow calls fn with each entry appended to the log at path from offset
// on (the file's size when Follow starts, if offset < 0) until ctx ends,
// polling every interval. A rotation starts it over at the new file's
// start. skipped (may be nil) is told of each line that is not an entry.
func Follow(ctx context.Context, path string, offset int64, interval time.Duration, f Filter, fn func(Entry), skipped func()) error {
	if offset < 0 {
		if st, err := os.Stat(path); err == nil {
			offset = st.Size()
		} else {
			offset = 0
		}
	}
	var partial []byte
	discarding := false // inside a line over MaxLine: drop up to its end
	skip := func() {
		if skipped != nil {
			skipped()
		}
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		st, err := os.Stat(path)
		if err == nil {
			if st.Size() < offset {
				offset, partial, discarding = 0, nil, false // rotated
			}
			if st.Size() > offset {
				file, err := os.Open(path)
				if err != nil {
					return fmt.Errorf("follow audit log: %w", err)
				}
				b := make([]byte, min(st.Size()-offset, 1<<20))
				n, _ := file.ReadAt(b, offset)
				file.Close()
				offset += int64(n)
				for chunk := b[:n]; len(chunk) > 0; {
					i := bytes.IndexByte(chunk, '\n')
					if i < 0 {
						if !discarding {
							partial = append(partial, chunk...)
							if len(partial) > MaxLine {
								partial, discarding = nil, true
								skip()
							}
						}
						break
					}
					if discarding {
						discarding = false
					} else {
						line := append(partial, chunk[:i]...)
						if e, ok := parseLine(line); !ok {
							skip()
						} else if f.Match(e) {
							fn(e)
						}
					}
					partial = partial[:0]
					chunk = chunk[i+1:]
				}
				if st.Size() > offset {
					continue // more to read now
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
