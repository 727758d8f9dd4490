//go:build !unix

package hostexec

import (
	"errors"
	"os"
	"os/exec"
)

func execHost(path string, argv, env []string) (int, bool, error) {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), true, nil
	}
	if err != nil {
		return 0, false, err
	}
	return 0, true, nil
}
