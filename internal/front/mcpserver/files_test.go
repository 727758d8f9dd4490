package mcpserver

import (
	"os"
	"strings"
	"testing"

	"github.com/egohost/egohost/protocol"
)

// browser_file_upload sends paths to the service as they are (the
// service's rules for the agent decide; the MCP server reads no file for
// the model) and files given inline as bytes.
func TestUploadSendsPathsAndInlineFiles(t *testing.T) {
	f := &fakeService{answers: map[string]any{protocol.MethodSnapshot: protocol.SnapshotResult{Text: "[no changes]"}}}
	cs := connect(t, f)
	secret := t.TempDir() + "/id_rsa"
	if err := os.WriteFile(secret, []byte("PRIVATE"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, isErr := callText(t, cs, "browser_file_upload", map[string]any{
		"paths": []string{secret},
		"files": []map[string]any{{"name": "a.txt", "text": "hi"}, {"name": "b.bin", "content": "AQI="}},
	})
	if isErr || !strings.Contains(got, "set 3 file(s)") {
		t.Errorf("got %q (error %t)", got, isErr)
	}
	want := `upload {"target":"css=input[type=file]","files":["` + secret + `"],"payloads":[{"name":"a.txt","data":"aGk="},{"name":"b.bin","data":"AQI="}]}`
	if len(f.calls) == 0 || f.calls[0] != want {
		t.Errorf("calls %q, want first %s", f.calls, want)
	}
	for _, c := range f.calls {
		if strings.Contains(c, "UFJJVkFURQ") { // base64 of the file's content
			t.Errorf("the MCP server read the path itself: %s", c)
		}
	}
	got, isErr = callText(t, cs, "browser_file_upload", map[string]any{"files": []map[string]any{{"name": "x", "content": "not base64!"}}})
	if !isErr || !strings.HasPrefix(got, "invalid_params: ") {
		t.Errorf("bad base64: got %q (error %t), want invalid_params", got, isErr)
	}
}

// browser_take_screenshot's filename is a plain name (saved in the
// output folder by the service), and the tool does not claim to be
// read-only: it may write a file (a new one: not destructive).
func TestScreenshotFilenameAndAnnotations(t *testing.T) {
	f := &fakeService{answers: map[string]any{protocol.MethodScreenshot: protocol.ScreenshotResult{Path: "/out/page.png", Width: 1, Height: 1}}}
	cs := connect(t, f)
	for _, name := range []string{"/home/u/.bashrc", "../x.png", `a\b.png`, ".."} {
		got, isErr := callText(t, cs, "browser_take_screenshot", map[string]any{"filename": name})
		if !isErr || !strings.HasPrefix(got, "invalid_params: ") {
			t.Errorf("filename %q: got %q (error %t), want invalid_params", name, got, isErr)
		}
	}
	if len(f.calls) != 0 {
		t.Errorf("calls %q, want none", f.calls)
	}
	got, isErr := callText(t, cs, "browser_take_screenshot", map[string]any{"filename": "page.png"})
	if isErr || !strings.Contains(got, "saved to /out/page.png") || len(f.calls) != 1 || !strings.Contains(f.calls[0], `"path":"page.png"`) {
		t.Errorf("filename page.png: got %q (error %t), calls %q", got, isErr, f.calls)
	}
	res := listTools(t, cs)
	for _, tl := range res.Tools {
		if tl.Name != "browser_take_screenshot" {
			continue
		}
		if a := tl.Annotations; a == nil || a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint {
			t.Errorf("browser_take_screenshot's annotations %+v: want readOnlyHint false, destructiveHint false", a)
		}
	}
}
