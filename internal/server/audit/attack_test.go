package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// A field of any size is kept to MaxField bytes of valid UTF-8 and
// marked; the caller's entry is left as it was.
func TestSanitiseCapsEveryTextField(t *testing.T) {
	huge := strings.Repeat("é", 3<<20) // 6 MiB, two bytes a rune: the cut must not split one
	bad := "ok\xff\xfe" + strings.Repeat("x", 10)
	n := 3
	in := Entry{
		Agent: "bot", Method: "click", Target: huge, Key: bad, URL: huge, Origin: "https://" + huge,
		Result: "ok", Length: &n,
	}
	got := Sanitise(in)
	for name, v := range map[string]string{"target": got.Target, "key": got.Key, "url": got.URL, "origin": got.Origin} {
		if !utf8.ValidString(v) {
			t.Errorf("%s: not valid UTF-8: %q", name, v)
		}
		if len(v) > MaxField {
			t.Errorf("%s: %d bytes after the cap, want at most %d and a marker", name, len(v), MaxField)
		}
	}
	if want := fmt.Sprintf("… (%d bytes in all)", len(huge)); !strings.HasSuffix(got.Target, want) {
		t.Errorf("target: got …%q, want it marked %q", got.Target[len(got.Target)-30:], want)
	}
	if got.Key != "ok\uFFFD"+strings.Repeat("x", 10) {
		t.Errorf("key: got %q, want the bad bytes replaced and nothing cut", got.Key)
	}
	if len(in.Target) != len(huge) || in.Key != bad {
		t.Error("Sanitise changed the caller's entry")
	}
	if again := Sanitise(got); !cmp.Equal(again, got) {
		t.Errorf("not idempotent:\n%s", cmp.Diff(got, again))
	}
	small := Entry{Agent: "bot", Method: "click", Target: "#b", Result: "ok"}
	if allocs := testing.AllocsPerRun(100, func() { _ = Sanitise(small) }); allocs > 1 {
		t.Errorf("an entry with nothing to cut: %v allocations, want at most 1", allocs)
	}
}

// Fields other engineers add to the entry are capped without them doing
// anything: lists, pointers and nested structs included.
func TestSanitiseIsGeneric(t *testing.T) {
	type file struct {
		Name string
		Size int
	}
	type entry struct {
		Files []string
		Path  *string
		File  file
		Ptr   *file
		Count int
	}
	long := strings.Repeat("a", 1000)
	list := make([]string, 40)
	for i := range list {
		list[i] = long
	}
	p := long
	e := entry{Files: list, Path: &p, File: file{Name: long}, Ptr: &file{Name: long}, Count: 1}
	sanitiseValue(reflectOf(&e))
	if len(e.Files) != MaxList || !strings.Contains(e.Files[MaxList-1], "40 items in all") {
		t.Errorf("list: got %d items, last %q; want %d, the last saying how many there were", len(e.Files), e.Files[len(e.Files)-1], MaxList)
	}
	for i, f := range e.Files[:MaxList-1] {
		if len(f) > MaxField {
			t.Errorf("list item %d: %d bytes", i, len(f))
		}
	}
	if len(*e.Path) > MaxField || len(e.File.Name) > MaxField || len(e.Ptr.Name) > MaxField {
		t.Errorf("pointer %d, struct %d, pointer to struct %d bytes: want each capped", len(*e.Path), len(e.File.Name), len(e.Ptr.Name))
	}
	if p != long || list[0] != long {
		t.Error("the caller's string behind the pointer, or its list, was changed")
	}
}

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"#submit", "#submit"},
		{"a\nFAKE 12:00 owner click", `a\nFAKE 12:00 owner click`},
		{"\x1b[2J\x1b[31mred", `\x1b[2J\x1b[31mred`},
		{"abc\u202edcba", `abc\u202edcba`},
		{`back\slash`, `back\\slash`},
		{"tab\there\x7f\u0085", `tab\there\x7f\x85`},
		{"é ok", "é ok"},
	}
	for _, tt := range tests {
		if got := Printable(tt.in); got != tt.want {
			t.Errorf("Printable(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// The attack on the reader: lines over the reader's cap (written
// by an older egohost, or by hand) and lines that are not JSON are passed
// over, counted, and the entries after them are read.
func TestScanReadsPastBadAndOverlongLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	var b strings.Builder
	line := func(e Entry) {
		j, _ := json.Marshal(e)
		b.Write(j)
		b.WriteByte('\n')
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	line(entry("a", 1, t0))
	for range 3 {
		line(Entry{Time: t0, Agent: "(unpaired)", Method: "click", Target: strings.Repeat("x", 4<<20), Result: "unauthorized"})
	}
	b.WriteString("not json\n\n")
	line(entry("a", 2, t0))
	line(entry("a", 3, t0))
	b.WriteString(`{"agent":"a","method":"cli`) // being written: no newline yet
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := Scan(path, Filter{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	var tabs []int
	for _, e := range res.Entries {
		tabs = append(tabs, e.Tab)
		if len(e.Target) > MaxField {
			t.Errorf("an entry read back holds a %d-byte target", len(e.Target))
		}
	}
	if diff := cmp.Diff([]int{1, 2, 3}, tabs); diff != "" {
		t.Errorf("entries read (-want +got):\n%s", diff)
	}
	if res.Skipped != 5 { // three overlong, "not json", the empty line
		t.Errorf("skipped %d lines, want 5", res.Skipped)
	}
}

// Rotation keeps Keep files: two huge bursts cannot rotate all history
// away, and Scan reads every kept file in order.
func TestRotationKeepsFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l, err := Open(path, 300, 3)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range 40 {
		e := entry("a", i, t0)
		if i%7 == 3 {
			e.Target = strings.Repeat("y", 11<<20) // capped: cannot fill a file alone
		}
		if err := l.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	files, _ := logFiles(path)
	if diff := cmp.Diff([]string{path + ".3", path + ".2", path + ".1", path}, files); diff != "" {
		t.Fatalf("files (-want +got):\n%s", diff)
	}
	for _, p := range files {
		st, _ := os.Stat(p)
		if st.Size() > 1000 {
			t.Errorf("%s: %d bytes", p, st.Size())
		}
	}
	all, err := Read(path, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 4 || all[len(all)-1].Tab != 39 {
		t.Fatalf("got %d entries ending %+v, want several, the newest last", len(all), all[len(all)-1])
	}
	for i := 1; i < len(all); i++ {
		if all[i].Tab != all[i-1].Tab+1 {
			t.Errorf("entries out of order or missing across files: %d then %d", all[i-1].Tab, all[i].Tab)
		}
	}
	if _, err := os.Stat(path + ".4"); !os.IsNotExist(err) {
		t.Errorf("%s.4 exists (%v): keep is 3", path, err)
	}

	// A smaller keep later: the next rotation drops the files past it.
	l, err = Open(path, 300, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		l.Append(entry("a", 100+i, t0))
	}
	l.Close()
	if files, _ := logFiles(path); !cmp.Equal(files, []string{path + ".1", path}) {
		t.Errorf("after keep went from 3 to 1: files %v, want %s.1 and %s", files, path, path)
	}
}

// Follow passes over an overlong line and goes on with the next ones.
func TestFollowSkipsOverlongLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan Entry, 10)
	skips := make(chan struct{}, 10)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, path, 0, 5*time.Millisecond, Filter{}, func(e Entry) { got <- e }, func() { skips <- struct{}{} })
	}()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(strings.Repeat("z", 3<<20) + "\n")
	j, _ := json.Marshal(entry("a", 5, time.Now()))
	f.Write(append(j, '\n'))
	select {
	case e := <-got:
		if e.Tab != 5 {
			t.Errorf("followed %+v, want tab 5", e)
		}
	case <-ctx.Done():
		t.Fatal("the entry after an overlong line never came")
	}
	select {
	case <-skips:
	case <-ctx.Done():
		t.Fatal("the overlong line was not reported as skipped")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func reflectOf(p any) reflect.Value { return reflect.ValueOf(p).Elem() }
