package service

import (
	"context"
	"encoding/json"
	"flag"
	"strings"
	"testing"

	"github.com/egohost/egohost/protocol"
)

var largeParams = flag.Int("large-params", 1<<20, "BenchmarkCallLargeParams: the bytes of debug.echo's data")

// BenchmarkCallLargeParams: what the service does with a call's large
// params before its handler answers: the member parse, the strict decode,
// the grant check and the audit line. A debug.echo one byte over its
// bound, refused by the handler, so that no browser is needed; the
// envelope's decode and the frame's read are not in it. 1 MiB by default;
// debug.echo's bound, docs/benchmarks.md's figure:
//
//	go test ./internal/server/service -run '^$' -bench CallLargeParams -benchtime 10x -args -large-params 16777217
func BenchmarkCallLargeParams(b *testing.B) {
	s := benchService(b, nil)
	params, err := json.Marshal(protocol.DebugEchoParams{Data: strings.Repeat("x", *largeParams)})
	if err != nil {
		b.Fatal(err)
	}
	a := &agent{s: s, grant: ownerGrant}
	want := protocol.CodeTooLarge
	if *largeParams <= 16<<20 {
		want = protocol.CodeNoBrowser // under the bound: the handler asks for a browser, and there is none
	}
	b.SetBytes(int64(len(params)))
	for b.Loop() {
		_, err := s.call(context.Background(), a, nil, protocol.MethodDebugEcho, params)
		if pe, ok := err.(*protocol.Error); !ok || pe.Code != want {
			b.Fatalf("got %v, want %v", err, want)
		}
	}
}

// benchService is a service for a benchmark of its calls in process: no
// browser, no listener started; modify (if not nil) changes its options.
func benchService(b *testing.B, modify func(*Options)) *Service {
	b.Helper()
	dir := b.TempDir()
	opts := Options{Listen: "127.0.0.1:0", Socket: dir + "/relay.sock", StateDir: dir, TokenFile: dir + "/token", AllowedIDs: []string{testExt}}
	if modify != nil {
		modify(&opts)
	}
	s, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.audit.Close() })
	return s
}
