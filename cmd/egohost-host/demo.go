package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/internal/front/cli"
	"github.com/egohost/egohost/protocol"
)

const demoPage = `<!doctype html>
<html><head><title>egohost demo</title></head>
<body>
<h1>Hello from egohost</h1>
<form id="f"><label>Name <input id="name" name="name"></label>
<button id="go" type="submit">Say hello</button></form>
<p id="out"></p>
<script>
document.getElementById('f').addEventListener('submit', e => {
  e.preventDefault();
  const n = document.getElementById('name').value;
  document.getElementById('out').textContent = 'Hello, ' + n + '!';
  console.log('greeted ' + n);
});
</script>
</body></html>`

// demo launches a browser with the extension in a throwaway profile, runs
// a private service, drives a page through the whole chain and exits.
func (e *env) demo(ctx context.Context, headed bool) error {
	// A private state dir and port: the demo never touches a running service.
	dir, err := os.MkdirTemp("", "egohost-demo-")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer os.RemoveAll(dir)
	e.cfg.StateDir = dir
	e.cfg.DataDir = dir
	e.cfg.Socket = filepath.Join(dir, "relay.sock")
	e.cfg.TokenFile = filepath.Join(dir, "token")
	e.cfg.Listen = "127.0.0.1:0"
	if e.cfg.LogLevel < slog.LevelWarn {
		e.log = cli.NewLogger(e.stderr, slog.LevelWarn)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("demo: serve page: %w", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, demoPage)
	}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	pageURL := "http://" + ln.Addr().String() + "/"

	step := func(name, detail string, d time.Duration) {
		fmt.Fprintf(e.stdout, "  ✓ %-24s %s", name, detail)
		if d > 0 {
			fmt.Fprintf(e.stdout, "  (%s)", round(d))
		}
		fmt.Fprintln(e.stdout)
	}
	fmt.Fprintln(e.stdout, "egohost demo: Chromium + extension ⇄ native messaging ⇄ relay ⇄ service ⇄ this agent")
	t0 := time.Now()
	ch, err := e.startChain(ctx, chainOptions{headless: !headed, userDataDir: filepath.Join(dir, "profile"), quiet: true})
	if err != nil {
		return err
	}
	defer ch.stop()
	step("browser connected", fmt.Sprintf("%s via extension %s", ch.browser.ID, ch.browser.ExtensionID), time.Since(t0))

	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, ch.addr, ch.token, client.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	step("agent connected", "ws://"+ch.addr+"/rpc with the bearer token", 0)

	var opened protocol.TabResult
	t := time.Now()
	if err := c.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: pageURL}, &opened); err != nil {
		return err
	}
	tab := protocol.Target{Tab: opened.Tab.ID}
	if err := waitReady(ctx, c, tab); err != nil {
		return err
	}
	step("tab opened and loaded", fmt.Sprintf("tab %d %s", opened.Tab.ID, pageURL), time.Since(t))

	eval := func(expr string) (json.RawMessage, time.Duration, error) {
		var res struct {
			Result struct {
				Value json.RawMessage `json:"value"`
			} `json:"result"`
			ExceptionDetails json.RawMessage `json:"exceptionDetails"`
		}
		t := time.Now()
		params, _ := json.Marshal(map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
		err := c.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "Runtime.evaluate", Params: params}, &res)
		if err == nil && len(res.ExceptionDetails) > 0 {
			err = fmt.Errorf("evaluate %q: page threw: %s", expr, res.ExceptionDetails)
		}
		return res.Result.Value, time.Since(t), err
	}
	v, d, err := eval("document.title")
	if err != nil {
		return err
	}
	step("Runtime.evaluate", "document.title = "+string(v), d)

	var doc struct {
		Root json.RawMessage `json:"root"`
	}
	t = time.Now()
	if err := c.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "DOM.getDocument", Params: json.RawMessage(`{"depth":-1}`)}, &doc); err != nil {
		return err
	}
	step("DOM.getDocument", fmt.Sprintf("%d bytes of DOM tree", len(doc.Root)), time.Since(t))

	var snap protocol.SnapshotResult
	t = time.Now()
	if err := c.Call(ctx, protocol.MethodSnapshot, protocol.SnapshotParams{Target: tab, Interactive: true}, &snap); err != nil {
		return err
	}
	step("snapshot -i", fmt.Sprintf("%d refs, %d characters", snap.Stats.Refs, snap.Stats.Chars), time.Since(t))
	for _, line := range strings.Split(strings.TrimRight(snap.Text, "\n"), "\n") {
		fmt.Fprintf(e.stdout, "      │ %s\n", line)
	}

	var sub protocol.CDPSubscribeResult
	if err := c.Call(ctx, protocol.MethodCDPSubscribe, protocol.CDPSubscribeParams{Target: tab, Methods: []string{"Runtime.consoleAPICalled"}}, &sub); err != nil {
		return err
	}
	if err := c.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "Runtime.enable"}, nil); err != nil {
		return err
	}
	var acted protocol.ActionResult
	if err := c.Call(ctx, protocol.MethodFill, protocol.FillParams{Target: tab, Element: "label=Name", Text: "agent"}, &acted); err != nil {
		return err
	}
	step("fill label=Name", "agent", time.Duration(acted.TookMs*float64(time.Millisecond)))
	ref := refOf(snap.Text, "Say hello")
	if err := c.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: tab, Element: ref}, &acted); err != nil {
		return err
	}
	step("click "+ref, fmt.Sprintf("%s at (%.0f, %.0f)", acted.Element, acted.Point.X, acted.Point.Y), time.Duration(acted.TookMs*float64(time.Millisecond)))
	t = time.Now()
	got, err := waitConsole(ctx, c, "greeted agent")
	if err != nil {
		return err
	}
	step("event subscription", "Runtime.consoleAPICalled: "+got, time.Since(t))
	v, _, err = eval("document.getElementById('out').textContent")
	if err != nil {
		return err
	}
	step("page changed", "#out = "+string(v), 0)

	var ping protocol.PingResult
	c.Call(ctx, protocol.MethodPing, nil, &ping)
	fmt.Fprintf(e.stdout, "demo passed in %s: every call above crossed the real extension, native messaging and the relay.\n", round(time.Since(t0)))
	return nil
}

// refOf returns the ref ("@N") of the snapshot line that names name.
func refOf(text, name string) string {
	for _, line := range strings.Split(text, "\n") {
		if i := strings.LastIndex(line, " @"); i >= 0 && strings.Contains(line, strconv.Quote(name)) {
			return strings.TrimSpace(line[i:])
		}
	}
	return "text=" + name
}

// waitReady polls until the tab's document has loaded.
func waitReady(ctx context.Context, c *client.Client, tab protocol.Target) error {
	params := json.RawMessage(`{"expression":"document.readyState === 'complete' && location.href !== 'about:blank'","returnByValue":true}`)
	for {
		var res struct {
			Result struct {
				Value bool `json:"value"`
			} `json:"result"`
		}
		err := c.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "Runtime.evaluate", Params: params}, &res)
		if err == nil && res.Result.Value {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the page to load: %w (last error: %v)", ctx.Err(), err)
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// waitConsole waits for a console message whose first argument is want.
func waitConsole(ctx context.Context, c *client.Client, want string) (string, error) {
	for {
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("wait for console %q: %w", want, ctx.Err())
		case m, ok := <-c.Notifications():
			if !ok {
				return "", fmt.Errorf("wait for console %q: connection closed", want)
			}
			if m.Method != protocol.NotifyCDPEvent {
				continue
			}
			var ev protocol.CDPEvent
			if json.Unmarshal(m.Params, &ev) != nil {
				continue
			}
			var p struct {
				Args []struct {
					Value any `json:"value"`
				} `json:"args"`
			}
			if json.Unmarshal(ev.Params, &p) == nil && len(p.Args) > 0 && p.Args[0].Value == want {
				return fmt.Sprint(p.Args[0].Value), nil
			}
		}
	}
}

func round(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(10 * time.Millisecond)
	case d > time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
