// Package e2e tests the whole chain for real: Debian Chromium with the real
// extension, Chrome's native messaging starting the real egohost binary in
// relay mode, the real service in its own process, and agents over the
// real WebSocket. Nothing is faked here.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/extension"
	"github.com/egohost/egohost/internal/setup/browser"
	"github.com/egohost/egohost/internal/setup/launcher"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/cdpdirect"
	"github.com/egohost/egohost/protocol"
)

// hostBinary is the egohost binary built once for the package's tests.
type suite struct {
	bin     string // built egohost binary (the CLI: it runs host for the rest)
	host    string // built egohost-host binary, beside bin (what Chrome runs)
	browser string // browser binary ("" when missing)
	shared  sharedChains
}

// builtBinaries names a folder with egohost and egohost-host built for
// these tests (with -race when they are), which TestMain then uses as they
// are: scripts/test.sh builds them once for the two processes it runs e2e
// in. Unset, TestMain builds them.
const builtBinaries = "EGOHOST_E2E_BIN"

func newSuite() (*suite, func(), error) {
	if dir := os.Getenv(builtBinaries); dir != "" {
		s := &suite{bin: filepath.Join(dir, "egohost"), host: filepath.Join(dir, "egohost-host")}
		if runtime.GOOS == "windows" {
			s.bin, s.host = s.bin+".exe", s.host+".exe"
		}
		for _, f := range []string{s.bin, s.host} {
			if _, err := os.Stat(f); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", builtBinaries, err)
			}
		}
		s.browser, _ = browsertest.FindBinary()
		return s, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "egohost-e2e-bin-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	bin, host := filepath.Join(dir, "egohost"), filepath.Join(dir, "egohost-host")
	if runtime.GOOS == "windows" {
		bin, host = bin+".exe", host+".exe"
	}
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	if raceDetector {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "github.com/egohost/egohost/cmd/egohost", "github.com/egohost/egohost/cmd/egohost-host")...)
	if !raceDetector {
		// As README's install builds them (-race needs cgo): what
		// BenchmarkCLICost measures is what people run.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("build egohost: %w", err)
	}
	s := &suite{bin: bin, host: host}
	s.browser, _ = browsertest.FindBinary()
	return s, cleanup, nil
}

var theSuite *suite // set by TestMain; read-only afterwards

func TestMain(m *testing.M) {
	if raceDetector {
		// A race-built process sleeps a second before it exits, to catch
		// races of goroutines still running then (the race runtime's
		// atexit_sleep_ms). The tests start hundreds of them (every CLI
		// call, every relay): without the sleep, minutes less in CI. The
		// races they would catch at exit show up while the chain runs.
		if !strings.Contains(os.Getenv("GORACE"), "atexit_sleep_ms") {
			os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
		}
	}
	s, cleanup, err := newSuite()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	theSuite = s
	code := m.Run()
	if races := s.shared.close(); races != "" {
		fmt.Fprintf(os.Stderr, "FAIL: the shared chain's service or relay reported a data race:\n%s\n", races)
		code = 1
	}
	cleanup()
	os.Exit(code)
}

// svc is an `egohost serve` process with its own state dir.
type svc struct {
	t        testing.TB
	stateDir string
	cmd      *exec.Cmd
	addr     string
	token    string
	logs     *logBuffer
	done     chan struct{}
}

// logBuffer collects a process's stderr for failure messages.
type logBuffer struct {
	mu    sync.Mutex
	lines []string
}

func (l *logBuffer) add(s string) {
	l.mu.Lock()
	l.lines = append(l.lines, s)
	l.mu.Unlock()
}

// Write collects whole lines.
func (l *logBuffer) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l.add(line)
	}
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func (l *logBuffer) contains(s string) bool {
	return strings.Contains(l.String(), s)
}

// mark is where the log is now, for containsAfter: a test on a shared
// chain looks only at the lines its own calls wrote.
func (l *logBuffer) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// containsAfter says whether a line written after mark contains s.
func (l *logBuffer) containsAfter(mark int, s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.ContainsFunc(l.lines[min(mark, len(l.lines)):], func(line string) bool { return strings.Contains(line, s) })
}

// env returns the environment that points egohost (service and relay) at stateDir.
func chainEnv(stateDir string) []string {
	config := "" // never a user's config file; a test's own in the state dir
	if f := filepath.Join(stateDir, "config.yaml"); fileExists(f) {
		config = f
	}
	return append(os.Environ(),
		"EGOHOST_STATE_DIR="+stateDir,
		"EGOHOST_LISTEN=127.0.0.1:0",
		"EGOHOST_LOG_LEVEL=debug",
		"EGOHOST_CONFIG="+config,
		"EGOHOST_AGENT_TOKEN_FILE=", // the owner's CLI unless a test says otherwise
	)
}

// runEgohost runs the egohost binary with env and stdin (nil: none): its
// output, and its exit code (-1 when it did not run; why is in stderr).
func runEgohost(env []string, stdin io.Reader, args ...string) (stdout, stderr string, code int) {
	cmd := exec.Command(theSuite.bin, args...)
	cmd.Env = env
	cmd.Stdin = stdin
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
		errb.WriteString(err.Error())
	}
	return out.String(), errb.String(), code
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func startService(t testing.TB, stateDir string) *svc {
	t.Helper()
	var s *svc
	s = startServiceUntil(t, stateDir, func(stop func()) {
		t.Cleanup(func() {
			stop()
			if s != nil {
				checkRaces(t, "the service", s.logs)
			}
		})
	})
	return s
}

// checkRaces fails t when a process built with -race (see race_test.go)
// reported a data race in its log.
func checkRaces(t testing.TB, who string, log *logBuffer) {
	t.Helper()
	if r := raceReport(log); r != "" {
		t.Errorf("%s reported a data race:\n%s", who, r)
	}
}

// raceReport returns the race detector's reports in log, or "".
func raceReport(log *logBuffer) string {
	text := log.String()
	i := strings.Index(text, "WARNING: DATA RACE")
	if i < 0 {
		return ""
	}
	return text[i:]
}

// startServiceUntil is startService with its stop handed to onEnd (a shared
// chain's service outlives the test that started it).
func startServiceUntil(t testing.TB, stateDir string, onEnd func(func())) *svc {
	t.Helper()
	s := &svc{t: t, stateDir: stateDir, logs: &logBuffer{}, done: make(chan struct{})}
	os.Remove(filepath.Join(stateDir, client.StateFile))
	s.cmd = exec.Command(theSuite.bin, "serve")
	s.cmd.Env = chainEnv(stateDir)
	pr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start service: %v", err)
	}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			s.logs.add(sc.Text())
		}
	}()
	go func() { s.cmd.Wait(); close(s.done) }()
	onEnd(s.stop)
	deadline := time.Now().Add(15 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(stateDir, client.StateFile))
		var st client.State
		if err == nil && json.Unmarshal(b, &st) == nil && st.Addr != "" && st.PID == s.cmd.Process.Pid {
			s.addr = st.Addr
			break
		}
		select {
		case <-s.done:
			t.Fatalf("service exited at start:\n%s", s.logs)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("service did not start in 15 s:\n%s", s.logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.token, err = client.ReadToken(filepath.Join(stateDir, "token"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *svc) stop() {
	if s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Signal(os.Interrupt)
	killAfter(s.cmd.Process, s.done, 5*time.Second)
}

// killAfter waits for a process asked to end to have ended (done closed)
// and kills it if it has not within grace.
func killAfter(p *os.Process, done <-chan struct{}, grace time.Duration) {
	select {
	case <-done:
	case <-time.After(grace):
		p.Kill()
		<-done
	}
}

// dial connects an agent to the service.
func (s *svc) dial(t testing.TB) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, s.addr, s.token, client.Options{})
	if err != nil {
		t.Fatalf("dial service: %v\nservice log:\n%s", err, s.logs)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// chain is a service plus a browser whose extension is linked to it.
type chain struct {
	svc    *svc
	proc   *browser.Process
	direct *cdpdirect.Conn // direct DevTools connection to the same browser (oracle, baseline)
	agent  *client.Client
	stderr *logBuffer
	since  time.Time // when the test's view of a shared chain began (audit lines since then are its own)
	files  string    // a shared chain's folder for files, outside its state dir (sharedFiles); "" for a chain of a test's own
}

// requireBrowser returns the browser binary; it fails when CI=true and
// none is installed, and skips otherwise.
func requireBrowser(t testing.TB) string {
	t.Helper()
	return browsertest.Binary(t)
}

// startChain starts a service and a headless browser with the extension and
// waits until the browser's link is up.
func startChain(t testing.TB) *chain {
	t.Helper()
	return startChainIn(t, t.TempDir())
}

// startChainIn is startChain on a state dir the test prepared (a
// config.yaml there is the service's config file).
func startChainIn(t testing.TB, stateDir string) *chain {
	t.Helper()
	var relayLog, serviceLog *logBuffer
	t.Cleanup(func() { // runs after the parts' ends, registered below
		if relayLog != nil {
			checkRaces(t, "the relay", relayLog) // the relay writes to the browser's stderr
			checkRaces(t, "the service", serviceLog)
		}
	})
	c := startChainUntil(t, stateDir, t.Cleanup)
	relayLog, serviceLog = c.stderr, c.svc.logs
	return c
}

// startChainUntil is startChainIn with the ends of the service, the browser
// and the direct connection handed to onEnd; the agent is the test's.
func startChainUntil(t testing.TB, stateDir string, onEnd func(func())) *chain {
	t.Helper()
	bin := requireBrowser(t)
	c := &chain{svc: startServiceUntil(t, stateDir, onEnd), stderr: &logBuffer{}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	proc, err := launcher.Launch(ctx, launcher.Options{
		Browser:      bin,
		Host:         theSuite.host,
		HostName:     "com.egohost.host",
		ExtensionIDs: []string{extension.ID},
		ExtensionDir: filepath.Join(stateDir, "extension"),
		Headless:     true,
		Args:         browsertest.Flags(),
		Env:          chainEnv(stateDir),
		Stderr:       c.stderr,
		// The oracle and the baselines talk to the browser directly.
		DevToolsPortForTests: true,
	})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	c.proc = proc
	onEnd(func() { proc.Close() })
	url, err := proc.DevToolsURL(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c.direct, err = cdpdirect.Dial(ctx, url); err != nil {
		t.Fatal(err)
	}
	direct := c.direct
	onEnd(func() { direct.Close() })
	c.agent = c.svc.dial(t)
	c.waitLink(t)
	return c
}

// waitLink waits until a browser with the extension is connected.
func (c *chain) waitLink(t testing.TB) protocol.Browser {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		var bl protocol.BrowsersListResult
		err := c.agent.Call(ctx, protocol.MethodBrowsersList, nil, &bl)
		if err == nil {
			for _, b := range bl.Browsers {
				if b.ExtensionID == extension.ID {
					return b
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no browser link after 30 s (last error %v)\nservice log:\n%s\nbrowser stderr:\n%s", err, c.svc.logs, c.stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// openTab opens url in a new tab through the chain and waits for it to load.
func (c *chain) openTab(t testing.TB, url string) protocol.Target {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var r protocol.TabResult
	if err := c.agent.Call(ctx, protocol.MethodTabsOpen, protocol.TabsOpenParams{URL: url}, &r); err != nil {
		t.Fatalf("tabs.open: %v", err)
	}
	tab := protocol.Target{Tab: r.Tab.ID}
	for {
		v, err := c.eval(ctx, tab, "document.readyState === 'complete' && location.href !== 'about:blank'")
		if err == nil && string(v) == "true" {
			return tab
		}
		if ctx.Err() != nil {
			t.Fatalf("tab %d never loaded %s: %v", r.Tab.ID, url, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// eval runs Runtime.evaluate through the chain and returns the value's JSON.
func (c *chain) eval(ctx context.Context, tab protocol.Target, expr string) (json.RawMessage, error) {
	return evalWith(ctx, c.agent, tab, expr)
}

// evalReply is Runtime.evaluate's answer as the tests read it.
type evalReply struct {
	Result struct {
		Value json.RawMessage `json:"value"`
	} `json:"result"`
	ExceptionDetails *struct {
		Text      string `json:"text"`
		Exception *struct {
			Description string `json:"description"`
		} `json:"exception"`
	} `json:"exceptionDetails"`
}

func evalWith(ctx context.Context, agent *client.Client, tab protocol.Target, expr string) (json.RawMessage, error) {
	params, _ := json.Marshal(map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true})
	var res evalReply
	if err := agent.Call(ctx, protocol.MethodCDPSend, protocol.CDPSendParams{Target: tab, Method: "Runtime.evaluate", Params: params}, &res); err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("page threw: %s", res.ExceptionDetails.Text)
	}
	return res.Result.Value, nil
}

// serveHandler serves h on 127.0.0.1 for one test.
func serveHandler(t testing.TB, h http.Handler) string {
	return browsertest.Serve(t, h)
}

// serve serves pages on 127.0.0.1 for one test.
func serve(t testing.TB, pages map[string]string) string {
	return browsertest.Serve(t, browsertest.Pages(pages))
}
