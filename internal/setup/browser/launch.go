package browser

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MarkEnv is the environment variable that carries a launch's mark. Every
// process the browser starts inherits it, so Close can find the ones that
// leave the process group (Chromium's crashpad handlers do).
const MarkEnv = "EGOHOST_RUN_MARK"

// Options says how to launch a browser.
type Options struct {
	Binary      string   // absolute path of the browser binary
	UserDataDir string   // profile folder; empty: a fresh temporary one, removed by Close
	Headless    bool     // --headless=new
	Extension   string   // absolute path of an unpacked extension to load
	URL         string   // first page; empty: about:blank
	Args        []string // extra flags
	Env         []string // environment; nil: this process's
	Stderr      io.Writer
	// Prepare runs after the profile folder exists and before the browser
	// starts (e.g. to write a native messaging host manifest into it).
	Prepare func(userDataDir string) error
	// DevToolsPortForTests opens Chrome's DevTools port
	// (--remote-debugging-port=0), which lets any local process drive the
	// browser without egohost's token. For tests that need a direct
	// DevTools connection only: Launch refuses it unless UserDataDir is
	// empty (a fresh temporary profile) or inside the temporary directory
	// (a test's kept profile), so it never opens on a user's profile.
	// egohost launch never sets it.
	DevToolsPortForTests bool
}

// Process is a running browser.
type Process struct {
	cmd         *exec.Cmd
	userDataDir string
	removeDir   bool
	devTools    bool // launched with DevToolsPortForTests
	mark        string
	done        chan struct{}
	waitErr     error
	closeOnce   sync.Once
	closeErr    error
}

// Flags returns the command-line flags for opts, without the binary.
func Flags(opts Options, userDataDir string) []string {
	args := []string{
		"--user-data-dir=" + userDataDir,
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-quic",
		"--window-size=1280,800",
	}
	if opts.DevToolsPortForTests {
		args = append(args, "--remote-debugging-port=0")
	}
	extra := opts.Args
	if opts.Headless {
		args = append(args, "--headless=new", "--disable-gpu")
		extra = disableFeatures(extra, headlessUnseen...)
	}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox", "--test-type")
	}
	if opts.Extension != "" {
		args = append(args, "--load-extension="+opts.Extension)
	}
	args = append(args, extra...)
	url := opts.URL
	if url == "" {
		url = "about:blank"
	}
	return append(args, url)
}

// headlessUnseen are the features a headless browser has no use for: the
// omnibox's popups are web pages (WebUI) that Chromium 156 loads into a
// renderer of their own at every start, to have them ready when the
// address bar is typed in. No one types in a headless browser's address
// bar, and they were half of a start's CPU (5.1 s → 2.6 s for the whole
// browser on a 2-core machine, measured 2 Dec 2026; docs/testing.md).
var headlessUnseen = []string{"WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup"}

// disableFeatures returns args with features added to its
// --disable-features flag, or with one such flag appended. Chromium reads
// only the last --disable-features it is given, so a caller's own list is
// merged into, never shadowed by, ours.
func disableFeatures(args []string, features ...string) []string {
	const flag = "--disable-features="
	out := make([]string, 0, len(args)+1)
	var merged []string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, flag); ok {
			if v != "" {
				merged = append(merged, strings.Split(v, ",")...)
			}
			continue
		}
		out = append(out, a)
	}
	return append(out, flag+strings.Join(append(merged, features...), ","))
}

// Launch starts the browser. The caller must Close the returned Process.
func Launch(ctx context.Context, opts Options) (*Process, error) {
	if opts.Binary == "" {
		return nil, errors.New("launch browser: no binary")
	}
	if opts.DevToolsPortForTests && opts.UserDataDir != "" && !inTempDir(opts.UserDataDir) {
		return nil, errors.New("launch browser: DevToolsPortForTests opens an unauthenticated DevTools port: it is only for a test profile in the temporary directory, not " + opts.UserDataDir)
	}
	for _, a := range opts.Args {
		if strings.HasPrefix(a, "--remote-debugging-") {
			return nil, fmt.Errorf("launch browser: refusing %s: egohost never opens a DevTools port on a profile (tests use DevToolsPortForTests)", a)
		}
	}
	p := &Process{userDataDir: opts.UserDataDir, devTools: opts.DevToolsPortForTests, done: make(chan struct{})}
	if p.userDataDir == "" {
		dir, err := os.MkdirTemp("", "egohost-profile-")
		if err != nil {
			return nil, fmt.Errorf("launch browser: %w", err)
		}
		p.userDataDir, p.removeDir = dir, true
	}
	if opts.Extension != "" && !filepath.IsAbs(opts.Extension) {
		p.cleanupDir()
		return nil, fmt.Errorf("launch browser: extension path %q is not absolute", opts.Extension)
	}
	// A profile a running browser holds is left alone: Chromium would hand
	// our URL to that browser (without the extension) and exit, and every
	// file written here would change the running browser's profile.
	if !p.removeDir {
		if owner, inUse := profileOwner(p.userDataDir); inUse {
			return nil, &ProfileInUseError{Dir: p.userDataDir, Owner: owner}
		}
	}
	if opts.Prepare != nil {
		if err := opts.Prepare(p.userDataDir); err != nil {
			p.cleanupDir()
			return nil, fmt.Errorf("launch browser: prepare profile: %w", err)
		}
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	p.mark = hex.EncodeToString(b[:])
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(append([]string(nil), env...), MarkEnv+"="+p.mark)

	p.cmd = exec.Command(opts.Binary, Flags(opts, p.userDataDir)...)
	p.cmd.Env = env
	// Our own pipe, not exec's copying goroutine: Chromium's helpers that
	// leave the process group keep stderr open, and Wait would wait for them.
	var pw *os.File
	if opts.Stderr != nil {
		pr, w, err := os.Pipe()
		if err != nil {
			p.cleanupDir()
			return nil, fmt.Errorf("launch browser: %w", err)
		}
		pw = w
		p.cmd.Stderr = pw
		go func() {
			io.Copy(opts.Stderr, pr)
			pr.Close()
		}()
	}
	setProcessGroup(p.cmd)
	err := p.cmd.Start()
	if pw != nil {
		pw.Close()
	}
	if err != nil {
		p.cleanupDir()
		return nil, fmt.Errorf("launch browser %s: %w", opts.Binary, err)
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// ProfileInUseError is a profile that a running browser holds (its
// SingletonLock names a live process on this machine).
type ProfileInUseError struct {
	Dir   string
	Owner string // the lock's "host-pid"
}

func (e *ProfileInUseError) Error() string {
	return fmt.Sprintf("launch browser: the profile %s is in use by another browser (process %s): close that browser, or use another profile (--user-data-dir)", e.Dir, e.Owner)
}

// profileOwner reports whether a live process on this machine holds the
// profile's SingletonLock (a symlink to "host-pid", on Linux and macOS).
func profileOwner(dir string) (string, bool) {
	target, err := os.Readlink(filepath.Join(dir, "SingletonLock"))
	if err != nil {
		return "", false
	}
	i := strings.LastIndexByte(target, '-')
	if i < 0 {
		return "", false
	}
	host, _ := os.Hostname()
	pid, err := strconv.Atoi(target[i+1:])
	if err != nil || target[:i] != host || !processAlive(pid) {
		return "", false // stale, or another machine's: Chromium says so itself
	}
	return target, true
}

// Started reports whether the process pid was started by this browser
// (it carries the launch's mark); known is false where that cannot be
// told (no /proc).
func (p *Process) Started(pid int) (started, known bool) {
	return hasMark(pid, MarkEnv+"="+p.mark)
}

// Err is how the browser's main process ended, once Done is closed.
func (p *Process) Err() error {
	select {
	case <-p.done:
		return p.waitErr
	default:
		return nil
	}
}

// UserDataDir returns the profile folder.
func (p *Process) UserDataDir() string { return p.userDataDir }

// Done is closed when the browser's main process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// inTempDir reports whether dir lies inside the system's temporary
// directory: the only place a profile may get a test-only DevTools port
// (a user's profile, egohost launch's among them, never lives there).
func inTempDir(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(filepath.Clean(os.TempDir()), abs)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// DevToolsURL waits for the browser to write DevToolsActivePort and returns
// the browser-level DevTools WebSocket URL. Only a browser launched with
// DevToolsPortForTests has one.
func (p *Process) DevToolsURL(ctx context.Context) (string, error) {
	if !p.devTools {
		return "", errors.New("devtools url: the browser was launched without a DevTools port (only DevToolsPortForTests opens one)")
	}
	path := filepath.Join(p.userDataDir, "DevToolsActivePort")
	for {
		if f, err := os.Open(path); err == nil {
			sc := bufio.NewScanner(f)
			var lines []string
			for sc.Scan() {
				lines = append(lines, strings.TrimSpace(sc.Text()))
			}
			f.Close()
			if len(lines) >= 2 && lines[0] != "" && lines[1] != "" {
				return "ws://127.0.0.1:" + lines[0] + lines[1], nil
			}
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("devtools url: %w", ctx.Err())
		case <-p.done:
			return "", fmt.Errorf("devtools url: browser exited: %v", p.waitErr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Close ends the browser, every process that carries its mark, and removes
// a temporary profile. It is safe to call more than once.
func (p *Process) Close() error {
	p.closeOnce.Do(func() {
		terminateGroup(p.cmd)
		select {
		case <-p.done:
		case <-time.After(3 * time.Second):
			killGroup(p.cmd)
			select {
			case <-p.done:
			case <-time.After(3 * time.Second):
				p.closeErr = errors.New("close browser: main process did not exit")
			}
		}
		killMarked(MarkEnv + "=" + p.mark)
		p.cleanupDir()
	})
	return p.closeErr
}

func (p *Process) cleanupDir() {
	if p.removeDir {
		// Chromium may still be flushing for a moment; try a few times.
		for range 5 {
			if err := os.RemoveAll(p.userDataDir); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}
