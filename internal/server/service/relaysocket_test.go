package service

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/egohost/egohost/internal/peercred"
	"github.com/egohost/egohost/internal/testkit/sockdir"
)

// README "Security": "the relay socket is 0600 in a 0700 folder", even
// when its folder existed already, open to others.
func TestRelaySocketIsOwnerOnly(t *testing.T) {
	needsUnixOwnership(t)
	dir := sockdir.New(t)
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(run, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	f := newFixtureAt(t, dir, func(o *Options) { o.Socket = filepath.Join(run, "relay.sock") }, nil)
	sock, err := os.Lstat(f.s.opts.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if sock.Mode().Type() != fs.ModeSocket || sock.Mode().Perm() != 0o600 {
		t.Errorf("relay socket: mode %v, want a socket with 0600", sock.Mode())
	}
	folder, err := os.Stat(run)
	if err != nil {
		t.Fatal(err)
	}
	if folder.Mode().Perm() != 0o700 {
		t.Errorf("relay socket's folder: mode %v, want 0700", folder.Mode().Perm())
	}
}

// unixPair returns the service's end of a connected unix socket.
func unixPair(t *testing.T) net.Conn {
	t.Helper()
	dir := sockdir.New(t)
	ln, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	return server
}

// PROTOCOL.md §2.5: "The service checks that the peer runs as the same
// user (SO_PEERCRED on Linux)". No second user is at hand in a test, so
// another user is a uidOf that says so.
func TestCheckPeer(t *testing.T) {
	needsUnixOwnership(t)
	me := uint32(os.Getuid())
	for _, tc := range []struct {
		name  string
		uidOf func(int) (uint32, error)
		want  string // "" accepted, else part of the error
	}{
		{"the kernel's answer: this user", peercred.Kernel, ""},
		{"this user", func(int) (uint32, error) { return me, nil }, ""},
		{"another user", func(int) (uint32, error) { return me + 1, nil }, "is not this user"},
		{"root, to a user who is not", func(int) (uint32, error) { return 0, nil }, "is not this user"},
		{"no answer", func(int) (uint32, error) { return 0, errors.New("no credentials") }, "peer credentials: no credentials"},
	} {
		if tc.name == "root, to a user who is not" && me == 0 {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			err := peercred.Check(unixPair(t), tc.uidOf)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want accepted", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// needsUnixOwnership skips where a socket's file modes and its peer's
// uid mean nothing (Windows). A runtime test rather than a build tag, so
// that this package builds the same files on every OS and the other OSes'
// vet in scripts/test.sh can leave it out (per_os_test.go).
func needsUnixOwnership(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("owner-only sockets and peer uids are checked on Linux and macOS")
	}
}
