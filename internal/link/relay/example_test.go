package relay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

	"github.com/egohost/egohost/internal/link/relay"
	"github.com/egohost/egohost/nativemsg"
)

func Example() {
	dir, _ := os.MkdirTemp("", "egr")
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "relay.sock")

	// A stand-in for the service: read the handshake and one request,
	// answer it, then wait for the relay to hang up.
	ln, _ := net.Listen("unix", sock)
	defer ln.Close()
	seen := make(chan string, 3)
	go func() {
		defer close(seen)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		r, w := nativemsg.NewReader(conn, 1<<20), nativemsg.NewWriter(conn, nativemsg.MaxHostFrame)
		hello, _ := r.Read()
		seen <- "handshake " + string(hello[:32]) + "…"
		req, _ := r.Read()
		seen <- "request " + string(req)
		_ = w.Write([]byte(`{"id":1,"result":{"pong":true}}`))
		_, err = r.Read()
		seen <- fmt.Sprint("then ", err)
	}()

	// Chrome's side: stdin and stdout of the relay.
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- relay.Run(context.Background(), stdinR, stdoutW, relay.Options{
			Origin:     "chrome-extension://aokapgkciafkaelljglcdibalbfomkdb/",
			AllowedIDs: []string{"aokapgkciafkaelljglcdibalbfomkdb"},
			Socket:     sock,
		})
	}()
	fromRelay := nativemsg.NewReader(stdoutR, nativemsg.MaxHostFrame)
	toRelay := nativemsg.NewWriter(stdinW, 64<<20)

	ev, _ := fromRelay.Read()
	var e map[string]any
	_ = json.Unmarshal(ev, &e)
	fmt.Println("browser got event:", e["event"], e["state"])
	_ = toRelay.Write([]byte(`{"id":1,"op":"ping"}`))
	reply, _ := fromRelay.Read()
	fmt.Printf("browser got: %s\n", reply)

	stdinW.Close() // Chrome closes the port: the relay ends cleanly
	fmt.Println("relay returned:", <-done)
	for s := range seen {
		fmt.Println("service saw:", s)
	}
	// Output:
	// browser got event: relay connected
	// browser got: {"id":1,"result":{"pong":true}}
	// relay returned: <nil>
	// service saw: handshake {"relay":"hello","origin":"chrom…
	// service saw: request {"id":1,"op":"ping"}
	// service saw: then EOF
}
