package filegate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/egohost/egohost/internal/testkit/fifo"
)

// layout is a person's disk in miniature: the service's state dir with
// its token, a folder the person named for uploads, and files elsewhere.
type layout struct {
	state, token, share, report, home, secret, out string
}

func newLayout(t *testing.T) (layout, Rules) {
	t.Helper()
	root := t.TempDir()
	l := layout{
		state: filepath.Join(root, "state"), share: filepath.Join(root, "share"),
		home: filepath.Join(root, "home"), out: filepath.Join(root, "out"),
	}
	for _, d := range []string{l.state, l.share, l.home} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	l.token = write(t, filepath.Join(l.state, "token"), "owner-token")
	l.report = write(t, filepath.Join(l.share, "report.txt"), "quarterly")
	l.secret = write(t, filepath.Join(l.home, "id_rsa"), "PRIVATE")
	link(t, l.token, filepath.Join(l.share, "token-link"))
	link(t, l.secret, filepath.Join(l.share, "secret-link"))
	link(t, l.state, filepath.Join(l.share, "state-link"))
	link(t, l.report, filepath.Join(l.home, "report-link"))
	if err := os.Link(l.token, filepath.Join(l.home, "hard-token")); err != nil {
		t.Fatal(err)
	}
	if err := fifo.Make(filepath.Join(l.share, "fifo")); err != nil {
		t.Fatal(err)
	}
	return l, Rules{Private: []string{l.state, l.token}, UploadDirs: []string{l.share}, OutputDir: l.out}
}

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// outcome is how a check ended: "ok", "forbidden" or "missing".
func outcome(err error) string {
	var fe *Error
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &fe):
		return "forbidden"
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	}
	return "error: " + err.Error()
}

func TestCheck(t *testing.T) {
	l, r := newLayout(t)
	tests := []struct {
		name         string
		path         string
		owner, agent string // outcome for the owner, for a paired agent
	}{
		{"the token", l.token, "forbidden", "forbidden"},
		{"the state dir", l.state, "forbidden", "forbidden"},
		{"a file in the state dir", filepath.Join(l.state, "agents.json"), "missing", "forbidden"},
		{"a symlink to the token", filepath.Join(l.share, "token-link"), "forbidden", "forbidden"},
		{"a file through a symlinked state dir", filepath.Join(l.share, "state-link", "token"), "forbidden", "forbidden"},
		{"a hard link to the token", filepath.Join(l.home, "hard-token"), "forbidden", "forbidden"},
		{"the state dir by dot-dot", l.share + "/../state/token", "forbidden", "forbidden"},
		{"a file in upload_dirs", l.report, "ok", "ok"},
		{"a file of the person's", l.secret, "ok", "forbidden"},
		{"a symlink out of upload_dirs", filepath.Join(l.share, "secret-link"), "ok", "forbidden"},
		{"a symlink into upload_dirs", filepath.Join(l.home, "report-link"), "ok", "forbidden"},
		{"out of upload_dirs by dot-dot", l.share + "/../home/id_rsa", "ok", "forbidden"},
		{"a FIFO", filepath.Join(l.share, "fifo"), "forbidden", "forbidden"},
		{"a folder", l.share, "forbidden", "forbidden"},
		{"a missing file in upload_dirs", filepath.Join(l.share, "nope"), "missing", "missing"},
		{"a missing file elsewhere", filepath.Join(l.home, "nope"), "missing", "forbidden"},
		{"a relative path", "report.txt", "forbidden", "forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := r.Check(tt.path, false)
			if got := outcome(err); got != tt.owner {
				t.Errorf("owner: got %s (%v), want %s", got, err, tt.owner)
			}
			_, _, err = r.Check(tt.path, true)
			if got := outcome(err); got != tt.agent {
				t.Errorf("agent: got %s (%v), want %s", got, err, tt.agent)
			}
		})
	}
}

// Without upload_dirs a paired agent uploads nothing by path.
func TestCheckNoUploadDirs(t *testing.T) {
	l, r := newLayout(t)
	r.UploadDirs = nil
	if _, _, err := r.Check(l.report, true); outcome(err) != "forbidden" || !strings.Contains(err.Error(), "payloads") {
		t.Errorf("got %v, want forbidden, saying to send the bytes", err)
	}
}

func TestOpenReadsTheCheckedFile(t *testing.T) {
	l, r := newLayout(t)
	f, err := r.Open(l.report, true)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 64)
	n, _ := f.Read(b)
	if string(b[:n]) != "quarterly" {
		t.Errorf("got %q, want quarterly", b[:n])
	}
	if _, err := r.Open(filepath.Join(l.share, "token-link"), true); outcome(err) != "forbidden" {
		t.Errorf("open the token through a link: got %v, want forbidden", err)
	}
}

func TestCreate(t *testing.T) {
	l, r := newLayout(t)
	exists := write(t, filepath.Join(l.home, ".bashrc"), "alias")
	link(t, filepath.Join(l.home, "target.png"), filepath.Join(l.home, "link.png"))
	link(t, l.state, filepath.Join(l.home, "state-link"))
	tests := []struct {
		name         string
		path         string
		owner, agent string
	}{
		{"a plain name", "shot.png", "ok", "forbidden"}, // the owner made it first: never over it
		{"another plain name", "b.png", "ok", "forbidden"},
		{"a name with a folder", "sub/x.png", "forbidden", "forbidden"},
		{"dot-dot", "../x.png", "forbidden", "forbidden"},
		{"a new absolute file", filepath.Join(l.home, "new.png"), "ok", "forbidden"},
		{"an existing file", exists, "forbidden", "forbidden"},
		{"the token", l.token, "forbidden", "forbidden"},
		{"a new file in the state dir", filepath.Join(l.state, "x.png"), "forbidden", "forbidden"},
		{"through a symlinked state dir", filepath.Join(l.home, "state-link", "x.png"), "forbidden", "forbidden"},
		{"a dangling symlink", filepath.Join(l.home, "link.png"), "forbidden", "forbidden"},
		{"a folder", l.home + "/", "forbidden", "forbidden"},
		{"a relative path", "x/../y.png", "forbidden", "forbidden"},
		{"a missing folder", filepath.Join(l.home, "nope", "x.png"), "missing", "forbidden"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, who := range []struct {
				agent bool
				want  string
			}{{false, tt.owner}, {true, tt.agent}} {
				f, path, err := r.Create(tt.path, who.agent)
				if got := outcome(err); got != who.want {
					t.Errorf("agent %t: got %s (%v), want %s", who.agent, got, err, who.want)
				}
				if f != nil {
					f.Close()
					if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
						t.Errorf("agent %t: %s: %v, %v; want a regular 0600 file", who.agent, path, fi, err)
					}
				}
			}
		})
	}
	if b, _ := os.ReadFile(exists); string(b) != "alias" {
		t.Errorf(".bashrc changed: %q", b)
	}
	if b, _ := os.ReadFile(l.token); string(b) != "owner-token" {
		t.Errorf("the token changed: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(l.home, "target.png")); err == nil {
		t.Error("the symlink's target was created")
	}
	if fi, err := os.Stat(l.out); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the output folder: %v, %v; want 0700", fi, err)
	}
}

// An agent's plain name is written once in the output folder.
func TestCreateAgentName(t *testing.T) {
	_, r := newLayout(t)
	f, path, err := r.Create("shot.png", true)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if want := filepath.Join(r.OutputDir, "shot.png"); path != want {
		t.Errorf("got %s, want %s", path, want)
	}
	if _, _, err := r.Create("shot.png", true); outcome(err) != "forbidden" || !strings.Contains(err.Error(), "exists") {
		t.Errorf("the same name again: got %v, want forbidden (exists)", err)
	}
}

// The person's own tools replace a regular file, never a symlink, never
// in the state dir.
func TestReplace(t *testing.T) {
	l, r := newLayout(t)
	exists := write(t, filepath.Join(l.home, "page.png"), "old")
	link(t, filepath.Join(l.home, "target.png"), filepath.Join(l.home, "link.png"))
	for _, tt := range []struct {
		name, path, want string
	}{
		{"a new file", filepath.Join(l.home, "new.png"), "ok"},
		{"an existing file", exists, "ok"},
		{"a symlink", filepath.Join(l.home, "link.png"), "forbidden"},
		{"the token", l.token, "forbidden"},
		{"a hard link to the token", filepath.Join(l.home, "hard-token"), "forbidden"},
		{"in the state dir", filepath.Join(l.state, "x.png"), "forbidden"},
		{"a folder", l.share, "forbidden"},
		{"relative", "x.png", "forbidden"},
	} {
		if got := outcome(r.Replace(tt.path, []byte("new"))); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
	if b, _ := os.ReadFile(exists); string(b) != "new" {
		t.Errorf("the existing file holds %q, want new", b)
	}
	if b, _ := os.ReadFile(l.token); string(b) != "owner-token" {
		t.Errorf("the token changed: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(l.home, "target.png")); err == nil {
		t.Error("the symlink was followed")
	}
	es, _ := os.ReadDir(l.home)
	for _, e := range es {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("a temporary file was left: %s", e.Name())
		}
	}
}

// A folder of upload_dirs that holds the state dir (the home folder)
// still never gives the state dir away.
func TestCheckUploadDirAboveTheState(t *testing.T) {
	l, r := newLayout(t)
	r.UploadDirs = []string{filepath.Dir(l.state)}
	for _, p := range []string{l.token, filepath.Join(l.share, "token-link"), filepath.Join(l.home, "hard-token")} {
		if _, _, err := r.Check(p, true); outcome(err) != "forbidden" {
			t.Errorf("%s: got %v, want forbidden", p, err)
		}
	}
	if _, _, err := r.Check(l.secret, true); err != nil {
		t.Errorf("a file of the folder: got %v, want ok", err)
	}
}
