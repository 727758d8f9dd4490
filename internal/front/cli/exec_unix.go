//go:build !windows

package cli

import "syscall"

// execHost replaces this process with path: the full binary gets the
// terminal, the signals and the exit code as if it had been run itself.
func execHost(path string, argv, env []string) error {
	return syscall.Exec(path, argv, env)
}
