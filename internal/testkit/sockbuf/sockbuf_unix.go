//go:build unix

package sockbuf

import "syscall"

// setReceiveBuffer sets the socket's SO_RCVBUF to n bytes.
func setReceiveBuffer(c syscall.RawConn, n int) error {
	var serr error
	if err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
	}); err != nil {
		return err
	}
	return serr
}
