//go:build linux || darwin

package peercred

import (
	"fmt"
	"net"
	"os"
)

// check refuses a socket peer that runs as another user; uidOf asks who
// is at the other end.
func check(conn net.Conn, uidOf func(fd int) (uint32, error)) error {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	var uid uint32
	var uerr error
	if err := raw.Control(func(fd uintptr) { uid, uerr = uidOf(int(fd)) }); err != nil {
		return fmt.Errorf("peer credentials: %w", err)
	}
	if uerr != nil {
		return fmt.Errorf("peer credentials: %w", uerr)
	}
	if int(uid) != os.Getuid() {
		return fmt.Errorf("peer uid %d is not this user (%d)", uid, os.Getuid())
	}
	return nil
}
