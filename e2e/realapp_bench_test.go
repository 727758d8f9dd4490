package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/protocol"
)

// dokuWiki serves a private copy of Debian's DokuWiki (`apt-get install
// dokuwiki php-cli`) with `php -S` on loopback: its own configuration (no
// ACL, so anyone edits) and data folder, so the system's wiki is not
// touched. It skips the benchmark when DokuWiki or PHP is not installed.
func dokuWiki(tb testing.TB) string {
	tb.Helper()
	const docRoot, conf, data = "/usr/share/dokuwiki", "/etc/dokuwiki", "/var/lib/dokuwiki/data"
	php, err := exec.LookPath("php")
	if err != nil || !exists(docRoot+"/doku.php") || !exists(conf+"/local.php") || !exists(data) {
		tb.Skip("DokuWiki is not installed: apt-get install dokuwiki php-cli")
	}
	dir := tb.TempDir()
	for _, cp := range [][]string{{conf, dir + "/conf"}, {data, dir + "/data"}} {
		if out, err := exec.Command("cp", "-rL", cp[0], cp[1]).CombinedOutput(); err != nil {
			tb.Fatalf("copy %s: %v: %s", cp[0], err, out)
		}
	}
	local, err := os.OpenFile(dir+"/conf/local.php", os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	fmt.Fprintf(local, "\n$conf['useacl'] = 0;\n$conf['savedir'] = '%s/data';\n", dir)
	local.Close()
	prepend := filepath.Join(dir, "prepend.php")
	if err := os.WriteFile(prepend, []byte("<?php define('DOKU_CONF', '"+dir+"/conf/');\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(php, "-d", "auto_prepend_file="+prepend, "-S", addr, "-t", docRoot)
	cmd.Dir = docRoot
	if err := cmd.Start(); err != nil {
		tb.Fatalf("php -S: %v", err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("php -S did not listen on %s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "http://" + addr
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// BenchmarkDokuWikiEdit times an agent's edit of a DokuWiki page, step by
// step, with the default settle, over one agent connection and through
// the CLI (a process per step), alternating: open the editor, fill its
// textarea with 61 characters, save (a click that posts and navigates),
// and follow a link to another page (a click that navigates). Each
// step's result says what its settle waited for. Issue 24 item 7.
//
//	go test -short -run '^$' -bench DokuWikiEdit -benchtime 6x ./e2e/
func BenchmarkDokuWikiEdit(b *testing.B) {
	if b.N == 1 {
		return // the testing package's probe run
	}
	wiki := dokuWiki(b)
	c := startChain(b)
	tab := c.openTab(b, wiki+"/doku.php?id=start")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	text := strings.Repeat("egohost ", 7) + "edit!" // 61 characters
	steps := []struct {
		name string
		conn func() (protocol.ActionResult, error)
		cli  []string
	}{
		{"goto the editor", func() (protocol.ActionResult, error) {
			var r protocol.NavResult
			err := c.agent.Call(ctx, protocol.MethodGoto, protocol.GotoParams{Target: tab, URL: wiki + "/doku.php?id=playground:playground&do=edit"}, &r)
			return protocol.ActionResult{TookMs: r.TookMs}, err
		}, []string{"goto", wiki + "/doku.php?id=playground:playground&do=edit"}},
		{"fill the textarea (61 chars)", func() (protocol.ActionResult, error) {
			var r protocol.ActionResult
			err := c.agent.Call(ctx, protocol.MethodFill, protocol.FillParams{Target: tab, Element: "#wiki__text", Text: text}, &r)
			return r, err
		}, []string{"fill", "#wiki__text", text}},
		{"click Save (navigates)", func() (protocol.ActionResult, error) {
			var r protocol.ActionResult
			err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "role=button[name=/^Save/]"}, &r)
			return r, err
		}, []string{"click", "role=button[name=/^Save/]"}},
		{"click the Sitemap link (navigates)", func() (protocol.ActionResult, error) {
			var r protocol.ActionResult
			err := c.agent.Call(ctx, protocol.MethodClick, protocol.ClickParams{Target: tab, Element: "role=link[name='Sitemap']"}, &r)
			return r, err
		}, []string{"click", "role=link[name='Sitemap']"}},
	}
	runs := min(b.N, 20)
	conn := make([][]float64, len(steps))
	cli := make([][]float64, len(steps))
	settles := make([]string, len(steps))
	for i := -1; i < runs; i++ { // the first round warms up
		for si, st := range steps {
			start := time.Now()
			r, err := st.conn()
			took := time.Since(start)
			if err != nil {
				b.Fatalf("%s over the connection: %v", st.name, err)
			}
			if i >= 0 {
				conn[si] = append(conn[si], ms(took))
				settles[si] = fmt.Sprintf("action %.0f ms, settle %.0f ms for %v", r.TookMs, r.Settled.Ms, r.Settled.For)
			}
		}
		for si, st := range steps {
			start := time.Now()
			_, errOut, code := c.cli(tab, st.cli...)
			took := time.Since(start)
			if code != 0 {
				b.Fatalf("egohost %s: exit %d: %s", strings.Join(st.cli, " "), code, errOut)
			}
			if i >= 0 {
				cli[si] = append(cli[si], ms(took))
			}
		}
	}
	med := func(l []float64) float64 { l = slices.Clone(l); slices.Sort(l); return l[len(l)/2] }
	fmt.Printf("DokuWiki edit, %d rounds (median ms)\n| step | over one connection | `egohost` CLI | the last connection run's result |\n|---|---:|---:|---|\n", runs)
	for si, st := range steps {
		fmt.Printf("| %s | %.0f | %.0f | %s |\n", st.name, med(conn[si]), med(cli[si]), settles[si])
		b.ReportMetric(med(conn[si]), fmt.Sprintf("conn-ms/%d", si))
	}
}
