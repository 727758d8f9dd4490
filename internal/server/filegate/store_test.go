package filegate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitizeName(t *testing.T) {
	tests := []struct {
		name, mime, want string
	}{
		{"report.pdf", "", "report.pdf"},
		{"../../etc/passwd", "", "passwd"},
		{`..\..\boot.ini`, "", "boot.ini"},
		{"evil\n.txt", "", "evil_.txt"},
		{"a\x00b\x7fc", "", "a_b_c"},
		{`what?*:"<>|.txt`, "", "what_______.txt"},
		{"..", "", "file"},
		{".", "", "file"},
		{"", "", "file"},
		{"dir/", "", "dir_"},
		{" .hidden. ", "", "hidden"},
		{"bad\xffutf8", "", "bad_utf8"},
		{"notes", "text/plain", "notes.txt"},
		{"photo", "image/jpeg; q=1", "photo.jpg"},
		{"photo", "not a type", "photo"},
		{"data.bin", "text/plain", "data.bin"},
		{"日本語.txt", "", "日本語.txt"},
	}
	for _, tt := range tests {
		if got := SanitizeName(tt.name, tt.mime); got != tt.want {
			t.Errorf("SanitizeName(%q, %q): got %q, want %q", tt.name, tt.mime, got, tt.want)
		}
	}
	long := strings.Repeat("é", 300) + ".csv"
	if got := SanitizeName(long, ""); len(got) > maxName || !strings.HasSuffix(got, ".csv") || !utf8.ValidString(got) {
		t.Errorf("a long name: got %d bytes %q, want at most %d, valid, ending .csv", len(got), got, maxName)
	}
}

func FuzzSanitizeName(f *testing.F) {
	for _, s := range []string{"report.pdf", "../../x", "a\x00b", "..", "dir/", "日本語.txt", strings.Repeat("x", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := SanitizeName(name, "")
		if got == "" || got == "." || got == ".." || strings.ContainsAny(got, `/\`) || len(got) > maxName || !utf8.ValidString(got) {
			t.Fatalf("SanitizeName(%q) = %q", name, got)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("SanitizeName(%q) = %q: a control character", name, got)
			}
		}
	})
}

func TestStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "uploads")
	if err := os.MkdirAll(filepath.Join(dir, "left-over"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := OpenStore(dir, 10)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, dir); n != 0 {
		t.Errorf("a new store holds %d entries, want 0 (what a previous service left goes)", n)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the store's folder: %v, %v; want 0700", fi, err)
	}

	b := s.Stage(6)
	p, err := b.Write("../a.txt", []byte("abc"))
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(p) != "a.txt" || !strings.HasPrefix(p, dir+string(filepath.Separator)) {
		t.Errorf("stored at %s, want a.txt inside %s", p, dir)
	}
	if got, _ := os.ReadFile(p); string(got) != "abc" {
		t.Errorf("stored %q, want abc", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("a stored file is %v, want 0600", fi.Mode().Perm())
	}
	var tl *TooLargeError
	if _, err := b.Write("b", []byte("defg")); !errors.As(err, &tl) {
		t.Errorf("past the batch's cap: got %v, want TooLargeError", err)
	}
	if _, err := b.Copy("c", strings.NewReader("defg")); !errors.As(err, &tl) {
		t.Errorf("a copy past the batch's cap: got %v, want TooLargeError", err)
	}
	b.Discard()
	if n := count(t, dir); n != 0 {
		t.Errorf("after Discard the store holds %d entries", n)
	}

	keep := func(owner, content string) string {
		t.Helper()
		b := s.Stage(100)
		p, err := b.Copy("f", strings.NewReader(content))
		if err != nil {
			t.Fatal(err)
		}
		b.Keep(owner)
		return p
	}
	a1, b1 := keep("tab-a", "1234"), keep("tab-b", "5678")
	s.Drop("tab-a")
	if exists(a1) || !exists(b1) {
		t.Errorf("after Drop(tab-a): a's file there %t, b's %t; want only b's", exists(a1), exists(b1))
	}
	b2 := keep("tab-b", "abcd")
	b3 := keep("tab-c", "efgh") // 12 bytes kept > 10: the oldest goes
	if exists(b1) || !exists(b2) || !exists(b3) {
		t.Errorf("past the cap: oldest there %t, newer %t, %t; want the oldest gone", exists(b1), exists(b2), exists(b3))
	}
	big := keep("tab-d", strings.Repeat("x", 20)) // alone over the cap: the newest stays
	if !exists(big) {
		t.Error("a batch alone over the cap was removed")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("after Close the folder is there: %v", err)
	}
}

func count(t *testing.T, dir string) int {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
