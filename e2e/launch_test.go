package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// `egohost launch` on the user's default profile opens no DevTools port:
// no DevToolsActivePort file, no --remote-debugging flag, and no listening
// TCP socket in the browser's processes. Any local process could otherwise
// drive the logged-in profile without the token.
func TestLaunchOpensNoDevToolsPort(t *testing.T) {
	requireBrowser(t)
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	home := t.TempDir()
	l := startLaunch(t, t.TempDir(), []string{"HOME=" + home}, "--headless")
	deadline := time.After(60 * time.Second)
	for connected := false; !connected; {
		select {
		case line, ok := <-l.lines:
			if !ok {
				t.Fatalf("egohost launch ended before the browser connected\nstderr:\n%s", l.stderr)
			}
			connected = strings.HasPrefix(line, "browser ") && strings.Contains(line, " connected")
		case <-deadline:
			t.Fatalf("egohost launch: no browser connected within 60 s\nstderr:\n%s", l.stderr)
		}
	}

	profile := filepath.Join(home, ".local", "share", "egohost", "profile")
	if _, err := os.Stat(filepath.Join(profile, "DevToolsActivePort")); !os.IsNotExist(err) {
		t.Errorf("the profile has a DevToolsActivePort file (stat: %v): the browser listens for DevTools", err)
	}
	pids := processesOfProfile(t, profile)
	if len(pids) == 0 {
		t.Fatalf("found no process with --user-data-dir=%s", profile)
	}
	listening := listeningInodes(t)
	for _, pid := range pids {
		args := cmdline(pid)
		for _, a := range args {
			if strings.HasPrefix(a, "--remote-debugging") {
				t.Errorf("process %d was started with %s", pid, a)
			}
		}
		for _, ino := range socketInodes(pid) {
			if port, ok := listening[ino]; ok {
				t.Errorf("process %d (%s) listens on TCP port %d", pid, filepath.Base(args[0]), port)
			}
		}
	}
}

func cmdline(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return []string{""}
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// processesOfProfile returns the processes started with --user-data-dir=profile.
func processesOfProfile(t *testing.T, profile string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		for _, a := range cmdline(pid) {
			if a == "--user-data-dir="+profile {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// socketInodes returns the inodes of the sockets a process holds.
func socketInodes(pid int) []string {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	entries, _ := os.ReadDir(dir)
	var inodes []string
	for _, e := range entries {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if ino, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			inodes = append(inodes, strings.TrimSuffix(ino, "]"))
		}
	}
	return inodes
}

// listeningInodes maps the inode of every listening TCP socket to its port.
func listeningInodes(t *testing.T) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fields := strings.Fields(line)
			if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			local := fields[1]
			port, _ := strconv.ParseInt(local[strings.LastIndexByte(local, ':')+1:], 16, 32)
			out[fields[9]] = int(port)
		}
	}
	return out
}

// launchCmd is `egohost launch ARGS…` against the service in stateDir (if
// one runs there), headless unless args say otherwise.
type launchCmd struct {
	cmd    *exec.Cmd
	stderr *logBuffer
	lines  chan string
	exited chan struct{}
}

func startLaunch(t *testing.T, stateDir string, env []string, args ...string) *launchCmd {
	t.Helper()
	l := &launchCmd{stderr: &logBuffer{}, lines: make(chan string, 16), exited: make(chan struct{})}
	l.cmd = exec.Command(theSuite.bin, append([]string{"launch"}, args...)...)
	l.cmd.Env = append(append(chainEnv(stateDir), "EGOHOST_BROWSER="+theSuite.browser, "EGOHOST_LOG_LEVEL=warn"), env...)
	// Not StdoutPipe: Wait closes that pipe when the process ends, and a
	// line written just before the exit could be lost before it is read.
	stdout, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	l.cmd.Stdout = w
	l.cmd.Stderr = l.stderr
	err = l.cmd.Start()
	w.Close()
	if err != nil {
		stdout.Close()
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			l.lines <- sc.Text()
		}
		close(l.lines)
		stdout.Close()
	}()
	go func() { l.cmd.Wait(); close(l.exited) }()
	t.Cleanup(func() {
		l.cmd.Process.Signal(os.Interrupt)
		killAfter(l.cmd.Process, l.exited, 15*time.Second)
	})
	return l
}

// firstLine returns launch's first line on stdout, or "" if it ended first.
func (l *launchCmd) firstLine(t *testing.T) string {
	t.Helper()
	select {
	case line := <-l.lines:
		return line
	case <-time.After(60 * time.Second):
		t.Fatalf("egohost launch: nothing on stdout within 60 s\nstderr:\n%s", l.stderr)
	}
	return ""
}

// exitCode waits for launch to end and returns its exit code.
func (l *launchCmd) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-l.exited:
		return l.cmd.ProcessState.ExitCode()
	case <-time.After(60 * time.Second):
		t.Fatalf("egohost launch did not end within 60 s\nstderr:\n%s", l.stderr)
	}
	return -1
}

// With a service and a browser already linked, `egohost launch` reports
// the browser it started, not the one that was there first.
func TestLaunchReportsTheNewBrowser(t *testing.T) {
	c := startChain(t)
	first := c.waitLink(t)
	l := startLaunch(t, c.svc.stateDir, nil, "--headless", "--user-data-dir", t.TempDir())
	line := l.firstLine(t)
	id, ok := strings.CutPrefix(line, "browser ")
	id, _, _ = strings.Cut(id, " ")
	if !ok || !strings.Contains(line, " connected") {
		t.Fatalf("launch said %q, want browser ID connected\nstderr:\n%s", line, l.stderr)
	}
	if id == first.ID {
		t.Errorf("launch reported %s, the browser that was already connected", id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var bl protocol.BrowsersListResult
	if err := c.agent.Call(ctx, protocol.MethodBrowsersList, nil, &bl); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, b := range bl.Browsers {
		ids = append(ids, b.ID)
	}
	if len(ids) != 2 || !slices.Contains(ids, id) {
		t.Errorf("browsers.list: got %v, want %s and %s", ids, first.ID, id)
	}
}

// A profile a running browser holds: launch fails at once with the reason
// (exit 1, JSON with --json) and leaves that browser's files alone.
func TestLaunchRefusesAProfileInUse(t *testing.T) {
	bin := requireBrowser(t)
	if runtime.GOOS != "linux" {
		t.Skip("SingletonLock is a symlink on Linux and macOS; this test reads /proc")
	}
	// Not t.TempDir: the other browser's helper processes may still be
	// writing into the profile for a moment after it is killed.
	profile, err := os.MkdirTemp("", "egohost-inuse-")
	if err != nil {
		t.Fatal(err)
	}
	// The user's own browser, not egohost's, with its DevTools port file.
	other := exec.Command(bin, "--headless=new", "--no-sandbox", "--user-data-dir="+profile, "--remote-debugging-port=0", "about:blank")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		other.Process.Kill()
		other.Wait()
		removeWithin(t, profile, 10*time.Second)
	})
	port := filepath.Join(profile, "DevToolsActivePort")
	deadline := time.Now().Add(30 * time.Second)
	var before []byte
	for {
		b, err := os.ReadFile(port)
		if _, lerr := os.Readlink(filepath.Join(profile, "SingletonLock")); err == nil && len(b) > 0 && lerr == nil {
			before = b
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the other browser wrote no DevToolsActivePort and SingletonLock in 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}

	l := startLaunch(t, t.TempDir(), nil, "--headless", "--user-data-dir", profile)
	if code := l.exitCode(t); code != 1 || !l.stderr.contains("is in use by another browser") {
		t.Errorf("got exit %d, stderr:\n%s\nwant exit 1 and the profile in use", code, l.stderr)
	}
	l = startLaunch(t, t.TempDir(), nil, "--headless", "--json", "--user-data-dir", profile)
	var out struct {
		Error struct {
			Code int    `json:"code"`
			Name string `json:"name"`
		} `json:"error"`
	}
	line := l.firstLine(t)
	if err := json.Unmarshal([]byte(line), &out); err != nil || out.Error.Name != "launch_failed" || out.Error.Code != 1203 {
		t.Errorf("--json: got %q (%v), want a launch_failed error", line, err)
	}
	if code := l.exitCode(t); code != 1 {
		t.Errorf("--json: got exit %d, want 1", code)
	}
	if after, err := os.ReadFile(port); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the running browser's DevToolsActivePort: got %q, %v; want it untouched (%q)", after, err, before)
	}
	if _, err := os.Stat(filepath.Join(profile, "NativeMessagingHosts", "com.egohost.host.json")); !os.IsNotExist(err) {
		t.Errorf("launch wrote its host manifest into the running browser's profile (stat: %v)", err)
	}
}

// A browser that exits before its extension connects (here: no display
// for a window) fails launch with Chromium's own reason, and none of
// Chromium's noise.
func TestLaunchReportsEarlyExit(t *testing.T) {
	requireBrowser(t)
	if runtime.GOOS != "linux" {
		t.Skip("a missing display is a Linux failure")
	}
	l := startLaunch(t, t.TempDir(), []string{"DISPLAY=", "WAYLAND_DISPLAY="}, "--user-data-dir", t.TempDir())
	code := l.exitCode(t)
	if code != 1 || !l.stderr.contains("exited before its extension connected") || !l.stderr.contains("Missing X server or $DISPLAY") {
		t.Errorf("got exit %d, stderr:\n%s\nwant exit 1, the early exit and Chromium's reason", code, l.stderr)
	}
	if l.stderr.contains("Failed to connect to the bus") {
		t.Errorf("Chromium's noise reached the terminal without --verbose:\n%s", l.stderr)
	}
}

// removeWithin removes dir, retrying while processes that are ending still
// write into it, for up to d.
func removeWithin(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := os.RemoveAll(dir)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Logf("remove %s: %v", dir, err)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}
