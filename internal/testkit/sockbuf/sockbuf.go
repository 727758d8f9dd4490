// Package sockbuf gives a test's socket a small receive buffer before it
// connects: a reader slower than its writer, whose window fills at once.
// The per-OS part lives here, in a leaf, so that the packages that use it
// (e2e) build alike on every OS and the vet of another OS need not compile
// them (scripts/test.sh).
package sockbuf

import "syscall"

// Small is a net.Dialer Control that gives the socket a 4 KiB receive
// buffer before it connects. Set after the connection, a smaller buffer
// than the window the kernel has already offered makes it drop what the
// sender sends into that window, and the sender's retransmission backs
// off for tens of seconds. Where there is no unix setsockopt (Windows) it
// leaves the buffer as it is: the end-to-end tests run on Linux.
func Small(_, _ string, c syscall.RawConn) error { return setReceiveBuffer(c, 4096) }
