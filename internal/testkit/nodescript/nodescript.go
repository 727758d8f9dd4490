// Package nodescript runs the Node.js scripts in bench/ (the Playwright
// side of the benchmarks, attached to the same browser) and decodes the
// JSON line each prints per result.
package nodescript

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/egohost/egohost/internal/testkit/ci"
)

// ErrNoNode means Node.js or bench/'s playwright-core is not installed.
var ErrNoNode = errors.New("node or playwright-core not available (install Node.js and run npm ci in bench/)")

// MissingOutsideCI reports whether err says Node.js or playwright-core is
// missing where a test may go on without Playwright's side: outside CI
// (with CI=true they must be there, as Chromium must).
func MissingOutsideCI(err error) bool {
	return errors.Is(err, ErrNoNode) && !ci.On()
}

// Column reports whether a benchmark has Playwright's column, err being
// what running its script returned: Node.js or playwright-core missing
// outside CI is logged and leaves the column out; any other error ends
// the benchmark.
func Column(tb testing.TB, err error) bool {
	tb.Helper()
	switch {
	case MissingOutsideCI(err):
		tb.Logf("no Playwright column: %v", err)
		return false
	case err != nil:
		tb.Fatal(err)
	}
	return true
}

// Lines runs `node script args…` and decodes each line it prints on stdout
// as one T.
func Lines[T any](ctx context.Context, script string, args ...string) ([]T, error) {
	name := filepath.Base(script)
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, ErrNoNode)
	}
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "Cannot find package 'playwright-core'") {
			return nil, fmt.Errorf("%s: %w", name, ErrNoNode)
		}
		return nil, fmt.Errorf("%s: %w: %s", name, err, stderr.String())
	}
	var res []T
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return nil, fmt.Errorf("%s: decode %q: %w", name, sc.Text(), err)
		}
		res = append(res, v)
	}
	return res, sc.Err()
}
