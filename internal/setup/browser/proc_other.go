//go:build !unix

package browser

import "os/exec"

func setProcessGroup(*exec.Cmd) {}

func terminateGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func killGroup(cmd *exec.Cmd) { terminateGroup(cmd) }

func killMarked(string) {}

// processAlive cannot tell here; the browser says so itself.
func processAlive(int) bool { return false }

func hasMark(int, string) (has, known bool) { return false, false }
