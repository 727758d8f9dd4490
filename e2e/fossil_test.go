package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/testkit/ci"
)

// TestFossilThroughTheCLI drives a real application, Debian's Fossil (its
// web UI: login, wiki, tickets; forms of the older kind, whose fields are
// labelled by the text beside them), through the CLI as an agent does: it
// reads what each unnamed field is for from snapshot -i (and a select's
// options), fills and selects by the refs that gives, saves the wiki
// page's editor found by id=, sees the save's word in the status bar, and
// reads the saved page. Fossil is
// one small package (apt-get install fossil): .ci/run installs it, and
// the test fails without it when CI=true, skips otherwise.
func TestFossilThroughTheCLI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	site, err := startFossil(ctx, t)
	ci.Need(t, err) // the application could not start
	c := useSharedChain(t)
	tab := c.openTab(t, site+"/login")
	run, refIn := appCLI(t, c, tab, "Fossil")

	run("fill", `role=textbox[name="User ID:"]`, "admin")
	run("fill", `role=textbox[name="Password:"]`, fossilPassword)
	run("click", `role=button[name="Login"]`)
	if got := run("eval", "location.pathname"); strings.Contains(got, "login") {
		t.Fatalf("after the login the page is %s:\n%s", got, run("snapshot", "-i"))
	}

	// "Name of new wiki page: <input>", "Markup style: <select>": no labels.
	run("goto", site+"/wikinew")
	form := run("snapshot", "-i")
	name := refIn(form, `textbox \[beside="Name of new wiki page:"\] @(\d+)`)
	style := refIn(form, `combobox \[beside="Markup style:" options: "Fossil Wiki", "Markdown", "Plain Text"\] @(\d+): Markdown`)
	run("fill", name, "AgentPage")
	run("select", style, "Fossil Wiki")
	run("click", `role=button[name="Create"]`)

	// The editor: its textarea by its id (Playwright's id= engine); the
	// save's word is in Fossil's status bar, a div with only an id.
	const words = "This page was written by an agent through egohost."
	run("fill", "id=wikiedit-content-editor", words)
	run("click", `role=button[name="Save"s]`)
	saved := false
	for deadline := time.Now().Add(10 * time.Second); !saved && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		saved = strings.Contains(run("snapshot", "-i"), "Saved page: [AgentPage].")
	}
	if !saved {
		t.Fatalf("no word of the save in the interactive snapshot:\n%s", run("snapshot", "-i"))
	}
	run("goto", site+"/wiki?name=AgentPage")
	if page := run("snapshot"); !strings.Contains(page, words) {
		t.Fatalf("the saved page shows:\n%s", page)
	}

	// A new ticket: its summary's label is the line above the field.
	run("goto", site+"/tktnew")
	ticket := run("snapshot", "-i")
	refIn(ticket, `textbox \[beside="Enter a one-line summary of the ticket:"\] @(\d+)`)
	refIn(ticket, `combobox \[beside="Type:" options: [^\]]*"Feature_Request"[^\]]*\] @(\d+): Code_Defect`)
}

// fossilPassword is the admin's password of the test's repository.
const fossilPassword = "Adm1n-pass-ego"

// startFossil makes a repository in a temporary folder, serves it with
// Debian's fossil on loopback and returns its base URL; an error says why
// it cannot (not installed, did not start).
func startFossil(ctx context.Context, tb testing.TB) (string, error) {
	bin, err := exec.LookPath("fossil")
	if err != nil {
		return "", fmt.Errorf("fossil is not installed (apt-get install -y fossil): %w", err)
	}
	dir := tb.TempDir()
	repo := filepath.Join(dir, "site.fossil")
	env := append(os.Environ(), "HOME="+dir, "USER=admin") // its settings go to HOME
	for _, args := range [][]string{
		{"init", repo, "--admin-user", "admin"},
		{"user", "password", "admin", fossilPassword, "-R", repo},
	} {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("fossil %s: %w\n%s", args[0], err, out)
		}
	}
	port, err := freePort()
	if err != nil {
		return "", err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.Command(bin, "server", "--localhost", "--port", strconv.Itoa(port), repo)
	cmd.Env = env
	if err := serveApp(ctx, tb, "fossil", cmd, base+"/login", 30*time.Second); err != nil {
		return "", err
	}
	return base, nil
}
