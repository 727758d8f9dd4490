package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/internal/testkit/fifo"
	"github.com/egohost/egohost/protocol"
)

// The attacks of issue 22 on the person's files, through the real chain:
// a paired agent with the default space scope (what a prompt injection
// can steer) must not read the person's files through upload or a
// script's setInputFiles, nor write them through screenshot, nor learn
// the person's downloads; debug.echo is the owner's.

// filesPage has a file input that says what it holds.
const filesPage = `<!doctype html><title>files</title><input type=file id=f multiple>
<script>window.read = async () => Promise.all([...document.getElementById("f").files].map(async (f) => f.name + "=" + await f.text()));</script>`

// refused checks that err is a protocol error with code want.
func refused(t *testing.T, what string, err error, want protocol.Code) *protocol.Error {
	t.Helper()
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != want {
		t.Errorf("%s: got %v, want %s", what, err, want.Name())
		return nil
	}
	return pe
}

// botSpace pairs name with the default scope and opens its own space on
// url; it returns the agent's connection and its tab.
func botSpace(t *testing.T, c *chain, name, url string) (*client.Client, protocol.Target) {
	t.Helper()
	bot := dialToken(t, c, pairDirect(t, c, name))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var sp protocol.SpaceResult
	if err := bot.Call(ctx, protocol.MethodSpacesNew, protocol.SpacesNewParams{URL: url}, &sp); err != nil {
		t.Fatalf("%s's space: %v", name, err)
	}
	return bot, protocol.Target{Tab: sp.Tab.ID}
}

// filesBot serves filesPage and opens it in the own space of a paired
// agent called bot (botSpace), with a minute and a half for the test.
func filesBot(t *testing.T, c *chain) (*client.Client, protocol.Target, context.Context) {
	t.Helper()
	base := serve(t, map[string]string{"/": filesPage})
	bot, tab := botSpace(t, c, "bot", base+"/")
	return bot, tab, ctxT(t, 90*time.Second)
}

// botAudit is the audit log's lines of the bot's calls of method since
// the chain started, each as the files it names and its result.
func botAudit(t *testing.T, c *chain, method string) []string {
	t.Helper()
	lines, err := audit.Read(filepath.Join(c.svc.stateDir, "audit.log"), audit.Filter{Agent: "bot", Since: c.since})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, l := range lines {
		if l.Method == method {
			files = append(files, strings.Join(l.Files, ",")+" "+l.Result)
		}
	}
	return files
}

// inputFiles reads the input's files as the page sees them, through cl.
func inputFiles(t *testing.T, cl *client.Client, tab protocol.Target) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	var r protocol.EvalResult
	if err := cl.Call(ctx, protocol.MethodEval, protocol.EvalParams{Target: tab, Expression: "window.read()"}, &r); err != nil {
		t.Fatalf("read the input's files: %v", err)
	}
	b, _ := json.Marshal(r.Value)
	return string(b)
}

// A default-scope agent cannot make the page read the owner token, a file
// of the person's, or either through a symlink: upload, a script's
// setInputFiles and the script's files are refused with forbidden_path
// before anything reaches the page. The owner cannot upload the state dir
// either. Files given by their bytes work, and the audit log names them.
func TestUploadOfPrivateFilesRefused(t *testing.T) {
	c := useSharedChain(t)
	bot, tab, ctx := filesBot(t, c)

	token := filepath.Join(c.svc.stateDir, "token")
	secret := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "innocent.txt")
	if err := os.Symlink(token, link); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{token, secret, link} {
		err := bot.Call(ctx, protocol.MethodUpload, protocol.UploadParams{Target: tab, Element: "#f", Files: []string{f}}, nil)
		if pe := refused(t, "the agent's upload of "+f, err, protocol.CodeForbiddenPath); pe != nil && pe.Data["path"] != f {
			t.Errorf("upload of %s: data.path %v, want the path", f, pe.Data["path"])
		}
	}
	script := `await page.locator('#f').setInputFiles(` + jsonString(token) + `); await page.evaluate(() => window.read())`
	_, err := bot.RunScript(ctx, protocol.ScriptRunParams{Target: tab, Script: script, Files: []string{token}})
	refused(t, "script.run with the token in files", err, protocol.CodeForbiddenPath)
	script = `await page.locator('#f').setInputFiles(` + jsonString(secret) + `)`
	_, err = bot.RunScript(ctx, protocol.ScriptRunParams{Target: tab, Script: script, Files: []string{secret}})
	refused(t, "script.run with a file of the person's", err, protocol.CodeForbiddenPath)
	if got := inputFiles(t, bot, tab); got != "[]" {
		t.Fatalf("after refused uploads the page holds %s", got)
	}

	// The owner may upload the person's files, never the state dir.
	for _, f := range []string{token, link} {
		err := c.agent.Call(ctx, protocol.MethodUpload, protocol.UploadParams{Target: tab, Element: "#f", Files: []string{f}}, nil)
		refused(t, "the owner's upload of "+f, err, protocol.CodeForbiddenPath)
	}
	if err := c.agent.Call(ctx, protocol.MethodUpload, protocol.UploadParams{Target: tab, Element: "#f", Files: []string{secret}}, nil); err != nil {
		t.Errorf("the owner's upload of a file of the person's: %v", err)
	}
	if got, want := inputFiles(t, c.agent, tab), `["id_rsa=PRIVATE KEY"]`; got != want {
		t.Errorf("after the owner's upload the page holds %s, want %s", got, want)
	}

	// The agent gives what it has: bytes.
	p := protocol.UploadParams{Target: tab, Element: "#f", Payloads: []protocol.FilePayload{
		{Name: "note.txt", Data: []byte("hello")},
		{Name: "../../evil\n.txt", Data: []byte("x")},
	}}
	if err := bot.Call(ctx, protocol.MethodUpload, p, nil); err != nil {
		t.Fatalf("the agent's upload of bytes: %v", err)
	}
	if got, want := inputFiles(t, bot, tab), `["note.txt=hello","evil_.txt=x"]`; got != want {
		t.Errorf("after the agent's upload of bytes the page holds %s, want %s", got, want)
	}
	_, err = bot.RunScript(ctx, protocol.ScriptRunParams{Target: tab, Script: `await page.locator('#f').setInputFiles({name: 'a.csv', mimeType: 'text/csv', buffer: 'x,y'})`})
	if err != nil {
		t.Errorf("a script's setInputFiles of bytes: %v", err)
	} else if got, want := inputFiles(t, bot, tab), `["a.csv=x,y"]`; got != want {
		t.Errorf("after the script's upload the page holds %s, want %s", got, want)
	}

	files := botAudit(t, c, protocol.MethodUpload)
	want := []string{token + " forbidden_path", secret + " forbidden_path", link + " forbidden_path",
		"note.txt (5 bytes),evil_.txt (1 bytes) ok", "a.csv (3 bytes) ok"}
	if strings.Join(files, "\n") != strings.Join(want, "\n") {
		t.Errorf("the audit's upload lines name:\n%s\nwant:\n%s", strings.Join(files, "\n"), strings.Join(want, "\n"))
	}
	raw, _ := os.ReadFile(filepath.Join(c.svc.stateDir, "audit.log"))
	if strings.Contains(string(raw), "hello") || strings.Contains(string(raw), "PRIVATE") {
		t.Error("the audit log holds a file's content")
	}
}

// A default-scope agent cannot overwrite a file of the person's or the
// owner token with a screenshot; the owner cannot write into the state
// dir, over an existing file or through a symlink either.
func TestScreenshotOverPrivateFilesRefused(t *testing.T) {
	c := useSharedChain(t)
	bot, tab, ctx := filesBot(t, c)

	token := filepath.Join(c.svc.stateDir, "token")
	tokenBefore, err := os.ReadFile(token)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	bashrc := filepath.Join(home, ".bashrc")
	if err := os.WriteFile(bashrc, []byte("alias ls=ls\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "new.png")
	if err := os.Symlink(filepath.Join(home, "elsewhere.png"), link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{bashrc, token, filepath.Join(home, "fresh.png"), "../escape.png", link} {
		err := bot.Call(ctx, protocol.MethodScreenshot, protocol.ScreenshotParams{Target: tab, Path: path}, nil)
		refused(t, "the agent's screenshot to "+path, err, protocol.CodeForbiddenPath)
	}
	for _, path := range []string{bashrc, token, link, filepath.Join(c.svc.stateDir, "new.png")} {
		err := c.agent.Call(ctx, protocol.MethodScreenshot, protocol.ScreenshotParams{Target: tab, Path: path}, nil)
		refused(t, "the owner's screenshot to "+path, err, protocol.CodeForbiddenPath)
	}
	if b, _ := os.ReadFile(bashrc); string(b) != "alias ls=ls\n" {
		t.Errorf(".bashrc was changed: it holds %d bytes", len(b))
	}
	if b, _ := os.ReadFile(token); string(b) != string(tokenBefore) {
		t.Error("the owner token was changed")
	}
	for _, p := range []string{filepath.Join(home, "fresh.png"), filepath.Join(home, "elsewhere.png"), filepath.Join(c.svc.stateDir, "new.png")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}

	// The agent gets the bytes; the owner writes a new file.
	var r protocol.ScreenshotResult
	if err := bot.Call(ctx, protocol.MethodScreenshot, protocol.ScreenshotParams{Target: tab}, &r); err != nil || len(r.Data) == 0 {
		t.Errorf("the agent's screenshot: %d bytes, %v", len(r.Data), err)
	}
	fresh := filepath.Join(home, "fresh.png")
	if err := c.agent.Call(ctx, protocol.MethodScreenshot, protocol.ScreenshotParams{Target: tab, Path: fresh}, &r); err != nil || r.Path != fresh {
		t.Errorf("the owner's screenshot to a new file: %+v, %v", r, err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Size() == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("the owner's screenshot: %v, %v", fi, err)
	}
	lines, err := audit.Read(filepath.Join(c.svc.stateDir, "audit.log"), audit.Filter{Agent: "owner", Since: c.since})
	if err != nil {
		t.Fatal(err)
	}
	if l := lines[len(lines)-1]; l.Method != protocol.MethodScreenshot || strings.Join(l.Files, ",") != fresh {
		t.Errorf("the owner's last audit line %+v: want the screenshot naming %s", l, fresh)
	}
}

// The folders the person named: a paired agent uploads files inside
// agents.upload_dirs (never through a symlink that leaves them, never a
// FIFO), within agents.upload_max_bytes; the copies the page reads go
// when the tab closes. The CLI on a paired token sends the bytes of the
// files it can read itself.
func TestUploadDirsAndCaps(t *testing.T) {
	stateDir, share, outside := t.TempDir(), t.TempDir(), t.TempDir()
	config := "agents:\n  upload_dirs: [" + share + "]\n  upload_max_bytes: 1KiB\n"
	if err := os.WriteFile(filepath.Join(stateDir, "config.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startChainIn(t, stateDir)
	bot, tab, ctx := filesBot(t, c)

	write := func(path, content string) string {
		t.Helper()
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	report := write(filepath.Join(share, "report.txt"), "quarterly")
	big := write(filepath.Join(share, "big.txt"), strings.Repeat("x", 2000))
	secret := write(filepath.Join(outside, "secret.txt"), "nope")
	toSecret := filepath.Join(share, "looks-fine.txt")
	if err := os.Symlink(secret, toSecret); err != nil {
		t.Fatal(err)
	}
	toToken := filepath.Join(share, "token.txt")
	if err := os.Symlink(filepath.Join(stateDir, "token"), toToken); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(share, "pipe")
	if err := fifo.Make(pipe); err != nil {
		t.Fatal(err)
	}

	upload := func(p protocol.UploadParams) error {
		p.Target, p.Element = tab, "#f"
		return bot.Call(ctx, protocol.MethodUpload, p, nil)
	}
	if err := upload(protocol.UploadParams{Files: []string{report}}); err != nil {
		t.Fatalf("upload of a file in upload_dirs: %v", err)
	}
	if got, want := inputFiles(t, bot, tab), `["report.txt=quarterly"]`; got != want {
		t.Errorf("the page holds %s, want %s", got, want)
	}
	for _, f := range []string{secret, toSecret, toToken, pipe, share + "/../" + filepath.Base(outside) + "/secret.txt"} {
		refused(t, "upload of "+f, upload(protocol.UploadParams{Files: []string{f}}), protocol.CodeForbiddenPath)
	}
	refused(t, "upload of 2000 bytes by path", upload(protocol.UploadParams{Files: []string{big}}), protocol.CodeTooLarge)
	refused(t, "upload of 2000 bytes", upload(protocol.UploadParams{Payloads: []protocol.FilePayload{{Name: "a", Data: make([]byte, 2000)}}}), protocol.CodeTooLarge)
	refused(t, "upload of 600 + 600 bytes", upload(protocol.UploadParams{Files: []string{report}, Payloads: []protocol.FilePayload{{Name: "a", Data: make([]byte, 600)}, {Name: "b", Data: make([]byte, 600)}}}), protocol.CodeTooLarge)
	if got, want := inputFiles(t, bot, tab), `["report.txt=quarterly"]`; got != want {
		t.Errorf("after refused uploads the page holds %s, want %s", got, want)
	}

	// The CLI with the agent's token reads the file itself (it can: it
	// runs as this user) and sends its bytes.
	tokFile := filepath.Join(t.TempDir(), "bot2.token")
	if err := os.WriteFile(tokFile, []byte(pairDirect(t, c, "bot2", "space", "all-tabs")), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(chainEnv(stateDir), "EGOHOST_AGENT_TOKEN_FILE="+tokFile)
	out, errOut, code := runCLI(env, "upload", "#f", secret, "--tab", itoa(tab.Tab))
	if code != 0 {
		t.Fatalf("egohost upload on the agent's token: exit %d\n%s%s", code, out, errOut)
	}
	if got, want := inputFiles(t, bot, tab), `["secret.txt=nope"]`; got != want {
		t.Errorf("after the CLI's upload the page holds %s, want %s", got, want)
	}
	_, errOut, code = runCLI(env, "upload", "#f", filepath.Join(stateDir, "token"), "--tab", itoa(tab.Tab))
	if code == 0 || !strings.Contains(errOut, "state") {
		t.Errorf("egohost upload of the token on the agent's token: exit %d, %s", code, errOut)
	}

	// The copies live while the tab does.
	uploads := filepath.Join(stateDir, "uploads")
	if n := countFiles(t, uploads); n != 2 {
		t.Errorf("%d files in %s, want 2 (the copies of report.txt and secret.txt)", n, uploads)
	}
	if err := bot.Call(ctx, protocol.MethodTabsClose, protocol.TabParams{Target: tab}, nil); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); countFiles(t, uploads) != 0; {
		if time.Now().After(deadline) {
			t.Fatalf("%d files left in %s after the tab closed", countFiles(t, uploads), uploads)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// countFiles counts the regular files under dir.
func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// A paired agent's screenshot path is a plain name in agents.output_dir,
// written once (never over an existing file); the CLI writes the owner's
// screenshot itself, never into the state dir.
func TestScreenshotOutputFolder(t *testing.T) {
	c := quietChain(t) // its agents.output_dir: out/ in the chain's files, made by the first screenshot there
	stateDir, outDir := c.svc.stateDir, filepath.Join(c.files, "out")
	t.Cleanup(func() { os.Remove(filepath.Join(outDir, "shot.png")) }) // the shared chain's folder: another test writes its own shot.png
	bot, tab, ctx := filesBot(t, c)

	var r protocol.ScreenshotResult
	if err := bot.Call(ctx, protocol.MethodScreenshot, protocol.ScreenshotParams{Target: tab, Path: "shot.png"}, &r); err != nil {
		t.Fatalf("the agent's screenshot to shot.png: %v", err)
	}
	if want := filepath.Join(outDir, "shot.png"); r.Path != want || len(r.Data) != 0 {
		t.Errorf("the agent's screenshot went to %q (%d bytes inline), want %s", r.Path, len(r.Data), want)
	}
	if fi, err := os.Stat(outDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the output folder: %v, %v; want 0700", fi, err)
	}
	refused(t, "the agent's second screenshot to shot.png", bot.Call(ctx, protocol.MethodScreenshot, protocol.ScreenshotParams{Target: tab, Path: "shot.png"}, nil), protocol.CodeForbiddenPath)
	refused(t, "the agent's screenshot to sub/x.png", bot.Call(ctx, protocol.MethodScreenshot, protocol.ScreenshotParams{Target: tab, Path: "sub/x.png"}, nil), protocol.CodeForbiddenPath)
	named := botAudit(t, c, protocol.MethodScreenshot)
	if want := filepath.Join(outDir, "shot.png") + " ok"; len(named) == 0 || named[0] != want {
		t.Errorf("the audit's screenshot lines: %q, want the first %q", named, want)
	}

	// The CLI writes the file itself from the bytes.
	dir := t.TempDir()
	shot := filepath.Join(dir, "page.png")
	out, errOut, code := c.cli(tab, "screenshot", shot)
	if code != 0 || !strings.Contains(out, "wrote "+shot) {
		t.Fatalf("egohost screenshot: exit %d\n%s%s", code, out, errOut)
	}
	if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 {
		t.Errorf("egohost screenshot wrote %v, %v", fi, err)
	}
	tokenBefore, _ := os.ReadFile(filepath.Join(stateDir, "token"))
	_, errOut, code = c.cli(tab, "screenshot", filepath.Join(stateDir, "token"))
	if after, _ := os.ReadFile(filepath.Join(stateDir, "token")); code == 0 || !strings.Contains(errOut, "state") || string(after) != string(tokenBefore) {
		t.Errorf("egohost screenshot over the token: exit %d, %s; token changed: %t", code, errOut, string(after) != string(tokenBefore))
	}
	_, errOut, code = c.cli(tab, "screenshot", filepath.Join(stateDir, "new.png"))
	if _, err := os.Lstat(filepath.Join(stateDir, "new.png")); code == 0 || !strings.Contains(errOut, "state") || err == nil {
		t.Errorf("egohost screenshot into the state dir: exit %d, %s; written: %t", code, errOut, err == nil)
	}
	link := filepath.Join(dir, "link.png")
	if err := os.Symlink(filepath.Join(dir, "target.png"), link); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = c.cli(tab, "screenshot", link)
	if _, err := os.Lstat(filepath.Join(dir, "target.png")); code == 0 || err == nil {
		t.Errorf("egohost screenshot through a symlink: exit %d, %s; target written: %t", code, errOut, err == nil)
	}
}

// The person's downloads stay the person's: a paired agent waiting with
// download (no click) while the person's tab downloads a file gets
// nothing of it (its wait goes on, and ends with its own tab's download);
// one waiting alone times out with nothing.
func TestDownloadsOfThePersonHidden(t *testing.T) {
	c := useSharedChain(t)
	base := browsertest.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/report.csv" {
			w.Header().Set("Content-Type", "text/csv")
			w.Header().Set("Content-Disposition", `attachment; filename="report-`+r.URL.Query().Get("who")+`.csv"`)
			w.Write([]byte("a,b\n"))
			return
		}
		who := strings.TrimPrefix(r.URL.Path, "/")
		w.Write([]byte(`<!doctype html><a id=dl href="/report.csv?who=` + who + `&sig=SECRET">report</a>`))
	}))
	personTab := c.openTab(t, base+"/person")
	bot, botTab := botSpace(t, c, "bot", base+"/bot")
	ctx := ctxT(t, 120*time.Second)
	download := func(cl *client.Client, p protocol.DownloadParams) (protocol.DownloadResult, error) {
		var r protocol.DownloadResult
		err := cl.Call(ctx, protocol.MethodDownload, p, &r)
		if r.Filename != "" {
			t.Cleanup(func() { os.Remove(r.Filename) }) // Chromium saves into the user's Downloads
		}
		return r, err
	}

	type answer struct {
		r   protocol.DownloadResult
		err error
	}
	waiting := make(chan answer, 1)
	started := make(chan struct{})
	go func() {
		close(started)
		r, err := download(bot, protocol.DownloadParams{TimeoutMs: 60000})
		waiting <- answer{r, err}
	}()
	<-started
	time.Sleep(time.Second) // let the agent's wait begin; if it has not, the person's download is after it anyway
	if r, err := download(c.agent, protocol.DownloadParams{Target: personTab, Click: "#dl"}); err != nil || !strings.Contains(r.URL, "who=person") {
		t.Fatalf("the person's download: %+v, %v", r, err)
	}
	own, err := download(bot, protocol.DownloadParams{Target: botTab, Click: "#dl"})
	if err != nil || !strings.Contains(own.URL, "who=bot") {
		t.Errorf("the agent's own download: %+v, %v", own, err)
	}
	if a := <-waiting; a.err != nil || !strings.Contains(a.r.URL, "who=bot") {
		t.Errorf("the agent that waited got %+v, %v; want its own download, never the person's", a.r, a.err)
	}

	// Alone: the person's download ends the agent's wait with nothing.
	go func() {
		r, err := download(bot, protocol.DownloadParams{TimeoutMs: 5000})
		waiting <- answer{r, err}
	}()
	time.Sleep(time.Second)
	if _, err := download(c.agent, protocol.DownloadParams{Target: personTab, Click: "#dl"}); err != nil {
		t.Fatalf("the person's second download: %v", err)
	}
	if a := <-waiting; protocol.CodeOf(a.err) != protocol.CodeTimeout || a.r.URL != "" {
		t.Errorf("the agent waiting alone got %+v, %v; want a timeout and nothing", a.r, a.err)
	}
}

// debug.echo is the owner's, bounded and audited by its length: a paired
// agent (read or space scope) is refused, every call is one audit line.
func TestDebugEchoOwnerOnly(t *testing.T) {
	c := useSharedChain(t)
	// One byte past the bound (4 MiB) proves it, and costs the race-built
	// service and client less than a MiB more would.
	const tooMuch = 4<<20 + 1
	// About 1.5 s when quiet (a race-built client encodes and a race-built
	// service reads and decodes 4 MiB); 16 MiB, the bound before, took 82
	// s at a load average of 20: the bound is for a hang, not a speed.
	ctx := ctxT(t, 180*time.Second)
	reader := dialToken(t, c, pairDirect(t, c, "echo-reader", "read"))
	bot := dialToken(t, c, pairDirect(t, c, "echo-bot"))
	refused(t, "debug.echo as reader", reader.Call(ctx, protocol.MethodDebugEcho, protocol.DebugEchoParams{Data: "x"}, nil), protocol.CodeScopeDenied)
	refused(t, "debug.echo as bot", bot.Call(ctx, protocol.MethodDebugEcho, protocol.DebugEchoParams{Data: "x"}, nil), protocol.CodeScopeDenied)
	refused(t, "debug.echo of 4 MiB + 1", c.agent.Call(ctx, protocol.MethodDebugEcho, protocol.DebugEchoParams{Data: strings.Repeat("x", tooMuch)}, nil), protocol.CodeTooLarge)
	var res protocol.DebugEchoResult
	if err := c.agent.Call(ctx, protocol.MethodDebugEcho, protocol.DebugEchoParams{Data: "secret-ish"}, &res); err != nil || res.Length != 10 {
		t.Fatalf("the owner's debug.echo: %+v, %v", res, err)
	}
	lines, err := audit.Read(filepath.Join(c.svc.stateDir, "audit.log"), audit.Filter{Since: c.since})
	if err != nil {
		t.Fatal(err)
	}
	var echoes []string
	for _, l := range lines {
		if l.Method == protocol.MethodDebugEcho {
			n := -1
			if l.Length != nil {
				n = *l.Length
			}
			echoes = append(echoes, l.Agent+" "+itoa(n)+" "+l.Result)
		}
	}
	want := []string{"echo-reader 1 scope_denied", "echo-bot 1 scope_denied", "owner " + itoa(tooMuch) + " too_large", "owner 10 ok"}
	if strings.Join(echoes, "\n") != strings.Join(want, "\n") {
		t.Errorf("debug.echo's audit lines:\n%s\nwant:\n%s", strings.Join(echoes, "\n"), strings.Join(want, "\n"))
	}
	raw, _ := os.ReadFile(filepath.Join(c.svc.stateDir, "audit.log"))
	if strings.Contains(string(raw), "secret-ish") {
		t.Error("the audit log holds debug.echo's data")
	}
}

// egohost mcp (a paired agent by default) passes paths to the service
// unchanged and reads none itself: the owner token and a file outside
// agents.upload_dirs are refused; files given inline and files inside
// upload_dirs work. A screenshot's filename is a new file in the output
// folder.
func TestMCPFilesAttack(t *testing.T) {
	c := quietChain(t) // its agents.upload_dirs: share/ in the chain's files; output_dir: out/
	stateDir, share, outDir := c.svc.stateDir, filepath.Join(c.files, "share"), filepath.Join(c.files, "out")
	if err := os.MkdirAll(share, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(filepath.Join(outDir, "shot.png")) }) // the shared chain's folder: another test writes its own shot.png
	base := serve(t, map[string]string{"/": filesPage})
	cs, logs := startMCP(t, stateDir)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("egohost mcp stderr:\n%s\nservice log:\n%s", logs, c.svc.logs)
		}
	})
	ok(t, cs, "browser_navigate", map[string]any{"url": base + "/"})
	report := filepath.Join(share, "report.txt")
	if err := os.WriteFile(report, []byte("quarterly"), 0o600); err != nil {
		t.Fatal(err)
	}
	read := func() string {
		t.Helper()
		return ok(t, cs, "browser_evaluate", map[string]any{"function": "window.read()"})
	}
	fails(t, cs, "browser_file_upload", map[string]any{"paths": []string{filepath.Join(stateDir, "token")}}, "forbidden_path")
	fails(t, cs, "browser_file_upload", map[string]any{"paths": []string{"/etc/hostname"}}, "forbidden_path")
	if got := read(); got != "[]" {
		t.Errorf("after refused uploads the page holds %s", got)
	}
	ok(t, cs, "browser_file_upload", map[string]any{"paths": []string{report}, "files": []map[string]any{{"name": "b.txt", "text": "inline"}}}, "set 2 file(s)")
	if got, want := read(), `["report.txt=quarterly","b.txt=inline"]`; got != want {
		t.Errorf("the page holds %s, want %s", got, want)
	}
	fails(t, cs, "browser_take_screenshot", map[string]any{"filename": filepath.Join(stateDir, "token")}, "invalid_params")
	ok(t, cs, "browser_take_screenshot", map[string]any{"filename": "shot.png"}, "saved to "+filepath.Join(outDir, "shot.png"))
	fails(t, cs, "browser_take_screenshot", map[string]any{"filename": "shot.png"}, "forbidden_path", "already exists")
}
