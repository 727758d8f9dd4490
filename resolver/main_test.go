package resolver_test

import (
	"os"
	"testing"

	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// browsers is the one Chromium the package's tests share, each test in a
// browser context of its own (browsertest.Shared).
var browsers browsertest.Shared

func TestMain(m *testing.M) {
	os.Exit(browsers.Run(m))
}
