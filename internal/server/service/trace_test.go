package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/internal/server/trace"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

func traceService(t testing.TB) *Service {
	t.Helper()
	return traceServiceIn(t, t.TempDir(), nil)
}

// traceServiceIn is a service on state dir dir that is not served, its
// options changed by modify (if not nil) first; the test's end stops its
// trace and closes it.
func traceServiceIn(t testing.TB, dir string, modify func(*Options)) *Service {
	t.Helper()
	opts := Options{Listen: "127.0.0.1:0", Socket: dir + "/relay.sock", StateDir: dir, TokenFile: dir + "/token", AllowedIDs: []string{testExt}, ReconnectWait: time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if modify != nil {
		modify(&opts)
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.traces.Stop()
		s.audit.Close()
		s.ln.Close()
		s.httpLn.Close()
	})
	return s
}

// A traced agent's calls are steps, as the audit log has them: a fill's
// text (a password) is never in the file, only its length. Another
// agent's calls and the owner's own methods are not traced.
func TestTraceRecordsCallsMasked(t *testing.T) {
	s := traceService(t)
	st, err := s.owner().StartTrace([]string{"bot"}, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(st.File) != filepath.Join(s.opts.DataDir, TracesDir) || filepath.Base(st.File) != "t1.jsonl" {
		t.Errorf("got file %s, want t1.jsonl in the data dir's traces", st.File)
	}
	bot := &agent{s: s, grant: grant{kind: grantPaired, name: "bot", scopes: []pairing.Scope{pairing.Space}}}
	other := &agent{s: s, grant: grant{kind: grantPaired, name: "other", scopes: []pairing.Scope{pairing.Space}}}
	owner := &agent{s: s, grant: ownerGrant}
	const secret = "hunter2-correct-horse"
	fill := json.RawMessage(`{"target":"label=Password","text":"` + secret + `"}`)
	ctx := context.Background()
	s.call(ctx, bot, nil, protocol.MethodFill, fill)
	s.call(ctx, bot, nil, protocol.MethodType, json.RawMessage(`{"text":"`+secret+`"}`))
	s.call(ctx, other, nil, protocol.MethodFill, fill)
	s.call(ctx, owner, nil, protocol.MethodTraceList, nil)
	res, ok, err := s.traces.Stop()
	if !ok || err != nil {
		t.Fatalf("stop: got %v, %v", ok, err)
	}
	if res.Steps != 2 {
		t.Errorf("got %d steps, want 2 (bot's fill and type)", res.Steps)
	}
	raw, err := os.ReadFile(st.File)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("hunter2")) {
		t.Errorf("the typed text is in the trace:\n%s", raw)
	}
	tr, err := trace.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Steps) != 2 {
		t.Fatalf("got %d steps, want 2", len(tr.Steps))
	}
	c := tr.Steps[0].Call
	if c.Method != protocol.MethodFill || c.Agent != "bot" || c.Target != "label=Password" || c.Length == nil || *c.Length != len(secret) || c.Result == "ok" || c.Result == "" {
		t.Errorf("got step %+v, want bot's fill of label=Password, length %d, failed (no browser)", c, len(secret))
	}
	if tr.Steps[0].Error == "" {
		t.Error("got no error message for the failed fill")
	}
}

// With no trace on, a call writes nothing to the traces folder.
func TestTraceOffRecordsNothing(t *testing.T) {
	s := traceService(t)
	bot := &agent{s: s, grant: grant{kind: grantPaired, name: "bot", scopes: []pairing.Scope{pairing.Space}}}
	s.call(context.Background(), bot, nil, protocol.MethodFill, json.RawMessage(`{"target":"#a","text":"x"}`))
	if ents, err := os.ReadDir(filepath.Join(s.opts.DataDir, TracesDir)); !errors.Is(err, os.ErrNotExist) || len(ents) > 0 {
		t.Errorf("got %v, %v in the traces folder, want none", ents, err)
	}
}

// The trace methods are the owner's: a paired agent, whatever its
// scopes, gets scope_denied, and no trace starts.
func TestTraceOwnerOnly(t *testing.T) {
	s := traceService(t)
	for _, scopes := range [][]pairing.Scope{{pairing.Space}, {pairing.Space, pairing.CDP, pairing.AllTabs}} {
		a := &agent{s: s, grant: grant{kind: grantPaired, name: "bot", scopes: scopes}}
		for _, m := range []string{protocol.MethodTraceStart, protocol.MethodTraceStop, protocol.MethodTraceList} {
			_, err := s.call(context.Background(), a, nil, m, json.RawMessage(`{"out":"x"}`))
			if wireerr.CodeOf(err) != protocol.CodeScopeDenied {
				t.Errorf("%s by a paired agent with %v: got %v, want scope_denied", m, scopes, err)
			}
		}
	}
	if s.traces.Current() != nil {
		t.Error("a trace started")
	}
	// The owner: start, a second start refused, stop, a second stop refused.
	owner := &agent{s: s, grant: ownerGrant}
	if _, err := s.call(context.Background(), owner, nil, protocol.MethodTraceStart, json.RawMessage(`{"out":"x"}`)); err != nil {
		t.Fatalf("start: %v", err)
	}
	if _, err := s.call(context.Background(), owner, nil, protocol.MethodTraceStart, nil); wireerr.CodeOf(err) != protocol.CodeInvalidParams {
		t.Errorf("second start: got %v, want invalid_params", err)
	}
	if _, err := s.call(context.Background(), owner, nil, protocol.MethodTraceStop, nil); err != nil {
		t.Errorf("stop: %v", err)
	}
	if _, err := s.call(context.Background(), owner, nil, protocol.MethodTraceStop, nil); wireerr.CodeOf(err) != protocol.CodeInvalidParams {
		t.Errorf("second stop: got %v, want invalid_params", err)
	}
	if _, err := s.call(context.Background(), owner, nil, protocol.MethodTraceStart, json.RawMessage(`{"out":"x"}`)); wireerr.CodeOf(err) != protocol.CodeForbiddenPath {
		t.Errorf("start over an existing file: got %v, want forbidden_path", err)
	}
	res, err := s.call(context.Background(), owner, nil, protocol.MethodTraceList, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l := res.(protocol.TraceListResult); len(l.Traces) != 1 || l.Traces[0].Name != "x.jsonl" || l.Recording != nil {
		t.Errorf("list: got %+v, want x.jsonl, none recording", l)
	}
}

// BenchmarkCallTraced: what a trace adds to a call that reaches no tab
// (a step line written; an action's screenshots come on top), beside
// BenchmarkCallOverhead (no trace on: one atomic load).
func BenchmarkCallTraced(b *testing.B) {
	s := traceService(b)
	noop := typed(func(context.Context, *call, protocol.ElementParams) (any, error) { return nil, nil })
	s.methods["bench.audited"] = method{name: "bench.audited", need: pairing.NeedRead, handler: noop}
	params := json.RawMessage(`{"tab":7,"target":"role=button[name=\"Save\"]"}`)
	a := &agent{s: s, grant: grant{kind: grantPaired, name: "bot", scopes: []pairing.Scope{pairing.Space}}}
	for _, agents := range [][]string{{"other"}, {"bot"}} {
		b.Run("trace-"+agents[0], func(b *testing.B) {
			if _, err := s.owner().StartTrace(agents, ""); err != nil {
				b.Fatal(err)
			}
			defer s.traces.Stop()
			for b.Loop() {
				if _, err := s.call(context.Background(), a, nil, "bench.audited", params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A trace of every agent: paired agents and owner-token agents that
// named themselves, not the person (the popup, the owner's CLI without a
// name). trace.enabled starts one with the service.
func TestTraceEveryAgent(t *testing.T) {
	s := traceServiceIn(t, t.TempDir(), func(o *Options) { o.TraceEnabled = true })
	if s.traces.Current() == nil {
		t.Fatal("trace.enabled: no trace started")
	}
	named := &agent{s: s, grant: ownerGrant}
	named.setName("codex")
	callers := map[string]*agent{
		"bot":    {s: s, grant: grant{kind: grantPaired, name: "bot", scopes: []pairing.Scope{pairing.Space}}},
		"codex":  named,
		"owner":  {s: s, grant: ownerGrant},
		"person": {s: s, grant: personGrant, person: true},
	}
	for _, a := range callers {
		s.call(context.Background(), a, nil, protocol.MethodTabsList, nil)
	}
	path := s.traces.Current().Status.File
	if _, _, err := s.traces.Stop(); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range tr.Steps {
		got = append(got, st.Call.Agent)
	}
	slices.Sort(got)
	if strings.Join(got, ",") != "bot,codex" {
		t.Errorf("got steps of %v, want bot's and codex's", got)
	}
}

// trace.max_age: the service deletes the traces older than it as it
// starts, and logs each (trace.Recorder.Prune; its test tells what stays).
func TestTraceMaxAgeAtStart(t *testing.T) {
	const maxAge = 7 * 24 * time.Hour
	old := time.Now().Add(-maxAge - time.Hour)
	state := t.TempDir()
	dir := filepath.Join(state, TracesDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "shop.jsonl")
	w, err := trace.Create(path, trace.Header{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	traceServiceIn(t, state, func(o *Options) {
		o.TraceMaxAge = maxAge
		o.Logger = slog.New(slog.NewTextHandler(&log, nil))
	})
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after the start, stat %s: %v, want it deleted", path, err)
	}
	if !strings.Contains(log.String(), "trace deleted") || !strings.Contains(log.String(), "shop.jsonl") {
		t.Errorf("log %q does not tell shop.jsonl was deleted", log.String())
	}
}
