//go:build unix

package e2e

import "syscall"

// smallReceiveBuffer is a net.Dialer Control that gives the socket a 4 KiB
// receive buffer before it connects. Set after the connection, a smaller
// buffer than the window the kernel has already offered makes it drop
// what the sender sends into that window, and the sender's retransmission
// backs off for tens of seconds (the slow subscriber's connection then
// stalled for ~100 s in about half the runs).
func smallReceiveBuffer(_, _ string, c syscall.RawConn) error {
	var serr error
	if err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
	}); err != nil {
		return err
	}
	return serr
}
