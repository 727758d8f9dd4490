package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
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
	home, stateDir := t.TempDir(), t.TempDir()
	cmd := exec.Command(theSuite.bin, "launch", "--headless")
	cmd.Env = append(chainEnv(stateDir), "HOME="+home, "EGOHOST_BROWSER="+theSuite.browser, "EGOHOST_LOG_LEVEL=warn")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &logBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	deadline := time.After(60 * time.Second)
	for connected := false; !connected; {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatalf("egohost launch ended before the browser connected\nstderr:\n%s", stderr)
			}
			connected = strings.HasPrefix(line, "browser ") && strings.Contains(line, " connected")
		case <-deadline:
			t.Fatalf("egohost launch: no browser connected within 60 s\nstderr:\n%s", stderr)
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
