//go:build !linux

package pairing

import (
	"errors"
	"net/netip"
)

// The process behind a TCP connection is only looked up on Linux for now.
func lookupPeer(netip.AddrPort) (*Process, error) {
	return nil, errors.New("find peer: not supported on this OS")
}
