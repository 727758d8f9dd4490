//go:build windows

package cli

import (
	"errors"
	"os"
	"os/exec"
)

// execHost runs path as a child with this process's streams (Windows
// cannot replace a process) and returns its exit code as errHostExited.
func execHost(path string, argv, env []string) error {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &errHostExited{code: ee.ExitCode()}
	}
	if err != nil {
		return err
	}
	return &errHostExited{code: 0}
}
