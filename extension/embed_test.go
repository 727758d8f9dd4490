package extension

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/egohost/egohost/internal/link/chromeext"
)

// The ID egohost pins in allowed_origins must be the one Chrome derives
// from the manifest's key.
func TestIDMatchesManifestKey(t *testing.T) {
	b, err := fs.ReadFile(Files(), "manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	got, err := chromeext.ID(m.Key)
	if err != nil || got != ID {
		t.Fatalf("ID from manifest key: got %q, %v; want %q", got, err, ID)
	}
}

func TestWriteTo(t *testing.T) {
	dir, err := WriteTo(filepath.Join(t.TempDir(), "ext"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"manifest.json", "background.js", "popup.html"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, want owner-only", name, fi.Mode().Perm())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "test")); err == nil {
		t.Error("the extension's tests were written too")
	}
}
