package filegate

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// maxName caps a stored file's name, in bytes (file systems allow 255).
const maxName = 200

// SanitizeName makes a file name the page may see from one an agent
// gave: its last path element only (no folders, no ".."), no control or
// reserved characters (each becomes "_"), valid UTF-8, no leading or
// trailing dots or spaces, at most 200 bytes (the extension kept).
// Without an extension, one is taken from mimeType when it names a type.
func SanitizeName(name, mimeType string) string {
	if i := strings.LastIndexAny(strings.TrimRight(name, `/\`), `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.ToValidUTF8(name, "_")
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, name)
	name = strings.Trim(name, " .")
	if name == "" {
		name = "file"
	}
	if filepath.Ext(name) == "" && mimeType != "" {
		name += extensionOf(mimeType)
	}
	if len(name) > maxName {
		ext := filepath.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		cut := maxName - len(ext)
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + ext
	}
	return name
}

// commonExtensions are the usual extensions of common types (mime's own
// lists are sorted by name: ".jfif" before ".jpg").
var commonExtensions = map[string]string{
	"text/plain": ".txt", "text/csv": ".csv", "text/html": ".html", "application/json": ".json",
	"application/pdf": ".pdf", "application/zip": ".zip", "application/xml": ".xml", "text/xml": ".xml",
	"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp", "image/svg+xml": ".svg",
}

// extensionOf returns an extension for a MIME type, "" for none.
func extensionOf(mimeType string) string {
	t, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return ""
	}
	if ext, ok := commonExtensions[t]; ok {
		return ext
	}
	if exts, _ := mime.ExtensionsByType(t); len(exts) > 0 {
		return exts[0]
	}
	return ""
}

// TooLargeError is a batch of files over its cap.
type TooLargeError struct {
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the files exceed %d bytes in all (agents.upload_max_bytes)", e.Limit)
}

// Store keeps the files a page was handed by the service (the bytes an
// agent sent, an agent's copies) in a private folder: Chrome reads a
// file only when the page does, so each lives until its owner (a tab)
// goes, the store passes its cap (the oldest go first), or the service
// stops.
type Store struct {
	dir string
	max int64

	mu    sync.Mutex
	kept  []kept // oldest first
	total int64
}

type kept struct {
	owner string
	dirs  []string
	size  int64
}

// OpenStore makes dir the store's folder (0700), emptied of what a
// previous service left; the files kept weigh at most max bytes.
func OpenStore(dir string, max int64) (*Store, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("upload store: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("upload store: %w", err)
	}
	return &Store{dir: dir, max: max}, nil
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

// Batch is the files of one call, staged until the call keeps or
// discards them.
type Batch struct {
	s     *Store
	limit int64
	dirs  []string
	size  int64
}

// Stage starts a batch of at most limit bytes.
func (s *Store) Stage(limit int64) *Batch { return &Batch{s: s, limit: limit} }

// Write stores data under name (sanitised) and returns its path.
func (b *Batch) Write(name string, data []byte) (string, error) {
	if b.size+int64(len(data)) > b.limit {
		return "", &TooLargeError{Limit: b.limit}
	}
	return b.store(name, func(f *os.File) (int64, error) {
		n, err := f.Write(data)
		return int64(n), err
	})
}

// Copy stores what r holds under name (sanitised) and returns its path.
func (b *Batch) Copy(name string, r io.Reader) (string, error) {
	return b.store(name, func(f *os.File) (int64, error) {
		n, err := io.Copy(f, io.LimitReader(r, b.limit-b.size+1))
		if err == nil && b.size+n > b.limit {
			err = &TooLargeError{Limit: b.limit}
		}
		return n, err
	})
}

func (b *Batch) store(name string, write func(*os.File) (int64, error)) (string, error) {
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", fmt.Errorf("upload store: %w", err)
	}
	dir := filepath.Join(b.s.dir, hex.EncodeToString(rnd[:]))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("upload store: %w", err)
	}
	b.dirs = append(b.dirs, dir)
	path := filepath.Join(dir, SanitizeName(name, ""))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("upload store: %w", err)
	}
	n, err := write(f)
	b.size += n
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		var tl *TooLargeError
		if errors.As(err, &tl) {
			return "", err
		}
		return "", fmt.Errorf("upload store: %w", err)
	}
	return path, nil
}

// Keep hands the batch's files to owner: they stay until Drop(owner),
// or until the store passes its cap and they are the oldest.
func (b *Batch) Keep(owner string) {
	if len(b.dirs) == 0 {
		return
	}
	s := b.s
	s.mu.Lock()
	s.kept = append(s.kept, kept{owner: owner, dirs: b.dirs, size: b.size})
	s.total += b.size
	var evicted []kept
	for s.total > s.max && len(s.kept) > 1 {
		evicted = append(evicted, s.kept[0])
		s.total -= s.kept[0].size
		s.kept = s.kept[1:]
	}
	s.mu.Unlock()
	b.dirs = nil
	for _, k := range evicted {
		removeAll(k.dirs)
	}
}

// Discard removes the batch's files (the call failed).
func (b *Batch) Discard() {
	removeAll(b.dirs)
	b.dirs = nil
}

// Drop removes owner's files (its tab closed).
func (s *Store) Drop(owner string) {
	s.mu.Lock()
	var gone []kept
	rest := s.kept[:0]
	for _, k := range s.kept {
		if k.owner == owner {
			gone = append(gone, k)
			s.total -= k.size
			continue
		}
		rest = append(rest, k)
	}
	s.kept = rest
	s.mu.Unlock()
	for _, k := range gone {
		removeAll(k.dirs)
	}
}

// Close removes every file of the store and its folder.
func (s *Store) Close() error {
	s.mu.Lock()
	s.kept, s.total = nil, 0
	s.mu.Unlock()
	return os.RemoveAll(s.dir)
}

func removeAll(dirs []string) {
	for _, d := range dirs {
		os.RemoveAll(d)
	}
}
