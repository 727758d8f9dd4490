package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/browsertest"
)

// The CLI's messages and the habits agents bring from other tools, through
// the real binary, service, extension and Chromium.
func TestCLIMessagesAndHabits(t *testing.T) {
	c := useSharedChain(t)
	base := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/form": `<!doctype html><title>form</title><h1>Search</h1><input id=q name=q aria-label=Query>
<a id=next href="/form?a=1&b=2">Next</a><p>Plain text that only a full snapshot shows.</p>`,
	}))
	ctx := ctxT(t, 120*time.Second)
	tab := c.openTab(t, base+"/form")

	run := func(t *testing.T, args ...string) (string, string, int) {
		t.Helper()
		return c.cli(tab, args...)
	}
	want := func(t *testing.T, what, got string, code, wantCode int, wants ...string) {
		t.Helper()
		if code != wantCode {
			t.Errorf("%s: got exit %d, want %d (output %q)", what, code, wantCode, got)
		}
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Errorf("%s: output %q lacks %q", what, got, w)
			}
		}
	}

	t.Run("press says what had the focus", func(t *testing.T) {
		if _, _, code := run(t, "focus", "#q"); code != 0 {
			t.Fatal("focus failed")
		}
		out, _, code := run(t, "press", "Enter")
		want(t, "press Enter", out, code, 0, `pressed Enter on <input id="q" name="q" aria-label="Query">`)
		if _, err := c.eval(ctx, tab, "document.activeElement.blur()"); err != nil {
			t.Fatal(err)
		}
		out, _, code = run(t, "press", "Escape")
		want(t, "press with nothing focused", out, code, 0, "pressed Escape with nothing focused (the page got the keys)")
	})

	t.Run("screenshot --full says full page", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "page.png")
		out, _, code := run(t, "screenshot", file, "--full")
		want(t, "screenshot --full", out, code, 0, "wrote "+file+": full page, ")
		out, _, code = run(t, "screenshot", file)
		want(t, "screenshot", out, code, 0, ": viewport, ")
	})

	t.Run("other tools' refs are refused with a hint", func(t *testing.T) {
		for _, ref := range []string{"@e12", "e12", "ref=e5"} {
			_, errOut, code := run(t, "click", ref, "--timeout", "1500")
			want(t, "click "+ref, errOut, code, 1, "refs here are @N (see `egohost snapshot`)", "foreign_ref 1112")
		}
	})

	t.Run("durations in milliseconds", func(t *testing.T) {
		start := time.Now()
		_, errOut, code := run(t, "click", "#missing", "--timeout", "300")
		want(t, "click --timeout 300", errOut, code, 1, "not_found")
		if time.Since(start) > 20*time.Second {
			t.Errorf("--timeout 300 took %v: read as something else than 300 ms", time.Since(start))
		}
	})

	t.Run("wait with a number sleeps", func(t *testing.T) {
		out, _, code := run(t, "wait", "300")
		want(t, "wait 300", out, code, 0, "slept ")
		out, _, code = run(t, "wait", "--ms", "50", "--json")
		want(t, "wait --ms 50 --json", out, code, 0, `"what":"sleep 50ms"`)
		_, errOut, code := run(t, "wait", "2000", "--state", "visible")
		want(t, "wait 2000 --state visible", errOut, code, 2, "a number or a duration is a sleep", "write @2000")
	})

	t.Run("wait --url prints the URL as typed", func(t *testing.T) {
		if _, _, code := run(t, "click", "#next"); code != 0 {
			t.Fatal("click failed")
		}
		out, _, code := run(t, "wait", "--url", "**b=2")
		want(t, "wait --url", out, code, 0, "?a=1&b=2")
		out, _, code = run(t, "wait", "--url", "**b=2", "--json")
		want(t, "wait --url --json", out, code, 0, "?a=1&b=2")
		if strings.Contains(out, `\u0026`) {
			t.Errorf("wait --url --json: got %q, want & unescaped", out)
		}
	})

	t.Run("snapshot --diff compares like with like", func(t *testing.T) {
		if _, _, code := run(t, "snapshot"); code != 0 {
			t.Fatal("snapshot failed")
		}
		if _, _, code := run(t, "snapshot", "-i"); code != 0 {
			t.Fatal("snapshot -i failed")
		}
		out, _, code := run(t, "snapshot", "--diff")
		want(t, "snapshot --diff after -i", out, code, 0, "[no changes since the previous snapshot")
		out, _, code = run(t, "snapshot", "-i", "--viewport", "--diff")
		want(t, "snapshot -i --viewport --diff", out, code, 0, "[diff: no earlier interactive (-i), viewport snapshot of this tab")
	})

	t.Run("tab --index", func(t *testing.T) {
		cmd := exec.Command(theSuite.bin, "tabs")
		cmd.Env = chainEnv(c.svc.stateDir)
		list, err := cmd.Output()
		if err != nil || !strings.HasPrefix(string(list), "#") {
			t.Fatalf("tabs: %v, %q", err, list)
		}
		cmd = exec.Command(theSuite.bin, "tab", "--index", "0")
		cmd.Env = chainEnv(c.svc.stateDir)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "selected tab ") {
			t.Errorf("tab --index 0: %v, %q", err, out)
		}
		cmd = exec.Command(theSuite.bin, "tab", "1")
		cmd.Env = chainEnv(c.svc.stateDir)
		out, err = cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "tab_not_found") || !strings.Contains(string(out), "use egohost tab --index 1") {
			t.Errorf("tab 1: %v, %q", err, out)
		}
		cmd = exec.Command(theSuite.bin, "tab", "--index", "99")
		cmd.Env = chainEnv(c.svc.stateDir)
		out, err = cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "tab --index 99: there are ") {
			t.Errorf("tab --index 99: %v, %q", err, out)
		}
	})
}
