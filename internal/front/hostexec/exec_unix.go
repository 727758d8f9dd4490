//go:build unix

package hostexec

import "syscall"

func execHost(path string, argv, env []string) (int, bool, error) {
	return 0, false, syscall.Exec(path, argv, env)
}
