package pairing

import "net/netip"

func lookupPeer(addr netip.AddrPort) (*Process, error) { return findProcess("/proc", addr) }
