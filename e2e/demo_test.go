package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The README's first command runs this demo: it must keep working.
func TestDemo(t *testing.T) {
	requireBrowser(t)
	cmd := exec.Command(theSuite.bin, "demo")
	cmd.Env = append(os.Environ(), "EGOHOST_CONFIG=", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "demo passed") {
		t.Fatalf("egohost demo: %v\n%s", err, out)
	}
	for _, want := range []string{"snapshot -i", `button "Say hello" @`, "click @", `#out = "Hello, agent!"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
