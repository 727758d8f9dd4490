// Package peercred asks the kernel who is at the other end of a unix
// socket, so the service can refuse a connection from another user even
// if the socket's permissions were loosened.
//
// Its exported API is declared here, in a file every OS builds; the
// per-OS files only implement it (per_os_test.go holds every package to
// that, which is what lets scripts/test.sh vet on macOS only the packages
// whose files differ from Linux's).
package peercred

import "net"

// Check returns an error when conn is a unix socket whose peer runs as
// another user than this process; uidOf asks who it is (Kernel; a test
// passes its own). Other connections, and OSes without a way to ask,
// pass (there the socket's owner-only permissions hold).
func Check(conn net.Conn, uidOf func(fd int) (uint32, error)) error { return check(conn, uidOf) }

// Kernel is the kernel's answer to who is at the other end of the unix
// socket fd (errors.ErrUnsupported on an OS without a way to ask).
func Kernel(fd int) (uint32, error) { return peerUID(fd) }
