package trace

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/server/audit"
)

func TestFileName(t *testing.T) {
	now := time.Date(2026, 12, 2, 8, 15, 0, 0, time.UTC)
	for _, tt := range []struct{ in, want string }{
		{"", "trace-20261202-081500.000.jsonl"},
		{"run1", "run1.jsonl"},
		{"run1.jsonl", "run1.jsonl"},
		{"../x", ""},
		{"a/b", ""},
		{`a\b`, ""},
		{"..", ""},
		{".hidden", ""},
		{"/etc/passwd", ""},
		{"a\nb", ""},
		{strings.Repeat("a", 200), ""},
	} {
		got, ok := FileName(tt.in, now)
		if tt.want == "" {
			if ok {
				t.Errorf("%q: got %q, want it refused", tt.in, got)
			}
			continue
		}
		if !ok || got != tt.want {
			t.Errorf("%q: got %q, %v, want %q", tt.in, got, ok, tt.want)
		}
	}
}

// A recording of named agents records those only; one of nobody named
// records every agent. LastSteps reads back one agent's last steps.
func TestRecording(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	w := createBotTrace(t, path)
	r := NewRecording(w, path, []string{"bot"}, time.Now())
	defer r.W.Close()
	if r.EveryAgent() || !r.Records("bot") || r.Records("other") {
		t.Errorf("got every %v, bot %v, other %v, want false, true, false", r.EveryAgent(), r.Records("bot"), r.Records("other"))
	}
	if all := NewRecording(w, path, nil, time.Now()); !all.EveryAgent() || !all.Records("anyone") {
		t.Errorf("a recording of no names: got every %v, want true", all.EveryAgent())
	}
	for i, agent := range []string{"bot", "other", "bot", "bot"} {
		if err := w.Write(Step{Call: audit.Entry{Agent: agent, Method: "m" + string(rune('0'+i))}}); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := r.LastSteps("bot", 2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range tr.Steps {
		got = append(got, st.Call.Method)
	}
	if strings.Join(got, ",") != "m2,m3" {
		t.Errorf("got steps %v, want m2,m3", got)
	}
	files, err := List(dir)
	if err != nil || len(files) != 1 || files[0].Name != "t.jsonl" {
		t.Errorf("got %v, %v, want t.jsonl", files, err)
	}
}
