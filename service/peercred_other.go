//go:build !linux && !darwin

package service

import (
	"errors"
	"net"
)

// checkPeer relies on the socket's owner-only permissions on this OS.
func checkPeer(net.Conn, func(fd int) (uint32, error)) error { return nil }

// peerUID is never asked on this OS (checkPeer does not ask).
func peerUID(int) (uint32, error) { return 0, errors.ErrUnsupported }
