package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/testkit/ci"
)

// TestRoundcubeThroughTheCLI drives a real webmail, Debian's Roundcube 1.6
// (its Elastic skin: a mail list, a compose form whose recipients are a
// widget over a hidden text area, a form sent into a hidden frame,
// settings sections listed as <table role=listbox><tr role=option>),
// served by php -S over Dovecot's IMAP and a small SMTP sink of the test's
// own, through the CLI as an agent does: it logs in, opens a mail, replies
// (the recipient shows as the To field's value), sends, and sees the
// page's word of it in the snapshot right after the Send (the settle
// waits for the frame the form is posted into); then it opens a settings
// section by its role and name. Roundcube, Dovecot and PHP are Debian
// packages .ci/run installs; Dovecot needs root to serve a mail user's
// files: the test fails without them when CI=true, skips otherwise.
func TestRoundcubeThroughTheCLI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rc, err := startRoundcube(ctx, t)
	ci.Need(t, err) // the application could not start
	c := useSharedChain(t)
	tab := c.openTab(t, rc.url+"/")
	run, refIn := appCLI(t, c, tab, "Roundcube")

	if login := run("snapshot"); !strings.Contains(login, `textbox "Username"`) {
		t.Fatalf("no login form:\n%s\nthe server's log:\n%s", login, rc.logs)
	}
	run("fill", `role=textbox[name="Username"]`, roundcubeUser)
	run("fill", `role=textbox[name="Password"]`, roundcubePassword)
	run("click", `role=button[name="Login"]`)
	// The list comes by a request the inbox's own script sends after its
	// load, which the login's settle does not wait for: on a loaded machine
	// the snapshot found "Loading..." and an empty list. The wait's
	// default 5 s bound was passed once in a CI-sized run at a load
	// average of 12 (php -S serves one request at a time): 30 s, a bound
	// for a hang, not a speed.
	run("wait", "--text", "Quarterly report part 2", "--timeout", "30s")
	inbox := run("snapshot", "-i")
	// The list, not a message: its ids (#messagelist-header and
	// #messagelist-content) hold the words "message list".
	if strings.Contains(inbox, "Colleague 2 ") && !strings.Contains(inbox, `row "Colleague 2`) {
		t.Errorf("the mail list shows as text, not rows:\n%s", inbox)
	}
	run("click", refIn(inbox, `link "Quarterly report part 2" @(\d+)`))
	opened := run("snapshot", "-i")
	run("click", refIn(opened, `button "Reply" @(\d+)`))

	form := run("snapshot", "-i")
	// The reply's recipient is the To field's value (a text area made a
	// combobox, under the widget that draws it).
	if !regexp.MustCompile(`combobox "To" [^\n]*@\d+: Colleague 2 <c2@example\.test>`).MatchString(form) {
		t.Errorf("the reply's recipient is not the To field's value:\n%s", form)
	}
	const words = "Part 2 is reviewed: an agent, through egohost."
	run("fill", "#composebody", words)
	sent := run("click", `role=button[name="Send"]`)
	if !strings.Contains(sent, "network") {
		t.Errorf("the Send's settle did not wait for the frame its form is posted into: %s", sent)
	}
	after := run("snapshot", "-i")
	if !strings.Contains(after, "Message sent successfully.") {
		// Roundcube leaves for the mail list 500 ms after its word: a
		// machine slow enough may have moved on before the snapshot.
		if url := run("get", "url"); strings.Contains(url, "_action=compose") {
			t.Errorf("no word of the sending in the snapshot right after the Send:\n%s", after)
		} else {
			t.Logf("the page had moved on to %s before the snapshot", url)
		}
	}
	if got := rc.smtp.wait(ctx, 10*time.Second); !strings.Contains(got, words) || !strings.Contains(got, "c2@example.test") {
		t.Errorf("the SMTP server got:\n%s\nwant the reply to c2@example.test with %q", got, words)
	}

	// Roundcube leaves the compose page for the mail list 500 ms after
	// its word: a goto while that navigation of the page's own is on its
	// way is aborted by it (net::ERR_ABORTED, seen once on a loaded
	// machine), as Playwright's would be. Wait until the page has left.
	if err := waitUntil(ctx, 10*time.Second, func() error {
		if url := run("get", "url"); strings.Contains(url, "_action=compose") {
			return fmt.Errorf("still on %s 10 s after the Send", strings.TrimSpace(url))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	// Settings: its sections are options to Playwright and the snapshot,
	// generic to Chrome (the implicit tbody between): the role locator
	// finds them; the form's rows, which its fields' names and values
	// say, are left out.
	run("goto", rc.url+"/?_task=settings")
	run("click", `role=option[name="Composing Messages"]`)
	prefs := run("snapshot", "-i")
	refIn(prefs, `combobox "Compose HTML messages" [^\n]*@(\d+): never`)
	if strings.Contains(prefs, `row "Compose HTML messages`) {
		t.Errorf("a row that says only its field's name and value:\n%s", prefs)
	}
}

// roundcubeUser and roundcubePassword are the IMAP account's.
const (
	roundcubeUser     = "agent@example.test"
	roundcubePassword = "Mail-pass-ego"
)

// roundcube is a running Roundcube: its base URL and the SMTP sink its
// mail goes to.
type roundcube struct {
	url  string
	smtp *smtpSink
	logs *logBuffer // php's and dovecot's
}

// startRoundcube serves Debian's Roundcube with php -S on loopback, its
// configuration and SQLite database in a temporary folder
// (ROUNDCUBE_CONFIG_DIR: nothing of /etc/roundcube is read), over Dovecot
// (its IMAP on a free port, a mail user's Maildir with three mails,
// owned by nobody) and an SMTP sink; an error says why it cannot.
func startRoundcube(ctx context.Context, tb testing.TB) (*roundcube, error) {
	const app = "/usr/share/roundcube"
	php, err := exec.LookPath("php")
	if err != nil {
		return nil, fmt.Errorf("php is not installed (apt-get install -y roundcube-core roundcube-sqlite3 dovecot-imapd): %w", err)
	}
	dovecot, err := exec.LookPath("dovecot")
	if err != nil {
		dovecot = "/usr/sbin/dovecot"
		if _, serr := os.Stat(dovecot); serr != nil {
			return nil, fmt.Errorf("dovecot is not installed (apt-get install -y dovecot-imapd): %w", err)
		}
	}
	if _, err := os.Stat(filepath.Join(app, "index.php")); err != nil {
		return nil, fmt.Errorf("roundcube is not installed (apt-get install -y roundcube-core roundcube-sqlite3): %w", err)
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("dovecot serves a mail user's files only when it runs as root")
	}
	mailUser, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("the mail user: %w", err)
	}
	uid, _ := strconv.Atoi(mailUser.Uid)
	gid, _ := strconv.Atoi(mailUser.Gid)

	dir := tb.TempDir()
	// The mail user reads its Maildir below: the folders above it open
	// (the test's own), and those above them passable.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			return nil, err
		}
	}
	for d := filepath.Dir(filepath.Dir(dir)); ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm()&0o001 == 0 {
			return nil, fmt.Errorf("the mail user cannot pass %s on the way to the test's folder (set TMPDIR elsewhere): %v", d, err)
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	home := filepath.Join(dir, "mail")
	for i := 1; i <= 3; i++ {
		mail := fmt.Sprintf("From: Colleague %d <c%d@example.test>\r\nTo: %s\r\nSubject: Quarterly report part %d\r\n"+
			"Date: Thu, 0%d Dec 2026 10:00:00 +0000\r\nMessage-ID: <m%d@example.test>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"+
			"Please review part %d of the quarterly report before Friday.\r\n", i, i, roundcubeUser, i, i, i, i)
		if err := writeFile(filepath.Join(home, "Maildir", "new", fmt.Sprintf("17000000%d.M%dP1.test", i, i)), mail); err != nil {
			return nil, err
		}
	}
	for _, d := range []string{"cur", "tmp"} {
		if err := os.MkdirAll(filepath.Join(home, "Maildir", d), 0o700); err != nil {
			return nil, err
		}
	}
	if err := filepath.Walk(home, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chown(p, uid, gid)
	}); err != nil {
		return nil, fmt.Errorf("the Maildir's owner: %w", err)
	}

	imapPort, err := freePort()
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "dovecot.conf")
	if err := writeFile(filepath.Join(dir, "users"), fmt.Sprintf("%s:{PLAIN}%s:%d:%d::%s\n", roundcubeUser, roundcubePassword, uid, gid, home)); err != nil {
		return nil, err
	}
	if err := writeFile(conf, fmt.Sprintf(`protocols = imap
listen = 127.0.0.1
base_dir = %[1]s/run
state_dir = %[1]s/state
log_path = /dev/stderr
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:~/Maildir
service imap-login {
  inet_listener imap {
    port = %[2]d
  }
  inet_listener imaps {
    port = 0
  }
}
passdb {
  driver = passwd-file
  args = %[1]s/users
}
userdb {
  driver = passwd-file
  args = %[1]s/users
}
`, dir, imapPort)); err != nil {
		return nil, err
	}
	dc := exec.Command(dovecot, "-F", "-c", conf)
	logs := &logBuffer{}
	dc.Stdout, dc.Stderr, dc.WaitDelay = logs, logs, time.Second
	if err := dc.Start(); err != nil {
		return nil, fmt.Errorf("start dovecot: %w", err)
	}
	tb.Cleanup(func() {
		dc.Process.Kill()
		dc.Wait()
	})
	if err := waitUntil(ctx, 30*time.Second, func() error {
		conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", imapPort), time.Second)
		if err == nil {
			conn.Close()
		}
		return err
	}); err != nil {
		return nil, fmt.Errorf("dovecot's IMAP port did not open: %w\n%s", err, logs)
	}

	sink, err := newSMTPSink(tb)
	if err != nil {
		return nil, err
	}
	cfg := filepath.Join(dir, "config")
	db := filepath.Join(dir, "roundcube.db")
	for _, d := range []string{"logs", "temp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	if err := writeFile(filepath.Join(cfg, "config.inc.php"), fmt.Sprintf(`<?php
$config = [];
$config['db_dsnw'] = 'sqlite:///%[1]s?mode=0600';
$config['imap_host'] = '127.0.0.1:%[2]d';
$config['smtp_host'] = '127.0.0.1:%[3]d';
$config['smtp_user'] = '';
$config['smtp_pass'] = '';
$config['des_key'] = 'egohost-e2e-test-key-24c';
$config['log_dir'] = '%[4]s/logs/';
$config['temp_dir'] = '%[4]s/temp/';
$config['skin'] = 'elastic';
$config['plugins'] = [];
$config['enable_spellcheck'] = false;
`, db, imapPort, sink.port, dir)); err != nil {
		return nil, err
	}
	// Its defaults, Debian's, beside the configuration.
	for _, f := range []string{"defaults.inc.php", "mimetypes.php"} {
		if err := os.Symlink(filepath.Join("/etc/roundcube", f), filepath.Join(cfg, f)); err != nil {
			return nil, fmt.Errorf("roundcube's %s: %w", f, err)
		}
	}
	// The schema, by PHP's own SQLite (no sqlite3 command needed).
	initdb := exec.CommandContext(ctx, php, "-r", `$db = new PDO("sqlite:".$argv[1]); $db->exec(file_get_contents($argv[2])) !== false or exit(1);`,
		db, filepath.Join(app, "SQL", "sqlite.initial.sql"))
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("roundcube's database: %w\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	srv := exec.Command(php, "-S", fmt.Sprintf("127.0.0.1:%d", port), "-t", app)
	srv.Env = append(os.Environ(), "ROUNDCUBE_CONFIG_DIR="+cfg)
	srv.Stdout = logs
	if err := serveApp(ctx, tb, "roundcube", srv, base+"/", 30*time.Second); err != nil {
		return nil, err
	}
	return &roundcube{url: base, smtp: sink, logs: logs}, nil
}

// writeFile writes s to path, making its folder.
func writeFile(path, s string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(s), 0o644)
}

// smtpAccept is how long the sink takes to accept a mail.
const smtpAccept = 700 * time.Millisecond

// smtpSink is an SMTP server that takes every mail and keeps it: enough of
// RFC 5321 for Roundcube's client (no authentication, no TLS).
type smtpSink struct {
	port int
	mu   sync.Mutex
	got  []string
	more chan struct{} // closed and renewed at each mail
}

func newSMTPSink(tb testing.TB) (*smtpSink, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &smtpSink{port: l.Addr().(*net.TCPAddr).Port, more: make(chan struct{})}
	var wg sync.WaitGroup
	tb.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.serve(conn)
			}()
		}
	}()
	return s, nil
}

// serve answers one client until it quits or goes.
func (s *smtpSink) serve(conn net.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	r := bufio.NewReader(conn)
	say := func(line string) { fmt.Fprintf(conn, "%s\r\n", line) }
	say("220 sink ESMTP")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		verb := strings.ToUpper(strings.Fields(line + " x")[0])
		switch verb {
		case "EHLO", "HELO":
			say("250 sink")
		case "DATA":
			say("354 go on")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" || l == ".\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, "."))
			}
			s.mu.Lock()
			s.got = append(s.got, b.String())
			close(s.more)
			s.more = make(chan struct{})
			s.mu.Unlock()
			// A real server takes a while to accept a mail: longer than
			// the settle's quiet window, so that only a settle that waits
			// for the frame the form is posted into sees the answer.
			time.Sleep(smtpAccept)
			say("250 kept")
		case "QUIT":
			say("221 bye")
			return
		default: // MAIL, RCPT, RSET, NOOP
			say("250 ok")
		}
	}
}

// wait returns the mails kept so far, waiting up to wait for the first.
func (s *smtpSink) wait(ctx context.Context, wait time.Duration) string {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		got, more := strings.Join(s.got, "\n----\n"), s.more
		s.mu.Unlock()
		if got != "" {
			return got
		}
		select {
		case <-more:
		case <-timer.C:
			return ""
		case <-ctx.Done():
			return ""
		}
	}
}
