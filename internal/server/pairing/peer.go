package pairing

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// findProcess finds, under a /proc tree at root, the process holding the
// TCP socket whose local end is addr (the far end of a loopback
// connection the service accepted): its inode and owner in
// net/tcp(6), then the process whose fd table has that socket.
func findProcess(root string, addr netip.AddrPort) (*Process, error) {
	var inode string
	uid := -1
	for _, name := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join(root, "net", name))
		if err != nil {
			continue
		}
		inode, uid, err = socketInode(f, addr)
		f.Close()
		if err == nil && inode != "" {
			break
		}
	}
	if inode == "" {
		return nil, fmt.Errorf("find peer %s: no such socket", addr)
	}
	p := &Process{UID: uid}
	dirs, err := os.ReadDir(root)
	if err != nil {
		return p, fmt.Errorf("find peer %s: %w", addr, err)
	}
	want := "socket:[" + inode + "]"
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(filepath.Join(root, d.Name(), "fd"))
		if err != nil {
			continue // another user's process, or gone
		}
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join(root, d.Name(), "fd", fd.Name())); err == nil && l == want {
				p.PID = pid
				p.Exe, _ = os.Readlink(filepath.Join(root, d.Name(), "exe"))
				return p, nil
			}
		}
	}
	return p, fmt.Errorf("find peer %s: socket %s is in no process we can see", addr, inode)
}

// socketInode reads a /proc/net/tcp or tcp6 table and returns the inode
// and uid of the socket whose local address is addr.
func socketInode(r io.Reader, addr netip.AddrPort) (inode string, uid int, err error) {
	sc := bufio.NewScanner(r)
	sc.Scan() // header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 {
			continue
		}
		local, err := parseProcAddr(f[1])
		if err != nil || local != addr {
			continue
		}
		u, err := strconv.Atoi(f[7])
		if err != nil {
			continue
		}
		return f[9], u, nil
	}
	return "", -1, sc.Err()
}

// parseProcAddr decodes "0100007F:1F90" (IPv4) or 32 hex digits + port
// (IPv6): each 32-bit word of the address in host (little-endian) order.
func parseProcAddr(s string) (netip.AddrPort, error) {
	h, p, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, fmt.Errorf("address %q: no port", s)
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("address %q: %w", s, err)
	}
	b, err := hex.DecodeString(h)
	if err != nil || (len(b) != 4 && len(b) != 16) {
		return netip.AddrPort{}, fmt.Errorf("address %q: bad host", s)
	}
	for i := 0; i < len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	a, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(a.Unmap(), uint16(port)), nil
}

// LookupPeer returns the process at the far end of a loopback TCP
// connection whose remote address is remote ("127.0.0.1:54321"), where the
// OS tells (Linux); nil elsewhere or when it cannot be found.
func LookupPeer(remote string) *Process {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		if ta, terr := net.ResolveTCPAddr("tcp", remote); terr == nil {
			ap = ta.AddrPort()
		} else {
			return nil
		}
	}
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	p, _ := lookupPeer(ap) // what was found, even when the process was not
	return p
}

// lookupPeer finds the process behind the loopback connection whose far
// end is addr. Only Linux's /proc says, for now: elsewhere it fails. A
// test of runtime.GOOS rather than a file per OS, so that this package
// compiles the same on every OS (scripts/test.sh vets other OSes' builds
// only where a package's files differ).
func lookupPeer(addr netip.AddrPort) (*Process, error) {
	if runtime.GOOS != "linux" {
		return nil, errors.New("find peer: not supported on this OS")
	}
	return findProcess("/proc", addr)
}
