package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// freePort is a loopback TCP port free a moment ago, for a real
// application's server to listen on.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// serveApp starts cmd, a real application's server (its output kept for
// the error, in the logBuffer cmd writes to if it has one), stops it when
// the test ends, and waits up to wait for url to answer 200. name names
// it in errors.
func serveApp(ctx context.Context, tb testing.TB, name string, cmd *exec.Cmd, url string, wait time.Duration) error {
	logs, ok := cmd.Stdout.(*logBuffer)
	if !ok {
		logs = &logBuffer{}
	}
	cmd.Stdout, cmd.Stderr = logs, logs
	// A server that forks a child for each connection (Fossil's) keeps
	// the output pipe open for a while after it is killed.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", name, err)
	}
	tb.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	err := waitUntil(ctx, wait, func() error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return errors.New(resp.Status)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s did not answer in %s: %w\n%s", name, wait, err, logs)
	}
	return nil
}

// waitUntil tries probe every 100 ms until it succeeds, for wait at most
// (or until ctx ends): its last error then.
func waitUntil(ctx context.Context, wait time.Duration, probe func() error) error {
	deadline := time.Now().Add(wait)
	for {
		err := probe()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// appCLI is how a test drives a real application's tab through the CLI:
// run runs one verb (its failure ends the test) and refIn finds the ref
// the first group of re matches in a snapshot. The application's cookies
// are cleared when the test ends: they are 127.0.0.1's, whatever the
// port, and the shared browser's other tests on loopback would see them.
func appCLI(t *testing.T, c *chain, tab protocol.Target, name string) (run func(args ...string) string, refIn func(snap, re string) string) {
	t.Cleanup(func() {
		if _, errOut, code := c.cli(tab, "cookies", "clear"); code != 0 {
			t.Errorf("clear %s's cookies: exit %d: %s", name, code, errOut)
		}
	})
	run = func(args ...string) string { t.Helper(); return c.cliOK(t, tab, args...) }
	refIn = func(snap, re string) string {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(snap)
		if m == nil {
			t.Fatalf("no %s in the snapshot:\n%s", re, snap)
		}
		return "@" + m[1]
	}
	return run, refIn
}
