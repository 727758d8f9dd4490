package relay

import (
	"context"
	"os"
	"testing"

	"github.com/egohost/egohost/nativemsg"
)

// BenchmarkRelayEcho times one frame from the service through the relay
// to the browser's side and back (the browser's side echoes it, as the
// extension's echo op does): the relay's own share of a relayed call,
// with real pipes for stdin and stdout and a real unix socket.
func BenchmarkRelayEcho(b *testing.B) {
	sock := socketPath(b)
	ln := listen(b, sock)
	inR, inW, err := os.Pipe() // the relay's stdin: what the browser writes
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe() // the relay's stdout: what the browser reads
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() {
		ran <- Run(ctx, inR, outW, Options{Origin: testOrigin, AllowedIDs: []string{testID}, Socket: sock})
	}()
	defer func() {
		cancel()
		inW.Close()
		<-ran
		outR.Close()
	}()
	go func() { // the browser: every frame back as it came
		r, w := nativemsg.NewReader(outR, 64<<20), nativemsg.NewWriter(inW, 64<<20)
		for {
			msg, err := r.Read()
			if err != nil || w.Write(msg) != nil {
				return
			}
		}
	}()
	conn, err := ln.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	r, w := nativemsg.NewReader(conn, 64<<20), nativemsg.NewWriter(conn, 64<<20)
	if _, err := r.Read(); err != nil { // the handshake
		b.Fatal(err)
	}
	if _, err := r.Read(); err != nil { // the relay's "connected" event, echoed
		b.Fatal(err)
	}
	msg := []byte(`{"id":1,"result":{"result":{"type":"number","value":1,"description":"1"}}}`)
	b.ResetTimer()
	for b.Loop() {
		if err := w.Write(msg); err != nil {
			b.Fatal(err)
		}
		if _, err := r.Read(); err != nil {
			b.Fatal(err)
		}
	}
}
