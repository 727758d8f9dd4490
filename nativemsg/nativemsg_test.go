package nativemsg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// frame returns the wire form of msg.
func frame(msg string) []byte {
	b := binary.NativeEndian.AppendUint32(nil, uint32(len(msg)))
	return append(b, msg...)
}

// header returns a bare length prefix announcing n bytes.
func header(n uint32) []byte {
	return binary.NativeEndian.AppendUint32(nil, n)
}

func cat(parts ...[]byte) []byte {
	return bytes.Join(parts, nil)
}

// readAll reads frames until an error and returns them with that error.
func readAll(r *Reader) ([]string, error) {
	var got []string
	for {
		msg, err := r.Read()
		if err != nil {
			return got, err
		}
		got = append(got, string(msg))
	}
}

func TestReader(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		input   []byte
		stream  func(io.Reader) io.Reader // optional wrapper
		max     int
		want    []string
		wantErr []error // every error the final error must match
		notErr  []error // errors it must not match
	}{
		{name: "empty stream", input: nil, max: 10, wantErr: []error{io.EOF}},
		{name: "one frame", input: frame(`{"a":1}`), max: 10, want: []string{`{"a":1}`}, wantErr: []error{io.EOF}},
		{name: "two coalesced frames", input: cat(frame(`{}`), frame(`[1,2]`)), max: 10, want: []string{`{}`, `[1,2]`}, wantErr: []error{io.EOF}},
		{
			name: "fragmented byte by byte", input: cat(frame(`{"x":"y"}`), frame(`{}`)), max: 10,
			stream: iotest.OneByteReader, want: []string{`{"x":"y"}`, `{}`}, wantErr: []error{io.EOF},
		},
		{
			name: "half reads", input: cat(frame(`{"x":"y"}`), frame(`{}`)), max: 10,
			stream: iotest.HalfReader, want: []string{`{"x":"y"}`, `{}`}, wantErr: []error{io.EOF},
		},
		{
			name: "data with EOF", input: frame(`{}`), max: 10,
			stream: iotest.DataErrReader, want: []string{`{}`}, wantErr: []error{io.EOF},
		},
		{name: "zero-length frame", input: cat(frame(""), frame("{}")), max: 10, want: []string{"", "{}"}, wantErr: []error{io.EOF}},
		{name: "exactly at cap", input: frame("0123456789"), max: 10, want: []string{"0123456789"}, wantErr: []error{io.EOF}},
		{
			name: "one over cap", input: frame("0123456789a"), max: 10,
			wantErr: []error{ErrFrameTooLarge}, notErr: []error{io.EOF, ErrTruncated},
		},
		{
			name: "huge length refused before reading body", input: header(0xFFFFFFFF), max: MaxHostFrame,
			wantErr: []error{ErrFrameTooLarge},
		},
		{name: "negative cap accepts empty frames", input: frame(""), max: -1, want: []string{""}, wantErr: []error{io.EOF}},
		{name: "negative cap refuses one byte", input: frame("x"), max: -1, wantErr: []error{ErrFrameTooLarge}},
		{name: "header cut after 1 byte", input: []byte{1}, max: 10, wantErr: []error{ErrTruncated, io.ErrUnexpectedEOF}, notErr: []error{io.EOF}},
		{name: "header cut after 3 bytes", input: header(2)[:3], max: 10, wantErr: []error{ErrTruncated, io.ErrUnexpectedEOF}},
		{name: "body missing", input: header(2), max: 10, wantErr: []error{ErrTruncated, io.ErrUnexpectedEOF}, notErr: []error{io.EOF}},
		{name: "body cut", input: cat(frame("{}"), header(5), []byte("{}")), max: 10, want: []string{"{}"}, wantErr: []error{ErrTruncated}},
		{
			name: "stream error", input: frame("{}"), max: 10,
			stream:  func(r io.Reader) io.Reader { return io.MultiReader(r, iotest.ErrReader(errBoom)) },
			want:    []string{"{}"},
			wantErr: []error{errBoom}, notErr: []error{io.EOF, ErrTruncated},
		},
	}
	readers := []struct {
		name string
		new  func(io.Reader, int) *Reader
	}{{"unbuffered", NewReader}, {"buffered", NewBufferedReader}}
	for _, rd := range readers {
		for _, tt := range tests {
			t.Run(rd.name+"/"+tt.name, func(t *testing.T) {
				var src io.Reader = bytes.NewReader(tt.input)
				if tt.stream != nil {
					src = tt.stream(src)
				}
				got, err := readAll(rd.new(src, tt.max))
				if !slices.Equal(got, tt.want) {
					t.Errorf("got frames %q, want %q", got, tt.want)
				}
				for _, want := range tt.wantErr {
					if !errors.Is(err, want) {
						t.Errorf("got error %v, want it to match %v", err, want)
					}
				}
				for _, not := range tt.notErr {
					if errors.Is(err, not) {
						t.Errorf("got error %v, want it not to match %v", err, not)
					}
				}
			})
		}
	}
}

// countingReader counts the reads of the stream under a Reader.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

func TestBufferedReaderReadsTheStreamOncePerSmallFrame(t *testing.T) {
	big := strings.Repeat("b", 3*readAhead+5) // larger than the buffer: read past it
	tests := []struct {
		name      string
		frames    []string
		new       func(io.Reader, int) *Reader
		wantReads int // reads of the stream until the clean EOF
	}{
		{name: "unbuffered: header and body each", frames: []string{"{}", "[1]", "{}"}, new: NewReader, wantReads: 7},
		{name: "buffered: three frames at once", frames: []string{"{}", "[1]", "{}"}, new: NewBufferedReader, wantReads: 2},
		{name: "buffered: a frame larger than the buffer", frames: []string{"{}", big, "[]"}, new: NewBufferedReader, wantReads: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var input []byte
			for _, f := range tt.frames {
				input = append(input, frame(f)...)
			}
			src := &countingReader{r: bytes.NewReader(input)}
			got, err := readAll(tt.new(src, 1<<20))
			if err != io.EOF {
				t.Fatalf("got error %v, want io.EOF", err)
			}
			if !slices.Equal(got, tt.frames) {
				t.Fatalf("got %d frames, want %d, the same", len(got), len(tt.frames))
			}
			if src.reads != tt.wantReads {
				t.Errorf("got %d reads of the stream, want %d", src.reads, tt.wantReads)
			}
		})
	}
}

func TestReaderCleanEOFIsUnwrapped(t *testing.T) {
	r := NewReader(bytes.NewReader(frame("{}")), 10)
	if _, err := r.Read(); err != nil {
		t.Fatalf("got error %v, want nil", err)
	}
	if _, err := r.Read(); err != io.EOF {
		t.Errorf("got %v, want io.EOF itself", err)
	}
}

func TestReaderErrorIsSticky(t *testing.T) {
	// A refused frame leaves its body in the stream; the reader must not
	// resynchronise on it.
	input := cat(header(11), frame("{}"))
	r := NewReader(bytes.NewReader(input), 10)
	_, first := r.Read()
	_, second := r.Read()
	if !errors.Is(first, ErrFrameTooLarge) {
		t.Fatalf("got first error %v, want ErrFrameTooLarge", first)
	}
	if second != first {
		t.Errorf("got second error %v, want the first one again (%v)", second, first)
	}
}

func TestFrameSizeError(t *testing.T) {
	_, err := NewReader(bytes.NewReader(header(2000000)), MaxHostFrame).Read()
	var fse *FrameSizeError
	if !errors.As(err, &fse) {
		t.Fatalf("got %T %v, want *FrameSizeError", err, err)
	}
	if fse.Size != 2000000 || fse.Max != MaxHostFrame || fse.Op != "read" {
		t.Errorf("got %+v, want Size 2000000, Max %d, Op read", *fse, MaxHostFrame)
	}
	for _, want := range []string{"2000000", "1048576", "frame too large"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got message %q, want it to contain %q", err.Error(), want)
		}
	}
}

// countingWriter records each Write call.
type countingWriter struct {
	mu    sync.Mutex
	calls [][]byte
	err   error
	short bool
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, append([]byte(nil), p...))
	if w.err != nil {
		return 0, w.err
	}
	if w.short {
		return len(p) - 1, nil
	}
	return len(p), nil
}

func TestWriter(t *testing.T) {
	tests := []struct {
		name      string
		max       int
		msg       string
		wantCalls [][]byte
		wantErr   error
	}{
		{name: "small", max: 10, msg: `{"a":1}`, wantCalls: [][]byte{frame(`{"a":1}`)}},
		{name: "empty", max: 10, msg: "", wantCalls: [][]byte{frame("")}},
		{name: "exactly at cap", max: 4, msg: "abcd", wantCalls: [][]byte{frame("abcd")}},
		{name: "over cap writes nothing", max: 3, msg: "abcd", wantErr: ErrFrameTooLarge},
		{name: "negative cap", max: -5, msg: "a", wantErr: ErrFrameTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cw countingWriter
			err := NewWriter(&cw, tt.max).Write([]byte(tt.msg))
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("got error %v, want %v", err, tt.wantErr)
			}
			if !slices.EqualFunc(cw.calls, tt.wantCalls, bytes.Equal) {
				t.Errorf("got Write calls %q, want %q", cw.calls, tt.wantCalls)
			}
		})
	}
}

func TestWriterMaxHostFrame(t *testing.T) {
	tests := []struct {
		size    int
		wantErr error
	}{
		{size: MaxHostFrame, wantErr: nil},
		{size: MaxHostFrame + 1, wantErr: ErrFrameTooLarge},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.size), func(t *testing.T) {
			var buf bytes.Buffer
			err := NewWriter(&buf, MaxHostFrame).Write(make([]byte, tt.size))
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("got error %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil && buf.Len() != 0 {
				t.Errorf("got %d bytes written, want 0", buf.Len())
			}
		})
	}
}

func TestWriterErrors(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		w       *countingWriter
		wantErr error
	}{
		{name: "stream error", w: &countingWriter{err: errBoom}, wantErr: errBoom},
		{name: "short write", w: &countingWriter{short: true}, wantErr: io.ErrShortWrite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := NewWriter(tt.w, 10)
			first := w.Write([]byte("{}"))
			if !errors.Is(first, tt.wantErr) {
				t.Fatalf("got error %v, want %v", first, tt.wantErr)
			}
			if !strings.HasPrefix(first.Error(), "nativemsg: write: ") {
				t.Errorf("got message %q, want the prefix %q", first, "nativemsg: write: ")
			}
			second := w.Write([]byte("{}"))
			if second != first {
				t.Errorf("got second error %v, want the first one again", second)
			}
			if got := len(tt.w.calls); got != 1 {
				t.Errorf("got %d writes to the stream, want 1 (the stream is out of step)", got)
			}
		})
	}
}

func TestWriterConcurrent(t *testing.T) {
	const writers, each = 8, 50
	var cw countingWriter
	w := NewWriter(&cw, 100)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for j := range each {
				if err := w.Write(fmt.Appendf(nil, `{"w":%d,"n":%d}`, i, j)); err != nil {
					t.Errorf("got error %v, want nil", err)
				}
			}
		})
	}
	wg.Wait()

	if got := len(cw.calls); got != writers*each {
		t.Errorf("got %d Write calls, want %d (one per frame)", got, writers*each)
	}
	got, err := readAll(NewReader(bytes.NewReader(bytes.Join(cw.calls, nil)), 100))
	if err != io.EOF {
		t.Fatalf("got error %v, want io.EOF", err)
	}
	seen := map[string]bool{}
	for _, msg := range got {
		seen[msg] = true
	}
	for i := range writers {
		for j := range each {
			if msg := fmt.Sprintf(`{"w":%d,"n":%d}`, i, j); !seen[msg] {
				t.Errorf("frame %s missing or corrupted", msg)
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	msgs := []string{`{}`, ``, `{"text":"héllo \u003C"}`, strings.Repeat("x", 1000)}
	var buf bytes.Buffer
	w := NewWriter(&buf, 1000)
	for _, m := range msgs {
		if err := w.Write([]byte(m)); err != nil {
			t.Fatalf("Write(%.20q): got error %v, want nil", m, err)
		}
	}
	got, err := readAll(NewReader(iotest.OneByteReader(&buf), 1000))
	if err != io.EOF {
		t.Errorf("got error %v, want io.EOF", err)
	}
	if !slices.Equal(got, msgs) {
		t.Errorf("got %.40q, want %.40q", got, msgs)
	}
}

// A peer that announces a large frame and sends little makes the reader
// hold what arrived (and a first megabyte), not the announced size: an
// agent on the agent socket could otherwise tie up 64 MiB per
// connection by sending a header alone. A large frame still reads whole.
func TestReadAllocatesAsTheBodyArrives(t *testing.T) {
	const announced = 60 << 20
	var hdr [4]byte
	binary.NativeEndian.PutUint32(hdr[:], announced)
	stream := append(hdr[:], bytes.Repeat([]byte("x"), 1000)...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := NewReader(bytes.NewReader(stream), 64<<20).Read()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("got %v, want a truncated frame", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("reading a header that announces %d bytes (1,000 sent) allocated %d bytes", announced, got)
	}
	big := bytes.Repeat([]byte("abcdefgh"), 5<<20/8+3)
	var buf bytes.Buffer
	if err := NewWriter(&buf, len(big)).Write(big); err != nil {
		t.Fatal(err)
	}
	got, err := NewReader(&buf, len(big)).Read()
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("a %d-byte frame: got %d bytes, %v", len(big), len(got), err)
	}
}
