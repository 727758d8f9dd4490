package service

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/internal/server/audit"
	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/protocol"
)

// Issue 22 item 5, as reported: a caller without a token sends clicks
// with 4 MiB targets. Before, each was audited with its whole target:
// the log grew by megabytes and `egohost audit --last 5` read nothing
// (a line over the reader's cap hid every later line). Now a connection
// without a token gets no audit line at all (counted instead), its
// messages are capped small, and it is closed after a few refusals; the
// history before stays readable.
func TestTokenlessCannotBuryTheAuditLog(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f.s.writeAudit(audit.Entry{Agent: "bot", Method: "click", Tab: 3, Target: "#before", Result: "ok"})

	huge := strings.Repeat("A", 4<<20)
	for range 6 {
		c, err := client.Dial(ctx, f.s.Addr(), "", client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		err = c.Call(ctx, protocol.MethodClick, map[string]any{"tab": 3, "target": huge}, nil)
		if err == nil {
			t.Fatal("a click without a token succeeded")
		}
		c.Close()
	}
	// Small calls, many, on one connection: refused, and the connection
	// is closed after tokenlessStrikes of them.
	c := f.unpaired(t)
	var lost bool
	for i := range 3 * tokenlessStrikes {
		err := c.Call(ctx, protocol.MethodClick, map[string]any{"tab": 3, "target": "#x\n\x1b[2J"}, nil)
		if errors.Is(err, client.ErrConnectionLost) || errors.Is(err, client.ErrClosed) {
			lost = true
			if i < tokenlessStrikes-1 {
				t.Errorf("closed after %d refusals, want %d", i+1, tokenlessStrikes)
			}
			break
		}
		wantCode(t, err, protocol.CodeUnauthorized)
	}
	if !lost {
		t.Errorf("a connection without a token stayed open after %d refused calls", 3*tokenlessStrikes)
	}

	st, err := os.Stat(f.s.auditPath())
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > 4<<10 {
		t.Errorf("audit log is %d bytes after the attack, want the one line before it", st.Size())
	}
	read, err := audit.Scan(f.s.auditPath(), audit.Filter{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(read.Entries) != 1 || read.Entries[0].Target != "#before" {
		t.Errorf("audit --last 5: got %+v, want the line before the attack", read.Entries)
	}
	var ping protocol.PingResult
	if err := f.agent(t).Call(ctx, protocol.MethodPing, nil, &ping); err != nil {
		t.Fatal(err)
	}
	if ping.Tokenless == nil || ping.Tokenless.Refused < tokenlessStrikes+6 || ping.Tokenless.Connections < 7 {
		t.Errorf("the owner's ping: got %+v, want the refusals counted (at least %d, of 7 connections)", ping.Tokenless, tokenlessStrikes+6)
	}
}

// Every field an agent controls is capped in the log and in the popup's
// recent calls, whoever the agent is (here a paired one, whose refused
// call is audited).
func TestAuditFieldsAreCapped(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	bot, _ := f.pairAgent(t, "bot", pairing.Read)
	long := "#a\n2026-01-01 owner click ok\x1b[31m" + strings.Repeat("é", 50<<10)
	err := bot.Call(ctx, protocol.MethodClick, map[string]any{"tab": 3, "target": long}, nil)
	wantCode(t, err, protocol.CodeScopeDenied)
	err = bot.Call(ctx, protocol.MethodPress, map[string]any{"tab": 3, "key": strings.Repeat("K", 1<<20)}, nil)
	wantCode(t, err, protocol.CodeScopeDenied)
	err = bot.Call(ctx, protocol.MethodGoto, map[string]any{"tab": 3, "url": "https://example.com/" + strings.Repeat("p", 1<<20)}, nil)
	wantCode(t, err, protocol.CodeScopeDenied)

	entries, err := audit.Read(f.s.auditPath(), audit.Filter{Agent: "bot"})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Fatalf("got %d lines, want 3: %+v", len(entries), entries)
	}
	check := func(where string, e audit.Entry) {
		t.Helper()
		for name, v := range map[string]string{"target": e.Target, "key": e.Key, "url": e.URL} {
			if len(v) > audit.MaxField || !utf8.ValidString(v) {
				t.Errorf("%s: %s of %d bytes (valid UTF-8: %v), want at most %d", where, name, len(v), utf8.ValidString(v), audit.MaxField)
			}
		}
	}
	for _, e := range entries {
		check("log", e)
	}
	if !strings.Contains(entries[0].Target, "bytes in all)") {
		t.Errorf("a cut target is not marked: %q", entries[0].Target)
	}
	for _, e := range f.s.recent.Last(recentPerAgent)["bot"] {
		check("recent calls", e)
	}
	if st, _ := os.Stat(f.s.auditPath()); st.Size() > 4<<10 {
		t.Errorf("audit log is %d bytes for three calls", st.Size())
	}
}

// Item 11: a connection without a token that names itself in the
// X-Egohost-Agent header is nobody: it does not count as that agent
// being connected (its spaces would not go idle).
func TestTokenlessAgentHeaderIsNobody(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, f.s.Addr(), "", client.Options{Agent: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	wantCode(t, c.Call(ctx, protocol.MethodHello, protocol.HelloParams{Agent: "claude"}, nil), protocol.CodeUnauthorized)
	if f.s.connected("claude") {
		t.Error("a connection without a token counts as agent claude being connected")
	}
	owner, err := f.agentNamed(t, "claude")
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Call(ctx, protocol.MethodPing, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !f.s.connected("claude") {
		t.Error("the owner token naming itself claude: not connected, want connected")
	}
}

// askPair starts a pair.request without a token and returns its result
// channel once the request waits for the person.
func askPair(t *testing.T, ctx context.Context, f *fixture, owner *client.Client, p protocol.PairRequestParams) (protocol.PairingRequest, chan error, chan *protocol.PairRequestResult) {
	t.Helper()
	errc := make(chan error, 1)
	resc := make(chan *protocol.PairRequestResult, 1)
	go func() {
		res, err := client.Pair(ctx, f.s.Addr(), p, client.Options{})
		resc <- res
		errc <- err
	}()
	return waitPending(t, owner, p.Name), errc, resc
}

// Item 9: a request under a name that is paired says so, and approving it
// without replace is refused (the old token keeps working); with replace
// the old token is revoked. A grant can be narrowed. Every decision, and
// the request with the process that asked, is in the audit log.
func TestPairingNeverSilentlyReplaces(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	owner := f.agent(t)
	old, _ := f.pairAgent(t, "bot", pairing.Read)

	req, errc, resc := askPair(t, ctx, f, owner, protocol.PairRequestParams{Name: "bot", Scopes: []string{"space", "cdp"}})
	if req.Replaces == nil || req.Replaces.Name != "bot" || strings.Join(req.Replaces.Scopes, ",") != "read" {
		t.Errorf("the request's replaces: got %+v, want bot's pairing with read", req.Replaces)
	}
	err := owner.Call(ctx, protocol.MethodAgentsApprove, protocol.AgentsApproveParams{Name: "bot"}, nil)
	wantCode(t, err, protocol.CodeInvalidParams)
	if !strings.Contains(err.Error(), "replace") {
		t.Errorf("approve without replace: %v, want it to say it would replace", err)
	}
	if err := old.Call(ctx, protocol.MethodPing, nil, nil); err != nil {
		t.Fatalf("the old token after a refused approve: %v", err)
	}
	// Narrowed, with replace: only space is granted; the old token is cut.
	err = owner.Call(ctx, protocol.MethodAgentsApprove, protocol.AgentsApproveParams{Name: req.ID, Scopes: []string{"space"}, Replace: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := <-resc
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Scopes, []string{"space"}) {
		t.Errorf("granted: got %v, want [space]", res.Scopes)
	}
	if _, err := client.Dial(ctx, f.s.Addr(), res.Token, client.Options{}); err != nil {
		t.Errorf("the new token: %v", err)
	}

	// Denied and revoked, for the log.
	_, errc, _ = askPair(t, ctx, f, owner, protocol.PairRequestParams{Name: "other"})
	if err := owner.Call(ctx, protocol.MethodAgentsDeny, protocol.AgentNameParams{Name: "other"}, nil); err != nil {
		t.Fatal(err)
	}
	wantCode(t, <-errc, protocol.CodePairingDenied)
	if err := owner.Call(ctx, protocol.MethodAgentsRevoke, protocol.AgentNameParams{Name: "bot"}, nil); err != nil {
		t.Fatal(err)
	}

	entries, err := audit.Read(f.s.auditPath(), audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Agent+" "+e.Method+" "+e.Target+" "+strings.Join(e.Scopes, ",")+" "+e.Result)
	}
	want := []string{
		"owner agents.approve bot  invalid_params",
		"owner agents.approve bot space ok",
		"(unpaired) pair.request bot space approved",
		"owner agents.deny other  ok",
		"(unpaired) pair.request other space denied",
		"owner agents.revoke bot  ok",
	}
	// The deny and the request it answers end at the same moment: their
	// two lines come in either order.
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, e := range entries {
		if e.Method == protocol.MethodPairRequest && osHasPeers() && !strings.Contains(e.Process, "pid") {
			t.Errorf("pair.request line without the process that asked: %+v", e)
		}
	}
}

func osHasPeers() bool {
	_, err := os.Stat("/proc/net/tcp")
	return err == nil
}
