package snapshot

import (
	"os"
	"testing"

	"github.com/egohost/egohost/internal/testkit/browsertest"
)

// SharedBrowsers is the one Chromium the package's tests share (the
// internal ones and, through this name, package snapshot_test's), each
// test in a browser context of its own (browsertest.Shared).
var SharedBrowsers = &browsertest.Shared{}

func TestMain(m *testing.M) {
	os.Exit(SharedBrowsers.Run(m))
}
