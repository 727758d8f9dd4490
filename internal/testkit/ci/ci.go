// Package ci holds the rule for a test whose prerequisite (a browser,
// Node.js, a real application) is missing: with CI=true, where .ci/run
// installs every one, the test fails; elsewhere it skips.
package ci

import (
	"os"
	"testing"
)

// On reports whether the tests run in CI (CI=true).
func On() bool { return os.Getenv("CI") == "true" }

// Need ends tb when err says a prerequisite is missing: tb fails in CI
// and skips elsewhere. A nil err does nothing.
func Need(tb testing.TB, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	if On() {
		tb.Fatal(err)
	}
	tb.Skip(err)
}
