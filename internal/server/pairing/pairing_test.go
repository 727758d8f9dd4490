package pairing

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseScopes(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    []Scope
		wantErr bool
	}{
		{"none is space", nil, []Scope{Space}, false},
		{"comma list and repeats", []string{"read,cdp", "read"}, []Scope{CDP, Read}, false},
		{"all", []string{"space", "read", "all-tabs", "cdp"}, []Scope{AllTabs, CDP, Read, Space}, false},
		{"unknown", []string{"root"}, nil, true},
		{"blank parts", []string{" , read ,"}, []Scope{Read}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseScopes(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("got error %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("scopes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGrants(t *testing.T) {
	tests := []struct {
		scopes []Scope
		need   Need
		want   bool
	}{
		{[]Scope{Read}, NeedRead, true},
		{[]Scope{Read}, NeedAct, false},
		{[]Scope{Read, AllTabs}, NeedAct, false},
		{[]Scope{Space}, NeedAct, true},
		{[]Scope{Space}, NeedCDP, false},
		{[]Scope{CDP}, NeedCDP, true},
		{[]Scope{Space, AllTabs, CDP}, NeedOwner, false},
		{nil, NeedNone, true},
		{nil, NeedRead, false},
	}
	for _, tt := range tests {
		if got := Grants(tt.scopes, tt.need); got != tt.want {
			t.Errorf("Grants(%v, %v): got %v, want %v", tt.scopes, tt.need, got, tt.want)
		}
	}
}

func TestRules(t *testing.T) {
	deny := Rules{Deny: []string{"*.bank.example", "https://mail.example"}}
	allow := Rules{Allow: []string{"*.example.com", "localhost"}}
	both := Rules{Allow: []string{"*"}, Deny: []string{"evil.example"}}
	tests := []struct {
		name  string
		rules Rules
		url   string
		want  bool
	}{
		{"deny subdomain", deny, "https://www.bank.example/login", false},
		{"deny the base host too", deny, "http://bank.example:8080/", false},
		{"not a suffix match", deny, "https://notbank.example/", true},
		{"deny with scheme", deny, "https://mail.example/inbox", false},
		{"scheme must match", deny, "http://mail.example/inbox", true},
		{"case", deny, "https://WWW.Bank.Example/", false},
		{"allow listed", allow, "https://docs.example.com/", true},
		{"allow port ignored", allow, "http://localhost:8080/x", true},
		{"allow others refused", allow, "https://other.test/", false},
		{"about:blank always", allow, "about:blank", true},
		{"data: not in allow", allow, "data:text/html,hi", false},
		{"deny wins over allow *", both, "https://evil.example/", false},
		{"allow *", both, "https://fine.example/", true},
		{"empty rules", Rules{}, "https://anything/", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, why := tt.rules.Permits(tt.url); got != tt.want {
				t.Errorf("Permits(%q): got %v (%s), want %v", tt.url, got, why, tt.want)
			}
		})
	}
	for _, bad := range []string{"", "*.*.example", "example.com/path", "ex*ample.com", "example.com:443"} {
		if err := (Rules{Deny: []string{bad}}).CheckPatterns(); err == nil {
			t.Errorf("pattern %q: got no error, want one", bad)
		}
	}
}

func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://a.example:8443/x?y#z": "https://a.example:8443",
		"about:blank":                  "about:blank",
		"":                             "",
		"not a url":                    "",
	} {
		if got := Origin(in); got != want {
			t.Errorf("Origin(%q): got %q, want %q", in, got, want)
		}
	}
}

func TestStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agents.json")
	now := func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) }
	s, err := Open(path, now)
	if err != nil {
		t.Fatal(err)
	}
	tok, a, err := s.Add("bot", []Scope{Read}, &Process{PID: 42, Exe: "/bin/bot"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Hash != HashToken(tok) {
		t.Error("the stored hash is not the token's")
	}
	b, _ := os.ReadFile(path)
	if strings.Contains(string(b), tok) {
		t.Error("the file holds the token")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", st.Mode().Perm())
	}
	// A fresh store reads it back.
	s2, err := Open(path, now)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s2.Lookup(tok)
	if err != nil || got.Name != "bot" || !slices.Equal(got.Scopes, []Scope{Read}) {
		t.Fatalf("Lookup: got %+v, %v", got, err)
	}
	if _, err := s2.Lookup(tok[:len(tok)-1] + "0"); !errors.Is(err, ErrUnknownToken) && tok[len(tok)-1] != '0' {
		t.Errorf("a wrong secret: got %v, want ErrUnknownToken", err)
	}
	// Pairing the name again revokes the old token.
	tok2, _, err := s2.Add("bot", []Scope{Space}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Lookup(tok); !errors.Is(err, ErrRevoked) {
		t.Errorf("the old token after re-pairing: got %v, want ErrRevoked", err)
	}
	if _, err := s2.Revoke("bot"); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Lookup(tok2); !errors.Is(err, ErrRevoked) {
		t.Errorf("after revoke: got %v, want ErrRevoked", err)
	}
	if _, err := s2.Revoke("bot"); !errors.Is(err, ErrNoAgent) {
		t.Errorf("revoking twice: got %v, want ErrNoAgent", err)
	}
	for _, bad := range []string{"no spaces", "owner", "Person", "-x", strings.Repeat("a", 65)} {
		if _, _, err := s2.Add(bad, nil, nil); err == nil {
			t.Errorf("name %q was accepted", bad)
		}
	}
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestPendingDecideAndLimits(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	p := NewPending(Limits{MaxPending: 2, Burst: 3, Every: time.Minute}, c.now, nil)
	ctx := context.Background()
	res := make(chan error, 1)
	seven := func() *Process { return &Process{PID: 7} }
	go func() {
		_, err := p.Ask(ctx, Request{Name: "a", Scopes: []Scope{Read}}, time.Minute, seven)
		res <- err
	}()
	waitList(t, p, 1)
	if got := p.List()[0]; got.Process == nil || got.Process.PID != 7 {
		t.Errorf("the request's process: got %+v, want pid 7", got.Process)
	}
	// The same name again: busy.
	if _, err := p.Ask(ctx, Request{Name: "a"}, time.Minute, seven); !errors.Is(err, ErrBusy) {
		t.Errorf("second request for a: got %v, want ErrBusy", err)
	}
	if _, err := p.Decide("a", Answer{Approve: true}); err != nil {
		t.Fatal(err)
	}
	if err := <-res; err != nil {
		t.Errorf("approved: got %v, want nil", err)
	}
	if _, err := p.Decide("a", Answer{Approve: true}); !errors.Is(err, ErrNoRequest) {
		t.Errorf("deciding again: got %v, want ErrNoRequest", err)
	}
	// Burst spent (a, a again, and now b): the rate limit refuses c until a minute passes.
	go func() {
		_, err := p.Ask(ctx, Request{Name: "b"}, time.Minute, seven)
		res <- err
	}()
	waitList(t, p, 1)
	if _, err := p.Ask(ctx, Request{Name: "c"}, time.Minute, seven); !errors.Is(err, ErrBusy) {
		t.Errorf("over the burst: got %v, want ErrBusy", err)
	}
	if _, err := p.Decide("b", Answer{}); err != nil {
		t.Fatal(err)
	}
	if err := <-res; !errors.Is(err, ErrDenied) {
		t.Errorf("denied: got %v, want ErrDenied", err)
	}
	c.t = c.t.Add(time.Minute)
	if _, err := p.Ask(ctx, Request{Name: "c"}, time.Millisecond, seven); !errors.Is(err, ErrExpired) {
		t.Errorf("after a minute, unanswered: got %v, want ErrExpired", err)
	}
}

// A flood of requests from one process cannot fill every waiting slot:
// it gets one, another process still gets in; another OS user's
// processes (not visible: counted by uid) get one between them.
func TestPendingFloodFromOneProcess(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	p := NewPending(DefaultLimits, c.now, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ask := func(name string, proc *Process) chan error {
		res := make(chan error, 1)
		go func() {
			_, err := p.Ask(ctx, Request{Name: name, Scopes: []Scope{Space}}, time.Minute, func() *Process { return proc })
			res <- err
		}()
		return res
	}
	attacker := &Process{PID: 666, Exe: "/usr/bin/evil", UID: 1000}
	first := ask("flood0", attacker)
	waitList(t, p, 1)
	for i := 1; i < 6; i++ {
		if err := <-ask(fmt.Sprintf("flood%d", i), attacker); !errors.Is(err, ErrBusy) {
			t.Fatalf("the attacker's request %d: got %v, want ErrBusy", i, err)
		}
	}
	other := ask("other", &Process{PID: 1000, Exe: "/usr/bin/ok", UID: 0})
	waitList(t, p, 2)
	stranger := ask("stranger1", &Process{UID: 4242})
	waitList(t, p, 3)
	if err := <-ask("stranger2", &Process{UID: 4242}); !errors.Is(err, ErrBusy) {
		t.Errorf("a second request of another OS user: got %v, want ErrBusy", err)
	}
	var names []string
	for _, r := range p.List() {
		names = append(names, r.Name)
	}
	if diff := cmp.Diff([]string{"flood0", "other", "stranger1"}, names); diff != "" {
		t.Errorf("waiting (-want +got):\n%s", diff)
	}
	cancel()
	for _, ch := range []chan error{first, other, stranger} {
		<-ch
	}
}

// The person may grant fewer scopes than asked, never others.
func TestPendingNarrowedGrant(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	p := NewPending(DefaultLimits, c.now, nil)
	type answer struct {
		req Request
		err error
	}
	res := make(chan answer, 1)
	go func() {
		r, err := p.Ask(context.Background(), Request{Name: "a", Scopes: []Scope{CDP, Space}}, time.Minute, nil)
		res <- answer{r, err}
	}()
	waitList(t, p, 1)
	if _, err := p.Decide("a", Answer{Approve: true, Scopes: []Scope{AllTabs}}); err == nil {
		t.Error("granting a scope not asked for: got nil, want an error")
	}
	if _, err := p.Decide("a", Answer{Approve: true, Scopes: []Scope{}}); err == nil {
		t.Error("granting no scope: got nil, want an error")
	}
	if _, err := p.Decide("a", Answer{Approve: true, Scopes: []Scope{Space}}); err != nil {
		t.Fatal(err)
	}
	got := <-res
	if got.err != nil || !slices.Equal(got.req.Scopes, []Scope{Space}) {
		t.Errorf("narrowed grant: got %v %v, want [space] nil", got.req.Scopes, got.err)
	}
}

func waitList(t *testing.T, p *Pending, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(p.List()) != n {
		if time.Now().After(deadline) {
			t.Fatalf("pending list: got %d, want %d", len(p.List()), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestSocketInode(t *testing.T) {
	const table = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:B8ED 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1 0000000000000000 100 0 0 10 0
   1: 0100007F:D5A2 0100007F:B8ED 01 00000000:00000000 00:00000000 00000000  1000        0 222 1 0000000000000000 20 4 30 10 -1
`
	inode, uid, err := socketInode(strings.NewReader(table), netip.MustParseAddrPort("127.0.0.1:54690"))
	if err != nil || inode != "222" || uid != 1000 {
		t.Errorf("got inode %q uid %d err %v, want 222 1000 nil", inode, uid, err)
	}
	ap, err := parseProcAddr("00000000000000000000000001000000:1F90")
	if err != nil || ap != netip.MustParseAddrPort("[::1]:8080") {
		t.Errorf("IPv6: got %v %v, want [::1]:8080", ap, err)
	}
}

// The process behind a real loopback connection of this test is this
// test (Linux only: elsewhere the OS is not asked).
func TestLookupPeer(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp on this OS")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	p := LookupPeer(server.RemoteAddr().String())
	exe, _ := os.Executable()
	if p == nil || p.PID != os.Getpid() || p.Exe != exe || p.UID != os.Getuid() {
		t.Errorf("got %+v, want pid %d exe %s uid %d", p, os.Getpid(), exe, os.Getuid())
	}
}

// FuzzPairingMessages: whatever a pairing request or a token says, the
// checks neither panic nor accept what they should not.
func FuzzPairingMessages(f *testing.F) {
	f.Add("bot", "read,cdp", "egoa_0123456789abcdef_"+strings.Repeat("ab", 32), "https://x.bank.example/", "*.bank.example")
	f.Add("", "", "", "", "")
	f.Add("a b", "root", "egoa__", "about:blank", "*")
	f.Add(strings.Repeat("n", 70), ",,,", "egoa_zz_zz", "http://[::1]:80/", "https://*.x")
	f.Fuzz(func(t *testing.T, name, scopes, token, url, pattern string) {
		if CheckName(name) == nil && (len(name) > 64 || strings.ContainsAny(name, " /\n\"")) {
			t.Errorf("CheckName accepted %q", name)
		}
		if sc, err := ParseScopes([]string{scopes}); err == nil {
			for _, s := range sc {
				if !slices.Contains(allScopes, s) {
					t.Errorf("ParseScopes(%q) gave %q", scopes, s)
				}
			}
		}
		if id, ok := tokenID(token); ok && (len(id) != 16 || !strings.HasPrefix(token, "egoa_"+id+"_")) {
			t.Errorf("tokenID(%q) = %q", token, id)
		}
		r := Rules{Deny: []string{pattern}}
		if r.CheckPatterns() == nil {
			ok, _ := r.Permits(url)
			if pattern == "*" && ok && !strings.HasPrefix(strings.ToLower(url), "about:") {
				t.Errorf("deny * permitted %q", url)
			}
		}
		_ = Origin(url)
		_, _ = parseProcAddr(token)
	})
}
