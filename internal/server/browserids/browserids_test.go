package browserids

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	keyA = "0123456789abcdef0123456789abcdef"
	keyB = "fedcba9876543210fedcba9876543210"
)

func TestRegistryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := func() time.Time { return start }

	t.Run("missing file is empty", func(t *testing.T) {
		r, err := Load(filepath.Join(dir, "none.json"), now)
		if err != nil || len(r.Known) != 0 || r.Fresh() != "b1" {
			t.Fatalf("got %+v, %v; want an empty registry", r, err)
		}
	})
	t.Run("broken file is reported and starts over", func(t *testing.T) {
		os.WriteFile(path, []byte("{not json"), 0o600)
		r, err := Load(path, now)
		if err == nil || len(r.Known) != 0 || r.Fresh() != "b1" {
			t.Fatalf("got %+v, %v; want an error and an empty registry", r, err)
		}
	})
	t.Run("connected browsers count as seen at start; bad entries are dropped; numbering goes on", func(t *testing.T) {
		os.WriteFile(path, []byte(`{"next": 3, "browsers": {
			"`+keyA+`": {"id": "b7", "lastSeen": "2020-01-01T00:00:00Z", "connected": true},
			"`+keyB+`": {"id": "b2", "lastSeen": "2020-01-01T00:00:00Z"},
			"not-a-key": {"id": "b9"},
			"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa": {"id": "x1"}}}`), 0o600)
		r, err := Load(path, now)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Known) != 2 {
			t.Errorf("got %d known browsers, want 2", len(r.Known))
		}
		if got := r.Reconnecting(time.Minute); len(got) != 1 || !got["b7"].Equal(start.Add(time.Minute)) {
			t.Errorf("reconnecting: got %v, want b7 until start+1m", got)
		}
		if got := r.Fresh(); got != "b8" {
			t.Errorf("fresh: got %q, want b8", got)
		}
		if err := r.Save(); err != nil {
			t.Fatal(err)
		}
		again, err := Load(path, now)
		if err != nil || again.Next != 8 || again.Known[keyA].ID != "b7" {
			t.Errorf("after save: got %+v, %v", again, err)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		r, _ := Load(filepath.Join(dir, "many.json"), now)
		for i := range MaxKnown + 10 {
			key := fmt.Sprintf("%032x", i)
			start = start.Add(time.Second)
			r.IDFor(key)
		}
		if len(r.Known) != MaxKnown {
			t.Fatalf("got %d known browsers, want %d", len(r.Known), MaxKnown)
		}
		if _, ok := r.Known[strings.Repeat("0", 32)]; ok {
			t.Error("the browser seen longest ago was kept")
		}
	})
}
