package nativemsg

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
)

// MaxHostFrame is the largest payload, in bytes, a native host may send to
// the browser: Chrome closes the connection on anything larger.
const MaxHostFrame = 1 << 20

// headerSize is the size of the length prefix of every frame.
const headerSize = 4

var (
	// ErrFrameTooLarge is matched (with errors.Is) by the error returned
	// for a frame whose length exceeds the cap. The error itself is a
	// *FrameSizeError carrying the size and the cap.
	ErrFrameTooLarge = errors.New("frame too large")

	// ErrTruncated is matched by the error returned when the stream ends
	// inside a frame (in its header or its body). That error also matches
	// io.ErrUnexpectedEOF.
	ErrTruncated = errors.New("unexpected EOF inside frame")
)

// FrameSizeError reports a frame whose payload is longer than the cap.
// It unwraps to ErrFrameTooLarge.
type FrameSizeError struct {
	Op   string // "read" or "write"
	Size uint64 // payload length in bytes
	Max  int    // the cap in force
}

// Error implements error.
func (e *FrameSizeError) Error() string {
	return fmt.Sprintf("nativemsg: %s: %v: %d bytes exceeds the cap of %d", e.Op, ErrFrameTooLarge, e.Size, e.Max)
}

// Unwrap returns ErrFrameTooLarge.
func (e *FrameSizeError) Unwrap() error { return ErrFrameTooLarge }

// truncatedError reports EOF inside a frame. It matches both ErrTruncated
// and io.ErrUnexpectedEOF.
type truncatedError struct {
	part      string // "header" or "body"
	got, want uint64
}

func (e *truncatedError) Error() string {
	return fmt.Sprintf("nativemsg: read %s: %v (%d of %d bytes)", e.part, ErrTruncated, e.got, e.want)
}

func (e *truncatedError) Is(target error) bool {
	return target == ErrTruncated || target == io.ErrUnexpectedEOF
}

// Reader reads frames from an underlying stream. A Reader is not safe for
// concurrent use.
//
// After Read returns an error, every later call returns the same error:
// once a frame is refused or cut short, the stream is out of step and
// nothing after it can be trusted.
type Reader struct {
	r   io.Reader
	max int
	hdr [headerSize]byte
	err error
}

// NewReader returns a Reader that reads frames from r and refuses any
// frame whose payload is longer than max bytes. A max of zero or less
// accepts only empty frames.
func NewReader(r io.Reader, max int) *Reader {
	if max < 0 {
		max = 0
	}
	return &Reader{r: r, max: max}
}

// readAhead is how much a buffered Reader reads from its stream at once:
// enough for the header and body of most replies and events, small enough
// that an agent connection, which holds one, costs little more than before.
const readAhead = 4 << 10

// NewBufferedReader is NewReader over a buffer of the stream: a frame's
// header and a small body then cost one read of the stream instead of two
// (a system call each on a pipe or a socket). It reads ahead, so it must
// be the last reader of the stream: what it buffered past a frame is lost
// to any other.
func NewBufferedReader(r io.Reader, max int) *Reader {
	return NewReader(bufio.NewReaderSize(r, readAhead), max)
}

// Read returns the payload of the next frame.
//
// It returns io.EOF (unwrapped) when the stream ends cleanly at a frame
// boundary, an error matching ErrTruncated (and io.ErrUnexpectedEOF) when
// it ends inside a frame, and a *FrameSizeError (matching
// ErrFrameTooLarge) when the announced length exceeds the cap; the length
// is checked before any memory is allocated for the payload.
//
// A zero-length frame is returned as an empty, non-nil slice with a nil
// error: it is well framed, and whether it is acceptable JSON is the
// caller's decision.
func (r *Reader) Read() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	msg, err := r.read()
	if err != nil {
		r.err = err
		return nil, err
	}
	return msg, nil
}

func (r *Reader) read() ([]byte, error) {
	n, err := io.ReadFull(r.r, r.hdr[:])
	switch {
	case err == io.EOF:
		return nil, io.EOF
	case err == io.ErrUnexpectedEOF:
		return nil, &truncatedError{part: "header", got: uint64(n), want: headerSize}
	case err != nil:
		return nil, fmt.Errorf("nativemsg: read header: %w", err)
	}
	size := uint64(binary.NativeEndian.Uint32(r.hdr[:]))
	if size > uint64(r.max) {
		return nil, &FrameSizeError{Op: "read", Size: size, Max: r.max}
	}
	// A frame up to eagerBody is read into one allocation of its size; a
	// larger one grows as its bytes arrive, so a peer that announces a
	// large frame and sends nothing holds eagerBody, not the whole size.
	msg := make([]byte, 0, min(size, eagerBody))
	for uint64(len(msg)) < size {
		part := min(size-uint64(len(msg)), uint64(max(len(msg), eagerBody)))
		msg = slices.Grow(msg, int(part))
		n, err := io.ReadFull(r.r, msg[len(msg):len(msg)+int(part)])
		msg = msg[:len(msg)+n]
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return nil, &truncatedError{part: "body", got: uint64(len(msg)), want: size}
		case err != nil:
			return nil, fmt.Errorf("nativemsg: read body: %w", err)
		}
	}
	return msg, nil
}

// eagerBody is the most a Reader allocates for a frame before its bytes
// arrive.
const eagerBody = 1 << 20

// Writer writes frames to an underlying stream. It is safe for concurrent
// use: each frame is written whole, by a single Write call on the stream,
// and frames from concurrent callers never interleave.
//
// After a write to the stream fails, every later Write returns that error
// without writing: a partly written frame leaves the stream out of step.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	max int
	err error
}

// NewWriter returns a Writer that writes frames to w and refuses any
// payload longer than max bytes (use MaxHostFrame towards the browser).
// A max of zero or less accepts only empty payloads.
func NewWriter(w io.Writer, max int) *Writer {
	if max < 0 {
		max = 0
	}
	return &Writer{w: w, max: max}
}

// Write sends msg as one frame. A payload longer than the cap is refused
// with a *FrameSizeError (matching ErrFrameTooLarge) and nothing is
// written.
func (w *Writer) Write(msg []byte) error {
	if uint64(len(msg)) > uint64(w.max) || uint64(len(msg)) > math.MaxUint32 {
		return &FrameSizeError{Op: "write", Size: uint64(len(msg)), Max: w.max}
	}
	buf := make([]byte, headerSize+len(msg))
	binary.NativeEndian.PutUint32(buf, uint32(len(msg)))
	copy(buf[headerSize:], msg)

	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	n, err := w.w.Write(buf)
	if err == nil && n < len(buf) {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = fmt.Errorf("nativemsg: write: %w", err)
		return w.err
	}
	return nil
}
