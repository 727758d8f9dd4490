package trace

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/protocol"
)

func intp(n int) *int { return &n }

func testStep(method string) Step {
	return Step{
		Call:    protocol.AuditEntry{Time: time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC), Agent: "bot", Method: method, Tab: 3, Origin: "http://127.0.0.1:8000", Target: "#buy", Result: "ok", Duration: 12.5},
		Summary: `clicked <button id="buy">Buy</button>`,
		Box:     &Box{X: 10, Y: 20, W: 100, H: 40},
		Before:  &Shot{JPEG: []byte("\xff\xd8before"), Width: 800, Height: 500, ViewW: 1280, ViewH: 800},
		After:   &Shot{JPEG: []byte("\xff\xd8after"), Width: 800, Height: 500, ViewW: 1280, ViewH: 800},
		Console: []string{"error: boom"},
		Failed:  []string{"GET http://127.0.0.1:8000/x: 404"},
	}
}

// createBotTrace creates a trace at path for a recording of bot.
func createBotTrace(tb testing.TB, path string) *Writer {
	tb.Helper()
	w, err := Create(path, Header{Agents: []string{"bot"}}, 0)
	if err != nil {
		tb.Fatal(err)
	}
	return w
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	w := createBotTrace(t, path)
	steps := []Step{testStep("click"), {Call: protocol.AuditEntry{Method: "fill", Agent: "bot", Target: "#pw", Length: intp(7), Result: "ok"}}}
	for _, s := range steps {
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	end, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if end.Steps != 2 {
		t.Errorf("got %d steps, want 2", end.Steps)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("got mode %v, want 0600", fi.Mode().Perm())
	}
	if end.Bytes == 0 || end.Bytes > fi.Size() {
		t.Errorf("end says %d bytes, the file has %d", end.Bytes, fi.Size())
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	steps[0].N, steps[1].N = 1, 2
	if diff := cmp.Diff(steps, got.Steps); diff != "" {
		t.Errorf("steps read back (-want +got):\n%s", diff)
	}
	if got.Header.Version != Version || got.Header.MaxBytes != DefaultMaxBytes || got.End == nil || got.End.Steps != 2 {
		t.Errorf("got header %+v, end %+v", got.Header, got.End)
	}
	if _, err := Create(path, Header{}, 0); err == nil {
		t.Error("Create over an existing file: got no error")
	}
}

func TestReadRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"empty":     "",
		"not JSON":  "hello\n",
		"no header": `{"kind":"step","step":{"n":1}}` + "\n",
	} {
		if _, err := Read(strings.NewReader(in)); err == nil {
			t.Errorf("%s: got no error", name)
		}
	}
}

// The bound: past max, screenshots stop (with a note, once) and steps go
// on; past twice max, steps are left out and counted.
func TestSizeBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	const max = 4096
	w, err := Create(path, Header{}, max)
	if err != nil {
		t.Fatal(err)
	}
	s := testStep("click")
	s.Before.JPEG = bytes.Repeat([]byte{0xff}, 1000)
	for range 200 {
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if w.ShotsOn() {
		t.Error("ShotsOn: got true past the bound")
	}
	end, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Size() > 2*max+4096 {
		t.Errorf("got a file of %d bytes, want about 2×%d at most", fi.Size(), max)
	}
	if end.Dropped == 0 || end.Steps+end.Dropped != 200 {
		t.Errorf("got %d steps, %d dropped, want 200 in all, some dropped", end.Steps, end.Dropped)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Notes) != 1 || !strings.Contains(got.Notes[0], "screenshots stopped") {
		t.Errorf("got notes %q, want one saying screenshots stopped", got.Notes)
	}
	withShots, without := 0, 0
	for _, s := range got.Steps {
		switch {
		case s.Before != nil:
			withShots++
			if without > 0 {
				t.Errorf("step %d has screenshots after one without", s.N)
			}
		case s.ShotsOff:
			without++
		}
	}
	if withShots == 0 || without == 0 {
		t.Errorf("got %d steps with screenshots, %d without, want some of each", withShots, without)
	}
}

func TestSanitise(t *testing.T) {
	long := strings.Repeat("x", MaxText+100)
	many := make([]string, 40)
	s := Step{Error: long, Diff: long, Console: many, Call: protocol.AuditEntry{Target: long}}.Sanitise()
	if len(s.Error) > MaxText+64 || len(s.Diff) > MaxText+64 || len(s.Call.Target) > 300 {
		t.Errorf("got lengths %d, %d, %d: not cut", len(s.Error), len(s.Diff), len(s.Call.Target))
	}
	if len(s.Console) != 16 || !strings.Contains(s.Console[15], "40 in all") {
		t.Errorf("got %d console lines, last %q", len(s.Console), s.Console[len(s.Console)-1])
	}
	if len(many) != 40 || many[15] != "" {
		t.Error("Sanitise changed the caller's slice")
	}
}

var external = regexp.MustCompile(`(?i)(src|href|action)\s*=\s*["']?\s*(https?:|//)`)

func TestHTML(t *testing.T) {
	evil := `<script>window.pwned=1</script>`
	click := testStep("click")
	click.N = 1
	click.Summary = "landed on " + evil
	click.Console = []string{evil}
	snap := Step{N: 2, Call: protocol.AuditEntry{Method: "snapshot", Agent: "bot", Result: "ok"}, Diff: "- button \"Buy\"\n+ text \"Thanks\""}
	fill := Step{N: 3, Call: protocol.AuditEntry{Method: "fill", Agent: "bot", Target: "#pw", Length: intp(7), Result: "timeout"}, Error: "fill #pw: timed out " + evil}
	var b bytes.Buffer
	if err := WriteHTML(&b, &Trace{Header: Header{Version: 1, Agents: []string{"bot"}}, Steps: []Step{click, snap, fill}, End: &End{Steps: 3}}, "t.jsonl"); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{
		`id="step-1"`, `id="step-2"`, `id="step-3"`,
		"click on #buy", "fill 7 characters into #pw",
		"data:image/jpeg;base64,", // the screenshots, inline
		// the box: 10/1280, 20/800, 100/1280, 40/800 of the picture
		`class="box" style="left:0.781%;top:2.500%;width:7.812%;height:5.000%"`,
		"snapshot diff", "Thanks", "console errors", "failed requests", "404",
		"&lt;script&gt;window.pwned=1&lt;/script&gt;",
		"ArrowRight",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(html, evil) {
		t.Error("a page's text is in the viewer unescaped: its script would run")
	}
	if got := strings.Count(html, "<img "); got != 2 {
		t.Errorf("got %d images, want 2 (before and after the click)", got)
	}
	if m := external.FindString(html); m != "" {
		t.Errorf("the page refers to elsewhere: %q", m)
	}
}

// FuzzRead: any file gives a trace or an error, never a panic, and a
// trace read back renders.
func FuzzRead(f *testing.F) {
	path := filepath.Join(f.TempDir(), "seed.jsonl")
	w := createBotTrace(f, path)
	w.Write(testStep("click"))
	w.Close()
	seed, _ := os.ReadFile(path)
	f.Add(seed)
	f.Add([]byte(`{"kind":"header","header":{"version":1}}` + "\n" + `{"kind":"step","step":{"box":{"x":1e308},"before":{"jpeg":"AA==","viewW":0}}}`))
	f.Add([]byte("{}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := Read(bytes.NewReader(b))
		if err != nil {
			return
		}
		if err := WriteHTML(io.Discard, tr, "fuzz"); err != nil {
			t.Errorf("WriteHTML of a trace Read accepted: %v", err)
		}
	})
}

// IsTrace knows a file Create made from anything else.
func TestIsTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	w := createBotTrace(t, path)
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	made, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"a trace", string(made), true},
		{"empty", "", false},
		{"notes", "my notes\n", false},
		{"other JSON lines", `{"kind":"step","step":{"n":1}}` + "\n", false},
		{"a header of no version", `{"kind":"header","header":{}}` + "\n", false},
		{"a huge first line", `{"kind":"header","header":{"version":1,"agents":["` + strings.Repeat("a", 2*maxHeaderLine) + `"]}}`, false},
	}
	for _, tt := range tests {
		if got := IsTrace(strings.NewReader(tt.in)); got != tt.want {
			t.Errorf("%s: got IsTrace %v, want %v", tt.name, got, tt.want)
		}
	}
}
