package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/egohost/egohost/protocol"
)

// The CLI reaches the service on the agent socket only (PROTOCOL.md §3),
// and as an attacker would try it, through the real binaries: the socket
// replaced by a symlink (to an impostor's socket, or even to the real one)
// or by a file, and a wrong token, each fail with a clear error and send
// the impostor nothing; put back, the socket serves again.
func TestCLIAgentSocketRefusals(t *testing.T) {
	dir := t.TempDir()
	startService(t, dir)
	env := chainEnv(dir)
	sock := filepath.Join(dir, protocol.AgentSocketFile)
	run := func(args ...string) (string, int) {
		out, errOut, code := runEgohost(env, nil, args...)
		return out + errOut, code
	}
	if out, code := run("status"); code != 0 || !strings.Contains(out, "service: up") {
		t.Fatalf("status: exit %d: %s", code, out)
	}

	// An impostor's socket, which counts what reaches it.
	other := filepath.Join(t.TempDir(), "impostor.sock")
	ln, err := net.Listen("unix", other)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var reached atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			reached.Add(1)
			c.Close()
		}
	}()
	moved := filepath.Join(dir, "agent.sock.moved")
	if err := os.Rename(sock, moved); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, target string }{
		{"symlink to an impostor", other},
		{"symlink to the real socket", moved},
	} {
		if err := os.Symlink(tc.target, sock); err != nil {
			t.Fatal(err)
		}
		out, code := run("tabs")
		if code != 1 || !strings.Contains(out, "not a socket, so the token was not sent") {
			t.Errorf("%s: exit %d, %q; want exit 1 and the socket refused", tc.name, code, out)
		}
		os.Remove(sock)
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the impostor was dialed %d times", n)
	}
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, code := run("tabs"); code != 1 || !strings.Contains(out, "not a socket") {
		t.Errorf("a file: exit %d, %q; want exit 1 and the socket refused", code, out)
	}
	os.Remove(sock)

	if err := os.Rename(moved, sock); err != nil {
		t.Fatal(err)
	}
	if out, code := run("status"); code != 0 || !strings.Contains(out, "service: up") {
		t.Errorf("status with the socket back: exit %d: %s", code, out)
	}
	// A wrong token: the service cannot prove it holds it, so it is not
	// sent.
	bad := filepath.Join(t.TempDir(), "bad.token")
	os.WriteFile(bad, []byte(strings.Repeat("f", 64)), 0o600)
	out, errOut, code := runEgohost(append(env, "EGOHOST_AGENT_TOKEN_FILE="+bad), nil, "tabs")
	if code != 1 || !strings.Contains(out+errOut, "could not prove it holds our token") {
		t.Errorf("a wrong token: exit %d, %q; want exit 1 and the proof refused", code, out+errOut)
	}
}
