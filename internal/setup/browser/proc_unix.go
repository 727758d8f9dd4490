//go:build unix

package browser

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
)

func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func terminateGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// processAlive reports whether a process with this ID exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

// hasMark reports whether the process's environment holds mark (Linux
// /proc); known is false when it cannot be read.
func hasMark(pid int, mark string) (has, known bool) {
	env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return false, false
	}
	return bytes.Contains(append(append([]byte{0}, env...), 0), append(append([]byte{0}, mark...), 0)), true
}

// killMarked kills every process whose environment holds mark (Linux /proc).
func killMarked(mark string) {
	self := os.Getpid()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	needle := append([]byte(mark), 0)
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil {
			continue
		}
		if bytes.Contains(append(env, 0), needle) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
