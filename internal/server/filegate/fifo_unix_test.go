//go:build unix

package filegate

import "syscall"

// mkfifo makes a named pipe: a file that is not a regular one.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
