package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/protocol"
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
		// A command-line mistake, found before the service is asked.
		for _, ref := range []string{"@e12", "e12", "ref=e5"} {
			_, errOut, code := run(t, "click", ref, "--timeout", "1500")
			want(t, "click "+ref, errOut, code, 2, "refs here are @N (see `egohost snapshot`)")
		}
		// The service refuses them too, for callers that are not the CLI.
		if err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "e12"}, nil); protocol.CodeOf(err) != protocol.CodeForeignRef {
			t.Errorf("click e12 over the API: got %v, want foreign_ref", err)
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
		env := chainEnv(c.svc.stateDir)
		list, errOut, code := runEgohost(env, nil, "tabs")
		if code != 0 || !strings.HasPrefix(list, "#") {
			t.Fatalf("tabs: exit %d, %q %q", code, list, errOut)
		}
		out, errOut, code := runEgohost(env, nil, "tab", "--index", "0")
		if code != 0 || !strings.HasPrefix(out, "selected tab ") {
			t.Errorf("tab --index 0: exit %d, %q %q", code, out, errOut)
		}
		out, errOut, code = runEgohost(env, nil, "tab", "1")
		if all := out + errOut; code != 1 || !strings.Contains(all, "tab_not_found") || !strings.Contains(all, "use egohost tab --index 1") {
			t.Errorf("tab 1: exit %d, %q", code, all)
		}
		out, errOut, code = runEgohost(env, nil, "tab", "--index", "99")
		if all := out + errOut; code != 2 || !strings.Contains(all, "tab --index 99: there are ") {
			t.Errorf("tab --index 99: exit %d, %q", code, all)
		}
	})
}

// The reading verbs (issue 25 item 5), each one call, with --json, on
// Chromium through the chain.
func TestCLIGetAndIs(t *testing.T) {
	c := useSharedChain(t)
	base := browsertest.Serve(t, browsertest.Pages(map[string]string{
		"/read": `<!doctype html><title>Reading</title><h1 id=h>Hello <b>there</b></h1>
<input id=email aria-label=Email value=me@example.com><input id=pw type=password aria-label=Password value=hunter2>
<label><input id=agree type=checkbox checked> Agree</label><button id=off disabled>Off</button>
<a id=docs href="/docs" data-x='a"b'>Docs</a><ul><li>one</li><li>two</li><li>three</li></ul>
<div id=hidden style="display:none">gone</div><div id=box style="position:absolute;left:100px;top:200px;width:50px;height:20px"></div>`,
	}))
	tab := c.openTab(t, base+"/read")
	tests := []struct {
		args     []string
		wantCode int
		want     string
	}{
		{[]string{"get", "text", "#h"}, 0, "Hello there\n"},
		{[]string{"get", "html", "#h"}, 0, "Hello <b>there</b>\n"},
		{[]string{"get", "value", "label=Email"}, 0, "me@example.com\n"},
		{[]string{"get", "value", "label=Password"}, 0, "•••••••\n"}, // never the password itself
		{[]string{"get", "attr", "#docs", "href"}, 0, "/docs\n"},
		{[]string{"get", "attr", "#docs", "data-x"}, 0, "a\"b\n"},
		{[]string{"get", "attr", "#docs", "nope"}, 0, ""},
		{[]string{"get", "url"}, 0, base + "/read\n"},
		{[]string{"get", "title"}, 0, "Reading\n"},
		{[]string{"get", "count", "role=listitem"}, 0, "3\n"},
		{[]string{"get", "count", "#missing"}, 0, "0\n"},
		{[]string{"get", "box", "#box"}, 0, "125 210 50 20\n"},
		{[]string{"is", "visible", "#h"}, 0, "true\n"},
		{[]string{"is", "visible", "#hidden"}, 0, "false\n"},
		{[]string{"is", "visible", "#missing"}, 0, "false\n"},
		{[]string{"is", "enabled", "#off"}, 0, "false\n"},
		{[]string{"is", "enabled", "label=Email"}, 0, "true\n"},
		{[]string{"is", "checked", "label=Agree"}, 0, "true\n"},
		{[]string{"get", "count", "role=listitem", "--json"}, 0, `{"count":3}` + "\n"},
		{[]string{"is", "visible", "#missing", "--json"}, 0, `{"element":"#missing","visible":false}` + "\n"},
		{[]string{"get", "title", "--json"}, 0, `{"tab":` + itoa(tab.Tab) + `,"title":"Reading"}` + "\n"},
		{[]string{"get", "value", "#h"}, 1, ""},
		{[]string{"is", "checked", "#h"}, 1, ""},
		{[]string{"get", "box", "role=listitem"}, 1, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := c.cli(tab, tt.args...)
			if code != tt.wantCode || (tt.wantCode == 0 && out != tt.want) {
				t.Errorf("got exit %d, stdout %q (stderr %q); want exit %d, %q", code, out, errOut, tt.wantCode, tt.want)
			}
		})
	}
}

// `open` as an agent whose space has an empty tab loads the URL there and
// says so (issue 25 item 6); with no empty tab it opens another.
func TestCLIOpenReusesTheSpacesEmptyTab(t *testing.T) {
	c := useSharedChain(t)
	base := browsertest.Serve(t, browsertest.Pages(map[string]string{"/a": `<title>A</title>a`, "/b": `<title>B</title>b`}))
	agent := "reuser" + itoa(int(time.Now().UnixNano()%100000))
	run := func(args ...string) (string, string, int) {
		return runCLI(chainEnv(c.svc.stateDir), append([]string{"--agent", agent}, args...)...)
	}
	out, errOut, code := run("space", "new", "--task", "reuse")
	if code != 0 {
		t.Fatalf("space new: exit %d, %s %s", code, out, errOut)
	}
	t.Cleanup(func() { run("space", "close") })
	out, errOut, code = run("open", base+"/a")
	if code != 0 || !strings.HasPrefix(out, "reused the space's empty tab ") || !strings.Contains(out, base+"/a") {
		t.Fatalf("open in a space with an empty tab: exit %d, %q %q; want it reused", code, out, errOut)
	}
	out, errOut, code = run("open", base+"/b", "--json")
	if code != 0 || strings.Contains(out, `"reused"`) || !strings.Contains(out, base+"/b") {
		t.Fatalf("open with no empty tab left: exit %d, %q %q; want a new tab", code, out, errOut)
	}
	out, _, _ = run("space", "list", "--json")
	var list protocol.SpacesListResult
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Spaces) != 1 || len(list.Spaces[0].Tabs) != 2 {
		t.Errorf("the agent's spaces: %s (%v); want one space with 2 tabs (the empty one reused)", out, err)
	}
}

// Completion of --tab and --browser asks the running service.
func TestCLICompletesFromTheService(t *testing.T) {
	c := useSharedChain(t)
	browser := c.waitLink(t).ID
	base := browsertest.Serve(t, browsertest.Pages(map[string]string{"/": `<title>x</title>x`}))
	tab := c.openTab(t, base+"/")
	out, errOut, code := runCLI(chainEnv(c.svc.stateDir), "__complete", "click", "@1", "--tab", "")
	if code != 0 || !strings.Contains(out, itoa(tab.Tab)+"\t") {
		t.Errorf("__complete --tab: exit %d, %q %q; want tab %d listed", code, out, errOut, tab.Tab)
	}
	out, errOut, code = runCLI(chainEnv(c.svc.stateDir), "__complete", "tabs", "--browser", "")
	if code != 0 || !strings.Contains(out, browser+"\t") {
		t.Errorf("__complete --browser: exit %d, %q %q; want browser %s listed", code, out, errOut, browser)
	}
}
