//go:build !unix

package sockbuf

import "syscall"

// setReceiveBuffer leaves the buffer as it is (no unix setsockopt here).
func setReceiveBuffer(_ syscall.RawConn, _ int) error { return nil }
