package filegate

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/egohost/egohost/protocol"
)

// wireOutcome is how a call's file check ended on the wire: "ok", or the
// error's code name and message.
func wireOutcome(err error) string {
	if err == nil {
		return "ok"
	}
	var we *protocol.Error
	if !errors.As(err, &we) {
		return "not a wire error: " + err.Error()
	}
	return we.Code.Name() + ": " + we.Message
}

func TestStageUpload(t *testing.T) {
	l, r := newLayout(t)
	store, err := OpenStore(filepath.Join(t.TempDir(), "uploads"), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	pl := func(name string, n int) protocol.FilePayload {
		return protocol.FilePayload{Name: name, Data: []byte(strings.Repeat("x", n))}
	}
	tests := []struct {
		name     string
		agent    bool
		paths    []string
		payloads []protocol.FilePayload
		want     string   // wireOutcome
		named    []string // for the audit line
		stored   int      // of the paths handed the browser, how many are copies in the store
	}{
		{name: "the owner's file as it is", paths: []string{l.secret}, want: "ok", named: []string{l.secret}},
		{name: "an agent's file copied", agent: true, paths: []string{l.report}, want: "ok", named: []string{l.report}, stored: 1},
		{name: "payloads written", payloads: []protocol.FilePayload{pl("a.txt", 3), pl("../b", 2)}, want: "ok", named: []string{"a.txt (3 bytes)", "b (2 bytes)"}, stored: 2},
		{name: "a relative path", paths: []string{"report.txt"}, want: `invalid_params: upload: "report.txt" is not an absolute path`, named: []string{"report.txt"}},
		{name: "an agent outside upload_dirs", agent: true, paths: []string{l.report, l.secret}, want: "forbidden_path: upload: " + l.secret + ": outside the folders a paired agent may upload from (agents.upload_dirs: " + l.share + ")", named: []string{l.report, l.secret}},
		{name: "the state dir", paths: []string{l.token}, want: "forbidden_path: upload: " + l.token + ": inside egohost's own state (the token, the agents' tokens): no call may read it", named: []string{l.token}},
		{name: "a missing file", paths: []string{filepath.Join(l.home, "none")}, want: "invalid_params: upload: " + filepath.Join(l.home, "none") + ": file does not exist", named: []string{filepath.Join(l.home, "none")}},
		{name: "payloads over the limit", paths: []string{l.secret}, payloads: []protocol.FilePayload{pl("big", 11)}, want: "too_large: upload: the files exceed 10 bytes in all (agents.upload_max_bytes)", named: []string{l.secret, "big (11 bytes)"}},
		{name: "an agent's copies and payloads over the limit", agent: true, paths: []string{l.report}, payloads: []protocol.FilePayload{pl("p", 2)}, want: "too_large: upload: the files exceed 10 bytes in all (agents.upload_max_bytes)", named: []string{l.report, "p (2 bytes)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := store.Stage(10)
			defer b.Discard()
			out, named, err := r.StageUpload(b, tt.agent, tt.paths, tt.payloads)
			if got := wireOutcome(err); got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
			if !slices.Equal(named, tt.named) {
				t.Errorf("named: got %q, want %q", named, tt.named)
			}
			if err != nil {
				if n := count(t, store.Dir()); n != 0 {
					t.Errorf("after a refusal the store holds %d folders, want 0", n)
				}
				return
			}
			stored := 0
			for _, p := range out {
				if strings.HasPrefix(p, store.Dir()+string(filepath.Separator)) {
					stored++
				}
			}
			if stored != tt.stored || len(out) != len(tt.paths)+len(tt.payloads) {
				t.Errorf("got %q, want %d paths, %d of them in the store", out, len(tt.paths)+len(tt.payloads), tt.stored)
			}
		})
	}
}

func TestCheckScript(t *testing.T) {
	l, r := newLayout(t)
	tests := []struct {
		name     string
		agent    bool
		paths    []string
		payloads []protocol.FilePayload
		want     string
		named    []string
	}{
		{name: "an agent's file", agent: true, paths: []string{l.share + "/./report.txt"}, want: "ok", named: []string{l.share + "/./report.txt"}},
		{name: "the owner's file", paths: []string{l.secret}, want: "ok", named: []string{l.secret}},
		{name: "a relative path", paths: []string{"x"}, want: `invalid_params: script.run: file "x" is not an absolute path`, named: []string{"x"}},
		{name: "an agent outside upload_dirs", agent: true, paths: []string{l.secret}, want: "forbidden_path: script.run: " + l.secret + ": outside the folders a paired agent may upload from (agents.upload_dirs: " + l.share + ")", named: []string{l.secret}},
		{name: "payloads over the limit", payloads: []protocol.FilePayload{{Name: "n", MimeType: "text/plain", Data: make([]byte, 11)}}, want: "too_large: script.run: the files exceed 10 bytes in all (agents.upload_max_bytes)", named: []string{"n.txt (11 bytes)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, named, err := r.CheckScript(10, tt.agent, tt.paths, tt.payloads)
			if got := wireOutcome(err); got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
			if !slices.Equal(named, tt.named) {
				t.Errorf("named: got %q, want %q", named, tt.named)
			}
			if err == nil && len(out) > 0 && out[0] != filepath.Clean(tt.paths[0]) {
				t.Errorf("got %q, want %q cleaned", out, tt.paths[0])
			}
		})
	}
}

func TestCreateOutput(t *testing.T) {
	l, r := newLayout(t)
	if _, err := r.CreateOutput("screenshot", l.secret, true); wireOutcome(err) != "forbidden_path: screenshot: "+l.secret+": a paired agent writes only a plain file name, into the output folder (agents.output_dir "+l.out+")" {
		t.Errorf("an agent's absolute path: got %s", wireOutcome(err))
	}
	kept, err := r.CreateOutput("screenshot", "kept.png", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(l.out, "kept.png"); kept.Path != want {
		t.Errorf("path: got %q, want %q", kept.Path, want)
	}
	if err := kept.Write([]byte("png")); err != nil {
		t.Fatal(err)
	}
	kept.Discard() // written: it stays
	if b, err := os.ReadFile(kept.Path); err != nil || string(b) != "png" {
		t.Errorf("a written file: got %q, %v, want png", b, err)
	}
	gone, err := r.CreateOutput("screenshot", "gone.png", false)
	if err != nil {
		t.Fatal(err)
	}
	gone.Discard()
	if _, err := os.Stat(gone.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a discarded file: got %v, want it gone", err)
	}
}

func TestWireError(t *testing.T) {
	tests := []struct {
		err  error
		want string
		data map[string]any
	}{
		{&Error{Path: "/p", Reason: "no"}, "forbidden_path: op: /p: no", map[string]any{"name": "forbidden_path", "path": "/p", "reason": "no"}},
		{&TooLargeError{Limit: 5}, "too_large: op: the files exceed 5 bytes in all (agents.upload_max_bytes)", map[string]any{"name": "too_large", "limit": int64(5)}},
		{&os.PathError{Op: "stat", Path: "/x", Err: os.ErrNotExist}, "invalid_params: op: stat /x: file does not exist", map[string]any{"name": "invalid_params"}},
		{errors.New("disk on fire"), "internal: op: disk on fire", map[string]any{"name": "internal"}},
	}
	for _, tt := range tests {
		err := wireError("op", tt.err)
		if got := wireOutcome(err); got != tt.want {
			t.Errorf("wireError(%v): got %s, want %s", tt.err, got, tt.want)
		}
		var we *protocol.Error
		if errors.As(err, &we) && !maps.Equal(we.Data, tt.data) {
			t.Errorf("wireError(%v): got data %v, want %v", tt.err, we.Data, tt.data)
		}
	}
}
