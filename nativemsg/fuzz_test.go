package nativemsg

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

const fuzzMax = 64

func FuzzReader(f *testing.F) {
	f.Add([]byte{})
	f.Add(frame(`{"a":1}`))
	f.Add(cat(frame(`{}`), frame(`[]`)))
	f.Add(frame(""))
	f.Add(header(fuzzMax + 1))
	f.Add(header(0xFFFFFFFF))
	f.Add([]byte{1, 0})
	f.Add(cat(header(5), []byte("ab")))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data), fuzzMax)
		consumed := 0
		for {
			msg, err := r.Read()
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrFrameTooLarge) {
					t.Fatalf("got error %v, want io.EOF, ErrTruncated or ErrFrameTooLarge", err)
				}
				if err == io.EOF && consumed != len(data) {
					t.Fatalf("got io.EOF after %d of %d bytes, want it only at the end", consumed, len(data))
				}
				return
			}
			if cap(msg) > fuzzMax {
				t.Fatalf("got a frame with capacity %d, want at most the cap %d", cap(msg), fuzzMax)
			}
			consumed += headerSize + len(msg)
		}
	})
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte(`{"a":1}`), []byte(`{}`))
	f.Add([]byte{}, []byte("x"))
	f.Add(bytes.Repeat([]byte("y"), fuzzMax), []byte{})
	f.Add(bytes.Repeat([]byte("z"), fuzzMax+1), []byte("{}"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var buf bytes.Buffer
		w := NewWriter(&buf, fuzzMax)
		var want [][]byte
		for _, m := range [][]byte{a, b} {
			err := w.Write(m)
			switch {
			case len(m) > fuzzMax && !errors.Is(err, ErrFrameTooLarge):
				t.Fatalf("Write(%d bytes): got error %v, want ErrFrameTooLarge", len(m), err)
			case len(m) <= fuzzMax && err != nil:
				t.Fatalf("Write(%d bytes): got error %v, want nil", len(m), err)
			case err == nil:
				want = append(want, m)
			}
		}
		r := NewReader(&buf, fuzzMax)
		for i, m := range want {
			got, err := r.Read()
			if err != nil {
				t.Fatalf("Read %d: got error %v, want nil", i, err)
			}
			if !bytes.Equal(got, m) {
				t.Fatalf("Read %d: got %q, want %q", i, got, m)
			}
		}
		if _, err := r.Read(); err != io.EOF {
			t.Fatalf("final Read: got %v, want io.EOF", err)
		}
	})
}
