package snapshot

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"strings"
	"testing"
)

func packed(t *testing.T, text string) string {
	t.Helper()
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.DefaultCompression)
	if _, err := w.Write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func TestUnpack(t *testing.T) {
	text := "3\t12\t0\thttp://x\thttp://x/\tT\n0\tbutton\tGo — 😀\t1\n" + strings.Repeat("0\t\tline\n", 100)
	tests := []struct {
		name, z     string
		limit       int
		want, error string
	}{
		{"a text", packed(t, text), 1 << 20, text, ""},
		{"an empty text", packed(t, ""), 1 << 20, "", ""},
		{"just the limit", packed(t, text), len(text), text, ""},
		{"over the limit", packed(t, text), len(text) - 1, "", "larger than"},
		{"not base64", "z!*", 1 << 20, "", "illegal base64"},
		{"not deflate", base64.StdEncoding.EncodeToString([]byte("not a deflate stream")), 1 << 20, "", "unpack"},
		{"cut short", packed(t, text)[:20], 1 << 20, "", "unpack"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := unpack(tt.z, tt.limit)
			if tt.error != "" {
				if err == nil || !strings.Contains(err.Error(), tt.error) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, tt.error)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
