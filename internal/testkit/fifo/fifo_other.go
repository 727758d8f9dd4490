//go:build !unix

package fifo

import "os"

func mkfifo(path string) error { return os.Mkdir(path, 0o700) }
