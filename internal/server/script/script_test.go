package script

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/protocol"
)

// fakeService records the calls a script makes and answers from a table
// keyed by method (default: the params echoed back).
type fakeService struct {
	mu      sync.Mutex
	calls   []string // "method params"
	answers map[string]func(params json.RawMessage) (json.RawMessage, error)
}

func (f *fakeService) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	f.mu.Lock()
	f.calls = append(f.calls, method+" "+string(params))
	answer := f.answers[method]
	f.mu.Unlock()
	if answer != nil {
		return answer(params)
	}
	return params, nil
}

func run1(t *testing.T, svc Service, src string, opts Options) (*protocol.ScriptRunResult, *protocol.Error) {
	t.Helper()
	if opts.Target.Tab == 0 {
		opts.Target = protocol.Target{Browser: "b1", Tab: 7}
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	res, err := Run(context.Background(), svc, src, opts)
	if err == nil {
		return res, nil
	}
	var pe *protocol.Error
	if !errors.As(err, &pe) {
		t.Fatalf("Run: got %T %v, want a *protocol.Error", err, err)
	}
	return nil, pe
}

// TestOutputAndValue is the table of scripts and what they return.
func TestOutputAndValue(t *testing.T) {
	tests := []struct {
		name, script, output, value string
	}{
		{"last expression", `1 + 2`, "", `3`},
		{"last expression after statements", "const a = 2;\nlet b = 3;\na * b", "", `6`},
		{"parenthesised last expression", "const o = {a: 1};\n(o).a", "", `1`},
		{"no value", `const a = 1`, "", ``},
		{"explicit return", `return 'r'`, "", `"r"`},
		{"await at the top level", `await Promise.resolve(5)`, "", `5`},
		{"strings raw", `console.log('a b', "c")`, "a b c\n", ``},
		{"objects as JSON", `console.log({a: [1, {b: null}]}, [1, 'x'])`, "{\"a\":[1,{\"b\":null}]} [1,\"x\"]\n", ``},
		{"undefined, null, numbers, booleans", `console.log(undefined, null, 1.5, true)`, "undefined null 1.5 true\n", ``},
		{"errors as name: message (line:col)", "\nconsole.log(new TypeError('bad'))", "TypeError: bad (2:13)\n", ``},
		{"functions by name", `function foo() {}; console.log(foo)`, "[Function foo]\n", ``},
		{"cyclic objects fall back to String", `const o = {}; o.o = o; console.log(o)`, "[object Object]\n", ``},
		{"every console method", `console.info(1); console.warn(2); console.error(3); console.debug(4)`, "1\n2\n3\n4\n", ``},
		{"setTimeout order", `const o = []; setTimeout(() => o.push(2), 20); setTimeout(() => o.push(1), 0); await new Promise((r) => setTimeout(r, 40)); o`, "", `[1,2]`},
		{"clearTimeout", `const o = []; const id = setTimeout(() => o.push('no'), 10); clearTimeout(id); await page.waitForTimeout(30); o`, "", `[]`},
		{"help prints", `help('keyboard')`, "page.keyboard: press(key) (\"Enter\", \"Control+a\", \"ControlOrMeta+a\"), type(text, {delay}), insertText(text); keys go to the focused element.\n", ``},
		{"help says what refs look like", `help('snapshot')`, "page.snapshot({interactive, scope, viewport, maxChars, start, diff}): the page as text with refs (button \"Buy\" @12); use a ref as page.locator(\"@12\").\n", ``},
		{"locators print their selector", `console.log(page.getByRole('button', {name: 'Go'}).first())`, "\"locator(\\\"role=button[name=\\\\\\\"Go\\\\\\\"i] >> nth=0\\\")\"\n", ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run1(t, &fakeService{}, tt.script, Options{})
			if err != nil {
				t.Fatalf("Run: %v (data %v)", err, err.Data)
			}
			if res.Output != tt.output {
				t.Errorf("output: got %q, want %q", res.Output, tt.output)
			}
			if string(res.Value) != tt.value {
				t.Errorf("value: got %s, want %s", res.Value, tt.value)
			}
		})
	}
}

// TestFacadeCalls: each facade method is the service method with the
// params an agent would send.
func TestFacadeCalls(t *testing.T) {
	tests := []struct {
		script string
		want   string // the one call made
	}{
		{`await page.goto('http://x/', {waitUntil: 'domcontentloaded', timeout: 900})`, `goto {"browser":"b1","tab":7,"url":"http://x/","until":"domcontentloaded","timeoutMs":900}`},
		{`await page.reload()`, `reload {"browser":"b1","tab":7}`},
		{`await page.goBack()`, `back {"browser":"b1","tab":7}`},
		{`await page.goForward()`, `forward {"browser":"b1","tab":7}`},
		{`await page.getByLabel('Email').fill('a@b')`, `fill {"browser":"b1","tab":7,"target":"label=\"Email\"i","noSettle":true,"text":"a@b"}`},
		{`await page.getByLabel('Email', {exact: true}).fill('x')`, `fill {"browser":"b1","tab":7,"target":"label=\"Email\"s","noSettle":true,"text":"x"}`},
		{`await page.getByText(/sign\s+in/i).click()`, `click {"browser":"b1","tab":7,"target":"text=/sign\\s+in/i"}`},
		{`await page.getByRole('checkbox', {name: 'Agree', checked: false}).check({force: true})`, `check {"browser":"b1","tab":7,"target":"role=checkbox[name=\"Agree\"i][checked=false]","force":true,"noSettle":true}`},
		{`await page.getByPlaceholder('you@').uncheck()`, `uncheck {"browser":"b1","tab":7,"target":"placeholder=\"you@\"i","noSettle":true}`},
		{`await page.getByAltText('logo').hover()`, `hover {"browser":"b1","tab":7,"target":"alt=\"logo\"i","noSettle":true}`},
		{`await page.getByTitle('Help').dblclick()`, `click {"browser":"b1","tab":7,"target":"title=\"Help\"i","count":2}`},
		{`await page.getByTestId('buy').click({button: 'right', modifiers: ['Shift']})`, `click {"browser":"b1","tab":7,"target":"testid=\"buy\"","button":"right","modifiers":["Shift"]}`},
		{`await page.locator('li').filter({hasText: 'Milk'}).locator('button').nth(1).press('Enter')`, `press {"browser":"b1","tab":7,"target":"li >> has-text=\"Milk\"i >> button >> nth=1","key":"Enter"}`},
		{`await page.locator('li').filter({has: page.locator('css=a >> text=x')}).last().type('ab', {delay: 5})`, `type {"browser":"b1","tab":7,"target":"li >> has=\"css=a >> text=x\" >> nth=-1","noSettle":true,"text":"ab","delayMs":5}`},
		{`await page.locator('#s').selectOption(['a', {label: 'B'}, {index: 2}])`, `select {"browser":"b1","tab":7,"target":"#s","noSettle":true,"values":["a"],"labels":["B"],"indexes":[2]}`},
		{`await page.locator('#x').waitFor({state: 'hidden', timeout: 50})`, `wait {"browser":"b1","tab":7,"target":"#x","state":"hidden","timeoutMs":50}`},
		{`await page.waitForURL(/done/)`, `wait {"browser":"b1","tab":7,"url":"/done/"}`},
		{`await page.waitForLoadState('networkidle')`, `wait {"browser":"b1","tab":7,"load":"networkidle"}`},
		{`await page.waitForFunction((n) => window.n > n, 3)`, `wait {"browser":"b1","tab":7,"function":"((n) => window.n > n)(3)"}`},
		{`await page.evaluate('document.title')`, `eval {"browser":"b1","tab":7,"expression":"document.title"}`},
		{`await page.keyboard.press('Control+a')`, `press {"browser":"b1","tab":7,"key":"Control+a"}`},
		{`await page.keyboard.type('hi')`, `type {"browser":"b1","tab":7,"text":"hi"}`},
		{`await page.mouse.wheel(0, 100)`, `scroll {"browser":"b1","tab":7,"dx":0,"dy":100}`},
		{`await page.locator('@12').scrollIntoViewIfNeeded()`, `scroll {"browser":"b1","tab":7,"target":"@12","noSettle":true}`},
		{`await page.locator('#a').dragTo(page.locator('#b'))`, `drag {"browser":"b1","tab":7,"target":"#a","to":"#b"}`},
		{`await page.locator('#a').fill('x', {noWaitAfter: false})`, `fill {"browser":"b1","tab":7,"target":"#a","text":"x"}`},
		{`await page.locator('#a').click({noWaitAfter: true})`, `click {"browser":"b1","tab":7,"target":"#a","noSettle":true}`},
		{`await page.locator('#a').count()`, `resolve {"browser":"b1","tab":7,"target":"#a"}`},
		// Reads are eval with a target (never raw CDP, a scope of its own).
		{`await page.locator('#a').textContent()`, `eval {"browser":"b1","tab":7,"target":"#a","expression":"(el) => (function () { return this.textContent; }).call(el, null)"}`},
		{`await page.getByRole('link').getAttribute('href', {timeout: 300})`, `eval {"browser":"b1","tab":7,"target":"role=link","expression":"(el) => (function (n) { return this.getAttribute(n); }).call(el, \"href\")","timeoutMs":300}`},
		{`await page.locator('@3').evaluate((el, s) => el.id + s, '!')`, `eval {"browser":"b1","tab":7,"target":"@3","expression":"(el) => (function (a) { return ((el, s) => el.id + s)(this, a) }).call(el, \"!\")"}`},
		{`await cdp('Page.getLayoutMetrics')`, `cdp.send {"browser":"b1","tab":7,"method":"Page.getLayoutMetrics","params":{}}`},
		{`await browser.tab(9).bringToFront()`, `tabs.select {"browser":"b1","tab":9}`},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			f := &fakeService{}
			if _, err := run1(t, f, tt.script, Options{}); err != nil {
				t.Fatalf("Run: %v", err)
			}
			if d := cmp.Diff([]string{tt.want}, f.calls); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
		})
	}
}

// TestFailingCall: a call's error keeps its code and says where the
// script made it, with which locator, after what output.
func TestFailingCall(t *testing.T) {
	f := &fakeService{answers: map[string]func(json.RawMessage) (json.RawMessage, error){
		"fill": func(json.RawMessage) (json.RawMessage, error) {
			return nil, protocol.Errorf(protocol.CodeNotFound, "fill label=Email: no element matches").With("kind", "transient")
		},
	}}
	_, err := run1(t, f, "console.log('one')\nconsole.log({two: 2})\n  await page.getByLabel('Email').fill('x')\nconsole.log('never')", Options{})
	if err == nil {
		t.Fatal("Run: got no error")
	}
	got := map[string]any{"code": err.Code, "message": err.Message}
	for k, v := range err.Data {
		got[k] = v
	}
	want := map[string]any{
		"code": protocol.CodeNotFound, "message": "line 3, column 38: fill label=Email: no element matches",
		"name": "not_found", "kind": "transient", "call": "fill", "locator": `label="Email"i`, "line": 3, "column": 38,
		"output": "one\n{\"two\":2}\n",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("error (-want +got):\n%s", d)
	}

	// Caught, it is an Error named by its code.
	res, err := run1(t, f, "try { await page.fill('#a', 'x') } catch (e) { console.log(e instanceof Error, e.name, e.code, e.data.kind) }", Options{})
	if err != nil || res.Output != "true not_found 1100 transient\n" {
		t.Errorf("caught: got %v, %v", res, err)
	}
}

// TestWaitForPopup: page.waitForEvent('popup') is the page of the tab an
// action of the page opened (its result's opened), whether the wait began
// before the action (Playwright's idiom) or after; a wait with no such tab
// ends at its timeout.
func TestWaitForPopup(t *testing.T) {
	opens := func(json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`{"action":"click","tab":7,"opened":[{"id":9,"browser":"b1","openerTabId":7}]}`), nil
	}
	tests := []struct {
		name, script, value string
		code                protocol.Code
	}{
		{"the wait begun first", "const p = page.waitForEvent('popup');\nawait page.click('#new');\nconst popup = await p;\nawait popup.title();\npopup.id", `9`, 0},
		{"the wait after the action", "await page.getByRole('link', {name: 'Help'}).click();\n(await page.waitForEvent('popup')).id", `9`, 0},
		{"an Enter that opens one", "await page.keyboard.press('Enter');\n(await page.waitForEvent('popup')).id", `9`, 0},
		// The facade's own errors are the script's (script_error), named.
		{"no tab opened", "await page.waitForEvent('popup', {timeout: 50})", `timeout: waitForEvent('popup'): no action of page(tab 7) opened a tab in 50 ms`, protocol.CodeScript},
		{"another event", "await page.waitForEvent('download')", `invalid_params: waitForEvent: only 'popup'`, protocol.CodeScript},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeService{answers: map[string]func(json.RawMessage) (json.RawMessage, error){"click": opens, "press": opens}}
			if tt.code != 0 {
				f = &fakeService{}
			}
			res, err := run1(t, f, tt.script, Options{})
			if tt.code != 0 {
				if err == nil || err.Code != tt.code || !strings.Contains(err.Message, tt.value) {
					t.Fatalf("Run: got %v, want %s: %s…", err, tt.code.Name(), tt.value)
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v (data %v)", err, err.Data)
			}
			if string(res.Value) != tt.value {
				t.Errorf("value: got %s, want %s", res.Value, tt.value)
			}
			if tt.name == "the wait begun first" && !strings.Contains(strings.Join(f.calls, "\n"), `eval {"browser":"b1","tab":9,`) {
				t.Errorf("calls: got %q, want an eval on tab 9", f.calls)
			}
		})
	}
}

func TestScriptErrors(t *testing.T) {
	tests := []struct {
		name, script string
		code         protocol.Code
		message      string
		line, column any
	}{
		{"syntax error", "const a = 1;\nconst = 2", protocol.CodeScript, "script: SyntaxError: Unexpected token = (line 2, column 7)", 2, 7},
		{"syntax error at the end", "foo(", protocol.CodeScript, "script: SyntaxError: Unexpected token } (line 1, column 5)", 1, 5},
		{"reference error", "const a = 1;\n  nope.x", protocol.CodeScript, "script: ReferenceError: nope is not defined (line 2, column 3)", 2, 3},
		{"thrown error", "await 1;\nthrow new RangeError('out')", protocol.CodeScript, "script: RangeError: out (line 2, column 7)", 2, 7},
		{"thrown value", "throw {a: 1}", protocol.CodeScript, `script: uncaught {"a":1}`, nil, nil},
		{"the facade's host is out of reach", "await page.evaluate(() => 1, undefined, 3).then(() => host)", protocol.CodeScript, "script: ReferenceError: host is not defined (line 1, column 55)", 1, 55},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run1(t, &fakeService{}, tt.script, Options{})
			if err == nil {
				t.Fatal("Run: got no error")
			}
			if err.Code != tt.code || err.Message != tt.message {
				t.Errorf("got %s %q, want %s %q", err.Code.Name(), err.Message, tt.code.Name(), tt.message)
			}
			if err.Data["line"] != tt.line || err.Data["column"] != tt.column {
				t.Errorf("position: got %v:%v, want %v:%v", err.Data["line"], err.Data["column"], tt.line, tt.column)
			}
		})
	}
}

// TestGuards: what would hurt the service ends the run cleanly, and the
// next run works.
func TestGuards(t *testing.T) {
	tests := []struct {
		name, script string
		code         protocol.Code
		message      string
	}{
		{"infinite loop", `while (true) {}`, protocol.CodeTimeout, "script: timed out after 300ms"},
		{"infinite async loop", `while (true) { await null }`, protocol.CodeTimeout, "script: timed out after 300ms"},
		{"deep recursion", `const f = (n) => f(n + 1); f(0)`, protocol.CodeScriptLimit, "call stack exceeded 2000 frames"},
		{"1 GB string", `'x'.repeat(2 ** 30)`, protocol.CodeScriptLimit, "String.prototype.repeat would take 2048 MiB"},
		{"1 GB pad", `''.padStart(2 ** 29)`, protocol.CodeScriptLimit, "String.prototype.padStart would take 1024 MiB"},
		{"1 GB replace", `'x'.repeat(2 ** 20).replaceAll('x', 'y'.repeat(2 ** 10))`, protocol.CodeScriptLimit, "String.prototype.replaceAll would take 2048 MiB"},
		{"1 GB buffer", `new ArrayBuffer(2 ** 30)`, protocol.CodeScriptLimit, "new ArrayBuffer would take 1024 MiB"},
		{"1 GB typed array", `new Float64Array(2 ** 27)`, protocol.CodeScriptLimit, "new Float64Array would take 1024 MiB"},
		{"1 GB array fill", `new Array(2 ** 26).fill(0)`, protocol.CodeScriptLimit, "Array.prototype.fill on 67108864 elements"},
		{"1 GB Array.from", `Array.from({length: 2 ** 26})`, protocol.CodeScriptLimit, "Array.from of 67108864 elements"},
		{"a long sparse array joined", `const a = []; a.length = 2 ** 30; a.join(',')`, protocol.CodeScriptLimit, "Array.prototype.join on 1073741824 elements"},
		{"awaits forever", `await new Promise(() => {})`, protocol.CodeScript, "script: it awaits a promise that nothing will settle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			timeout := 30 * time.Second // the guard, not the clock, must stop it
			if tt.code == protocol.CodeTimeout {
				timeout = 300 * time.Millisecond
			}
			_, err := run1(t, &fakeService{}, tt.script, Options{Timeout: timeout})
			if err == nil {
				t.Fatal("Run: got no error")
			}
			if err.Code != tt.code || !strings.Contains(err.Message, tt.message) {
				t.Errorf("got %s %q, want %s containing %q", err.Code.Name(), err.Message, tt.code.Name(), tt.message)
			}
		})
	}
	t.Run("guarded built-ins still work", func(t *testing.T) {
		res, err := run1(t, &fakeService{}, `[[3, 1, 2].sort().join('-'), 'ab'.repeat(2), 'x'.padStart(3, '.'), new Uint8Array([1, 2]).length, Array.from('ab'), new Float64Array(2) instanceof Float64Array, Uint8Array.BYTES_PER_ELEMENT, 'a-b'.replaceAll('-', '+')]`, Options{})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if want := `["1-2-3","abab","..x",2,["a","b"],true,1,"a+b"]`; string(res.Value) != want {
			t.Errorf("got %s, want %s", res.Value, want)
		}
	})
	t.Run("growing heap", func(t *testing.T) {
		_, err := run1(t, &fakeService{}, `const big = 'x'.repeat(2 ** 20); const a = []; while (true) a.push(big + a.length)`, Options{MaxMemory: 64 << 20, Timeout: time.Minute})
		if err == nil || err.Code != protocol.CodeScriptLimit || !strings.Contains(err.Message, "memory limit: the heap grew") {
			t.Errorf("got %v, want a memory limit", err)
		}
	})
}

// TestCanceled: the caller's cancellation (the agent gone) interrupts a
// running script, busy in JavaScript or waiting on a call. The script is
// running when the context ends (the call has reached the service), and
// the service's call ends with its context, as the real one does.
func TestCanceled(t *testing.T) {
	for _, src := range []string{`while (true) {}`, `await page.click('#a')`} {
		started := make(chan struct{})
		var once sync.Once
		f := &blockingService{started: func() { once.Do(func() { close(started) }) }}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := Run(ctx, f, src, Options{Target: protocol.Target{Tab: 1}, Timeout: time.Hour})
			done <- err
		}()
		if strings.Contains(src, "click") {
			select {
			case <-started:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: the call never reached the service", src)
			}
		}
		cancel()
		select {
		case err := <-done:
			if protocol.CodeOf(err) != protocol.CodeTimeout || !strings.Contains(err.Error(), "canceled") {
				t.Errorf("%s: got %v, want canceled", src, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still running 10 s after its context ended", src)
		}
	}
}

// blockingService answers every call when the call's context ends.
type blockingService struct{ started func() }

func (b *blockingService) Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	b.started()
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestOutputCap(t *testing.T) {
	res, err := run1(t, &fakeService{}, `for (let i = 0; i < 100; i++) console.log('line ' + i); 'x'.repeat(100)`, Options{MaxOutput: 30})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := "line 0\nline 1\nline 2\nline 3\nli\n… [output cut: 760 more bytes in 96 lines past limits.script_output = 30 bytes]\n"
	if res.Output != want || res.Cut != 760 {
		t.Errorf("output: got %q (cut %d), want %q (cut 760)", res.Output, res.Cut, want)
	}
	if !strings.Contains(string(res.Value), "value cut") {
		t.Errorf("value: got %s, want it cut", res.Value)
	}
}

func TestCheckRefusesWhatTheFacadeNeverSends(t *testing.T) {
	r := &run{opts: Options{Files: []string{"/ok.txt"}, Payloads: []protocol.FilePayload{{Name: "given.csv", Data: []byte("a,b")}}}}
	for _, tt := range []struct {
		method, params string
		want           string // the params sent, "" when refused
	}{
		{protocol.MethodClick, `{}`, `{}`},
		{protocol.MethodScriptRun, `{}`, ""},
		{protocol.MethodCDPSubscribe, `{}`, ""},
		{protocol.MethodScreenshot, `{"path":"/tmp/x.png"}`, ""},
		{protocol.MethodUpload, `{"files":["/ok.txt"]}`, `{"files":["/ok.txt"]}`},
		{protocol.MethodUpload, `{"files":["/etc/passwd"]}`, ""},
		{protocol.MethodUpload, `{"files":["given.csv"]}`, `{"files":[],"payloads":[{"name":"given.csv","data":"YSxi"}]}`},
		{protocol.MethodUpload, `{"files":["/home/u/given.csv"],"payloads":[{"name":"b","data":"eA=="}]}`, `{"files":[],"payloads":[{"name":"b","data":"eA=="},{"name":"given.csv","data":"YSxi"}]}`},
		{protocol.MethodUpload, `{"files":"x"}`, ""},
	} {
		got, err := r.check(tt.method, json.RawMessage(tt.params))
		if tt.want == "" {
			if err == nil {
				t.Errorf("check(%s, %s): got %s, want it refused", tt.method, tt.params, got)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("check(%s, %s): got %s, %v; want %s", tt.method, tt.params, got, err, tt.want)
		}
	}
}

// setInputFiles sends Playwright's {name, mimeType, buffer} as bytes.
func TestSetInputFilesBuffers(t *testing.T) {
	f := &fakeService{}
	src := `await page.locator('#f').setInputFiles([{name: 'a.txt', mimeType: 'text/plain', buffer: 'hé'}, {name: 'b.bin', buffer: new Uint8Array([1, 2])}, {name: 'c', buffer: [3]}, {name: 'd', buffer: new Uint8Array([4]).buffer}])`
	if _, err := run1(t, f, src, Options{}); err != nil {
		t.Fatal(err)
	}
	want := `upload {"files":[],"force":null,"noSettle":true,"payloads":[{"name":"a.txt","mimeType":"text/plain","data":"aMOp"},{"name":"b.bin","data":"AQI="},{"name":"c","data":"Aw=="},{"name":"d","data":"BA=="}],"tab":7,"browser":"b1","target":"#f"}`
	if len(f.calls) != 1 {
		t.Fatalf("calls: %q", f.calls)
	}
	var got, w map[string]any
	json.Unmarshal([]byte(strings.TrimPrefix(f.calls[0], "upload ")), &got)
	json.Unmarshal([]byte(strings.TrimPrefix(want, "upload ")), &w)
	if diff := cmp.Diff(w["payloads"], got["payloads"]); diff != "" {
		t.Errorf("payloads (-want +got):\n%s", diff)
	}
	if _, err := run1(t, f, `await page.locator('#f').setInputFiles({name: 'x', buffer: {}})`, Options{}); err == nil || err.Code != protocol.CodeScript {
		t.Errorf("a buffer that is no buffer: got %v, want a TypeError", err)
	}
}

// Scripts run at once share the compiled facade (facadeProgram): each
// gets a facade of its own that calls its own service, and the race
// detector sees no shared state written.
func TestConcurrentScriptsShareTheFacade(t *testing.T) {
	const n = 8
	var wg sync.WaitGroup
	svcs := make([]*fakeService, n)
	results := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		svcs[i] = &fakeService{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := "await page.locator('#f" + string(rune('a'+i)) + "').fill('x'); 'done ' + " + string(rune('0'+i))
			res, err := Run(context.Background(), svcs[i], src, Options{Target: protocol.Target{Browser: "b1", Tab: 7}, Timeout: 20 * time.Second})
			if err != nil {
				errs[i] = err
				return
			}
			results[i] = string(res.Value)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("script %d: %v", i, errs[i])
		}
		if want := `"done ` + string(rune('0'+i)) + `"`; results[i] != want {
			t.Errorf("script %d: got %s, want %s", i, results[i], want)
		}
		if len(svcs[i].calls) != 1 || !strings.Contains(svcs[i].calls[0], `#f`+string(rune('a'+i))) {
			t.Errorf("script %d's service got %q, want its one fill of #f%c", i, svcs[i].calls, 'a'+i)
		}
	}
}

// BenchmarkScriptStart: a script that does nothing (`1`), start to
// result: the runtime, the facade, the event loop.
func BenchmarkScriptStart(b *testing.B) {
	opts := Options{Target: protocol.Target{Browser: "b1", Tab: 7}, Timeout: 5 * time.Second}
	for b.Loop() {
		if _, err := Run(context.Background(), &fakeService{}, "1", opts); err != nil {
			b.Fatal(err)
		}
	}
}
