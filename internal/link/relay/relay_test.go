package relay

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/internal/testkit/sockdir"
	"github.com/egohost/egohost/nativemsg"
)

const (
	testID     = "aokapgkciafkaelljglcdibalbfomkdb"
	testOrigin = "chrome-extension://" + testID + "/"
	// patience bounds every wait in these tests; nothing asserts timing.
	patience = 10 * time.Second
)

// frame returns the wire form of msg.
func frame(msg string) []byte {
	return append(binary.NativeEndian.AppendUint32(nil, uint32(len(msg))), msg...)
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// socketPath returns a fresh unix socket path short enough for every OS.
func socketPath(t testing.TB) string {
	t.Helper()
	return filepath.Join(sockdir.New(t), "s.sock")
}

// harness plays Chrome around one Run.
type harness struct {
	t       *testing.T
	stdin   io.WriteCloser
	stdout  *io.PipeReader
	frames  chan []byte // frames received on stdout
	readErr chan error  // how stdout ended
	done    chan error  // Run's result
	cancel  context.CancelFunc
	logs    *syncBuffer
	result  *error // Run's result once collected

	stdoutBroken bool // the test broke stdout on purpose
}

type harnessOpts struct {
	netPipeStdin bool // stdin is a net.Pipe (deadline support) instead of an io.Pipe
}

func start(t *testing.T, opts Options, ho harnessOpts) *harness {
	t.Helper()
	logs := &syncBuffer{}
	if opts.Origin == "" {
		opts.Origin = testOrigin
	}
	if opts.AllowedIDs == nil {
		opts.AllowedIDs = []string{testID}
	}
	if opts.Backoff == (Backoff{}) {
		opts.Backoff = Backoff{Min: 5 * time.Millisecond, Max: 20 * time.Millisecond}
	}
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))

	var stdinR io.Reader
	var stdinW io.WriteCloser
	if ho.netPipeStdin {
		stdinR, stdinW = net.Pipe()
	} else {
		stdinR, stdinW = io.Pipe()
	}
	stdoutR, stdoutW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{
		t: t, stdin: stdinW, stdout: stdoutR,
		frames: make(chan []byte, 1000), readErr: make(chan error, 1), done: make(chan error, 1),
		cancel: cancel, logs: logs,
	}
	go func() {
		in := nativemsg.NewReader(stdoutR, nativemsg.MaxHostFrame)
		for {
			msg, err := in.Read()
			if err != nil {
				h.readErr <- err
				close(h.frames)
				return
			}
			if !json.Valid(msg) {
				t.Errorf("stdout: got a frame that is not JSON: %.80q", msg)
			}
			h.frames <- msg
		}
	}()
	go func() {
		err := Run(ctx, stdinR, stdoutW, opts)
		stdoutW.Close()
		h.done <- err
	}()
	t.Cleanup(func() {
		h.cancel()
		h.wait()
		select {
		case err := <-h.readErr:
			if err != io.EOF && !h.stdoutBroken {
				t.Errorf("stdout ended with %v, want a clean EOF (only whole frames)", err)
			}
		case <-time.After(patience):
			t.Errorf("stdout reader did not end")
		}
		if t.Failed() {
			t.Logf("relay logs:\n%s", logs.String())
		}
	})
	return h
}

// wait returns Run's result, failing the test if Run does not return.
func (h *harness) wait() error {
	h.t.Helper()
	if h.result != nil {
		return *h.result
	}
	select {
	case err := <-h.done:
		h.result = &err
		checkNoRelayGoroutines(h.t)
		return err
	case <-time.After(patience):
		h.t.Fatalf("Run did not return within %v", patience)
		return nil
	}
}

// write writes raw bytes to stdin, failing the test if they are not read.
func (h *harness) write(b []byte) {
	h.t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, err := h.stdin.Write(b)
		errc <- err
	}()
	select {
	case err := <-errc:
		if err != nil {
			h.t.Fatalf("write to stdin: %v", err)
		}
	case <-time.After(patience):
		h.t.Fatalf("stdin not read within %v", patience)
	}
}

func (h *harness) send(msg string) { h.t.Helper(); h.write(frame(msg)) }

// next returns the next frame on stdout.
func (h *harness) next() []byte {
	h.t.Helper()
	select {
	case msg, ok := <-h.frames:
		if !ok {
			h.t.Fatalf("stdout ended, want a frame")
		}
		return msg
	case <-time.After(patience):
		h.t.Fatalf("no frame on stdout within %v", patience)
		return nil
	}
}

// event decodes the next frame as a relay event.
func (h *harness) event() map[string]any {
	h.t.Helper()
	msg := h.next()
	var ev map[string]any
	if err := json.Unmarshal(msg, &ev); err != nil || ev["event"] != "relay" {
		h.t.Fatalf("got frame %s, want a relay event", msg)
	}
	return ev
}

// awaitConnected skips service_down events until a connected event.
func (h *harness) awaitConnected(socket string) {
	h.t.Helper()
	for {
		ev := h.event()
		switch ev["state"] {
		case "service_down":
			continue
		case "connected":
			if ev["socket"] != socket {
				h.t.Errorf("got connected event %v, want socket %q", ev, socket)
			}
			return
		default:
			h.t.Fatalf("got event %v, want service_down or connected", ev)
		}
	}
}

// awaitLog waits until the logs contain s.
func (h *harness) awaitLog(s string) {
	h.t.Helper()
	deadline := time.Now().Add(patience)
	for !strings.Contains(h.logs.String(), s) {
		if time.Now().After(deadline) {
			h.t.Fatalf("logs never contained %q", s)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkNoRelayGoroutines fails if any goroutine still runs relay code.
func checkNoRelayGoroutines(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	for g := range strings.SplitSeq(stacks, "\n\n") {
		if strings.Contains(g, "egohost/relay.(*relay)") || strings.Contains(g, "egohost/relay.Run(") {
			t.Errorf("goroutine left running after Run returned:\n%s", g)
		}
	}
}

// peer is the service's end of one relay connection.
type peer struct {
	t    *testing.T
	conn net.Conn
	r    *nativemsg.Reader
	w    *nativemsg.Writer
}

func listen(t testing.TB, path string) net.Listener {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// accept accepts the relay's connection and checks its handshake.
func accept(t *testing.T, ln net.Listener) *peer {
	t.Helper()
	ln.(*net.UnixListener).SetDeadline(time.Now().Add(patience))
	conn, err := ln.Accept()
	if err != nil {
		t.Fatalf("accept: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	p := &peer{t: t, conn: conn, r: nativemsg.NewReader(conn, 64<<20), w: nativemsg.NewWriter(conn, 64<<20)}
	var got map[string]any
	if err := json.Unmarshal(p.read(), &got); err != nil {
		t.Fatalf("handshake is not JSON: %v", err)
	}
	want := map[string]any{"relay": "hello", "origin": testOrigin, "pid": float64(os.Getpid())}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("handshake mismatch (-want +got):\n%s", diff)
	}
	return p
}

// connected accepts the relay's connection on ln (checking its
// handshake) and waits for the relay's connected event naming sock.
func (h *harness) connected(ln net.Listener, sock string) *peer {
	h.t.Helper()
	p := accept(h.t, ln)
	h.awaitConnected(sock)
	return p
}

// startConnected starts a relay with a service listening on opts.Socket
// and returns once the relay is connected to it: the relay, the service's
// listener and its end of the connection.
func startConnected(t *testing.T, opts Options) (*harness, net.Listener, *peer) {
	t.Helper()
	ln := listen(t, opts.Socket)
	h := start(t, opts, harnessOpts{})
	return h, ln, h.connected(ln, opts.Socket)
}

func (p *peer) read() []byte {
	p.t.Helper()
	p.conn.SetReadDeadline(time.Now().Add(patience))
	msg, err := p.r.Read()
	if err != nil {
		p.t.Fatalf("service read: %v", err)
	}
	return msg
}

// readEOF expects the relay to close the connection.
func (p *peer) readEOF() {
	p.t.Helper()
	p.conn.SetReadDeadline(time.Now().Add(patience))
	if msg, err := p.r.Read(); err != io.EOF {
		p.t.Fatalf("service read: got %q, %v, want io.EOF", msg, err)
	}
}

func (p *peer) writeRaw(b []byte) {
	p.t.Helper()
	p.conn.SetWriteDeadline(time.Now().Add(patience))
	if _, err := p.conn.Write(b); err != nil {
		p.t.Fatalf("service write: %v", err)
	}
}

// strictReader fails the test if anything reads it.
type strictReader struct{ t *testing.T }

func (r strictReader) Read([]byte) (int, error) {
	r.t.Error("stdin was read, want it untouched")
	return 0, io.EOF
}

func TestRunRefusesOrigin(t *testing.T) {
	other := strings.Repeat("b", 32)
	tests := []struct {
		name       string
		origin     string
		allowed    []string
		socket     string
		wantIs     error
		wantPrefix string
	}{
		{name: "not allowed", origin: "chrome-extension://" + other + "/", allowed: []string{testID}, wantIs: ErrOriginNotAllowed},
		{name: "nobody allowed", origin: testOrigin, allowed: nil, wantIs: ErrOriginNotAllowed},
		{name: "malformed", origin: "chrome-extension://xyz/", allowed: []string{testID}, wantPrefix: "relay: parse origin"},
		{name: "windows argument instead of origin", origin: "--parent-window=0", allowed: []string{testID}, wantPrefix: "relay: parse origin"},
		{name: "no socket", origin: testOrigin, allowed: []string{testID}, socket: "-", wantPrefix: "relay: no service socket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			socket := filepath.Join(t.TempDir(), "s.sock")
			if tt.socket == "-" {
				socket = ""
			}
			var stdout bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), patience)
			defer cancel()
			err := Run(ctx, strictReader{t}, &stdout, Options{Origin: tt.origin, AllowedIDs: tt.allowed, Socket: socket})
			if err == nil {
				t.Fatal("got nil error, want one")
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("got error %v, want %v", err, tt.wantIs)
			}
			if !strings.HasPrefix(err.Error(), "relay: "+tt.wantPrefix[min(len(tt.wantPrefix), len("relay: ")):]) {
				t.Errorf("got error %q, want prefix %q", err, tt.wantPrefix)
			}
			if stdout.Len() != 0 {
				t.Errorf("got %d bytes on stdout, want none", stdout.Len())
			}
		})
	}
}

func TestRelayHandshakeAndConnected(t *testing.T) {
	tests := []struct{ name, origin string }{
		{name: "origin with trailing slash", origin: testOrigin},
		{name: "origin without trailing slash", origin: strings.TrimSuffix(testOrigin, "/")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sock := socketPath(t)
			ln := listen(t, sock)
			h := start(t, Options{Origin: tt.origin, Socket: sock}, harnessOpts{})
			accept(t, ln) // checks the handshake
			want := map[string]any{"event": "relay", "state": "connected", "socket": sock}
			if diff := cmp.Diff(want, h.event()); diff != "" {
				t.Errorf("connected event mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRelayFramesBothWays(t *testing.T) {
	msgs := []string{`{"id":1,"op":"ping"}`, `{}`, `{"text":"h\u00e9llo \u003Cb\u003E"}`}
	var all []byte
	for _, m := range msgs {
		all = append(all, frame(m)...)
	}
	tests := []struct {
		name  string
		split func([]byte) [][]byte // how the raw bytes are cut into writes
	}{
		{name: "one write per frame", split: func([]byte) [][]byte {
			var out [][]byte
			for _, m := range msgs {
				out = append(out, frame(m))
			}
			return out
		}},
		{name: "coalesced into one write", split: func(b []byte) [][]byte { return [][]byte{b} }},
		{name: "byte by byte", split: func(b []byte) [][]byte {
			out := make([][]byte, len(b))
			for i := range b {
				out[i] = b[i : i+1]
			}
			return out
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sock := socketPath(t)
			h, _, p := startConnected(t, Options{Socket: sock})

			// browser -> service
			for _, w := range tt.split(all) {
				h.write(w)
			}
			for i, want := range msgs {
				if got := string(p.read()); got != want {
					t.Errorf("service frame %d: got %q, want %q", i, got, want)
				}
			}

			// service -> browser
			for _, w := range tt.split(all) {
				p.writeRaw(w)
			}
			for i, want := range msgs {
				if got := string(h.next()); got != want {
					t.Errorf("browser frame %d: got %q, want %q", i, got, want)
				}
			}
		})
	}
}

func TestRelayLargeFrames(t *testing.T) {
	sock := socketPath(t)
	h, _, p := startConnected(t, Options{Socket: sock, MaxBrowserFrame: 4 << 20})

	big := `"` + strings.Repeat("x", 3<<20) + `"` // browser -> host may exceed 1 MiB
	h.send(big)
	if got := p.read(); string(got) != big {
		t.Errorf("service got %d bytes, want %d", len(got), len(big))
	}
	atCap := `"` + strings.Repeat("y", nativemsg.MaxHostFrame-2) + `"` // exactly Chrome's cap
	p.writeRaw(frame(atCap))
	if got := h.next(); string(got) != atCap {
		t.Errorf("browser got %d bytes, want %d", len(got), len(atCap))
	}
}

func TestRelayServiceDownThenUp(t *testing.T) {
	sock := socketPath(t)
	h := start(t, Options{Socket: sock}, harnessOpts{})

	ev := h.event()
	if ev["state"] != "service_down" || ev["retryMs"] != float64(5) || !strings.Contains(ev["error"].(string), "dial service") {
		t.Errorf("got event %v, want service_down with retryMs 5 and a dial error", ev)
	}
	if _, ok := ev["socket"]; ok {
		t.Errorf("got event %v, want no socket field in service_down", ev)
	}

	h.send(`{"dropped":true}`)
	h.awaitLog("dropped a frame from the browser")

	ln := listen(t, sock)
	p := h.connected(ln, sock)
	h.send(`{"after":true}`)
	if got := string(p.read()); got != `{"after":true}` {
		t.Errorf("service got %q, want the frame sent after connecting", got)
	}
}

func TestRelayBackoffDoubles(t *testing.T) {
	sock := socketPath(t)
	h := start(t, Options{Socket: sock, Backoff: Backoff{Min: time.Millisecond, Max: 4 * time.Millisecond}}, harnessOpts{})
	var got []float64
	for range 5 {
		got = append(got, h.event()["retryMs"].(float64))
	}
	if diff := cmp.Diff([]float64{1, 2, 4, 4, 4}, got); diff != "" {
		t.Errorf("retryMs mismatch (-want +got):\n%s", diff)
	}
}

func TestRelayServiceRestart(t *testing.T) {
	sock := socketPath(t)
	h, ln, p1 := startConnected(t, Options{Socket: sock})
	p1.writeRaw(frame(`{"from":"first"}`))
	if got := string(h.next()); got != `{"from":"first"}` {
		t.Fatalf("got %q, want the first service's frame", got)
	}

	ln.Close() // removes the socket file
	p1.conn.Close()
	ev := h.event()
	if ev["state"] != "service_down" {
		t.Fatalf("got event %v, want service_down", ev)
	}

	ln2 := listen(t, sock)
	p2 := h.connected(ln2, sock)
	h.send(`{"to":"second"}`)
	if got := string(p2.read()); got != `{"to":"second"}` {
		t.Errorf("second service got %q, want the browser's frame", got)
	}
	p2.writeRaw(frame(`{"from":"second"}`))
	if got := string(h.next()); got != `{"from":"second"}` {
		t.Errorf("got %q, want the second service's frame", got)
	}
}

func TestRelayOversizedFrameFromService(t *testing.T) {
	sock := socketPath(t)
	h, ln, p1 := startConnected(t, Options{Socket: sock})

	p1.writeRaw(binary.NativeEndian.AppendUint32(nil, nativemsg.MaxHostFrame+1))
	p1.readEOF() // the relay dropped the connection
	ev := h.event()
	if ev["state"] != "service_down" || !strings.Contains(ev["error"].(string), "frame too large") {
		t.Errorf("got event %v, want service_down naming the oversized frame", ev)
	}
	p2 := h.connected(ln, sock)
	p2.writeRaw(frame(`{"ok":true}`))
	if got := string(h.next()); got != `{"ok":true}` {
		t.Errorf("got %q, want the frame after reconnecting", got)
	}
}

func TestRelayStdinEOF(t *testing.T) {
	tests := []struct {
		name    string
		service bool
	}{
		{name: "while connected", service: true},
		{name: "while the service is down", service: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sock := socketPath(t)
			var p *peer
			var h *harness
			if tt.service {
				h, _, p = startConnected(t, Options{Socket: sock})
				h.send(`{"last":true}`)
			} else {
				h = start(t, Options{Socket: sock}, harnessOpts{})
				if ev := h.event(); ev["state"] != "service_down" {
					t.Fatalf("got event %v, want service_down", ev)
				}
			}
			h.stdin.Close()
			if err := h.wait(); err != nil {
				t.Errorf("got error %v, want nil", err)
			}
			if p != nil {
				if got := string(p.read()); got != `{"last":true}` {
					t.Errorf("service got %q, want the last frame", got)
				}
				p.readEOF()
			}
		})
	}
}

func TestRelayBadFrameFromBrowser(t *testing.T) {
	tests := []struct {
		name   string
		down   bool // the service is not there
		input  []byte
		close  bool
		wantIs error
	}{
		{name: "over the cap", input: binary.NativeEndian.AppendUint32(nil, 17), wantIs: nativemsg.ErrFrameTooLarge},
		{name: "over the cap while down", down: true, input: binary.NativeEndian.AppendUint32(nil, 17), wantIs: nativemsg.ErrFrameTooLarge},
		{name: "EOF inside the body", input: append(binary.NativeEndian.AppendUint32(nil, 10), "{}"...), close: true, wantIs: nativemsg.ErrTruncated},
		{name: "EOF inside the body while down", down: true, input: append(binary.NativeEndian.AppendUint32(nil, 10), "{}"...), close: true, wantIs: nativemsg.ErrTruncated},
		{name: "EOF inside the header", input: []byte{2, 0}, close: true, wantIs: nativemsg.ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sock := socketPath(t)
			h := start(t, Options{Socket: sock, MaxBrowserFrame: 16}, harnessOpts{})
			if tt.down {
				if ev := h.event(); ev["state"] != "service_down" {
					t.Fatalf("got event %v, want service_down", ev)
				}
			} else {
				h.connected(listen(t, sock), sock)
			}
			h.write(tt.input)
			if tt.close {
				h.stdin.Close()
			}
			err := h.wait()
			if !errors.Is(err, tt.wantIs) {
				t.Errorf("got error %v, want %v", err, tt.wantIs)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "relay: read from browser: ") {
				t.Errorf("got error %q, want the prefix %q", err, "relay: read from browser: ")
			}
			h.awaitLog("bad input from browser")
		})
	}
}

func TestRelayContextCancel(t *testing.T) {
	tests := []struct {
		name    string
		service bool
		ho      harnessOpts
	}{
		{name: "connected, io.Pipe stdin", service: true},
		{name: "connected, net.Pipe stdin", service: true, ho: harnessOpts{netPipeStdin: true}},
		{name: "service down, io.Pipe stdin"},
		{name: "service down, net.Pipe stdin", ho: harnessOpts{netPipeStdin: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sock := socketPath(t)
			h := start(t, Options{Socket: sock}, tt.ho)
			if tt.service {
				// The listener appears late: the relay may report the
				// service down first, then connects.
				ln := listen(t, sock)
				p := h.connected(ln, sock)
				defer p.readEOF()
			} else if ev := h.event(); ev["state"] != "service_down" {
				t.Fatalf("got event %v, want service_down", ev)
			}
			h.cancel()
			if err := h.wait(); !errors.Is(err, context.Canceled) {
				t.Errorf("got error %v, want context.Canceled", err)
			}
		})
	}
}

func TestRelayStdoutFails(t *testing.T) {
	sock := socketPath(t)
	h := start(t, Options{Socket: sock}, harnessOpts{})
	if ev := h.event(); ev["state"] != "service_down" {
		t.Fatalf("got event %v, want service_down", ev)
	}
	h.stdoutBroken = true
	h.stdout.CloseWithError(errors.New("chrome went away"))
	err := h.wait()
	if err == nil || !strings.Contains(err.Error(), "chrome went away") || !strings.HasPrefix(err.Error(), "relay: write to browser: ") {
		t.Errorf("got error %v, want a write-to-browser error", err)
	}
}

// stalledWriter blocks every Write until closed, like a stdout that
// Chrome does not read.
type stalledWriter struct {
	entered chan struct{}
	once    sync.Once
	closed  chan struct{}
}

func (w *stalledWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.entered) })
	<-w.closed
	return 0, io.ErrClosedPipe
}

func (w *stalledWriter) Close() error {
	close(w.closed)
	return nil
}

func TestRelayStalledStdout(t *testing.T) {
	tests := []struct {
		name    string
		end     func(cancel context.CancelFunc, stdin io.Closer)
		wantErr error
	}{
		{name: "ctx cancelled", end: func(cancel context.CancelFunc, _ io.Closer) { cancel() }, wantErr: context.Canceled},
		{name: "stdin closed", end: func(_ context.CancelFunc, stdin io.Closer) { stdin.Close() }, wantErr: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sock := socketPath(t)
			stdinR, stdinW := io.Pipe()
			defer stdinW.Close()
			stdout := &stalledWriter{entered: make(chan struct{}), closed: make(chan struct{})}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				done <- Run(ctx, stdinR, stdout, Options{Origin: testOrigin, AllowedIDs: []string{testID}, Socket: sock})
			}()
			select {
			case <-stdout.entered: // the first event is stuck
			case <-time.After(patience):
				t.Fatalf("Run did not write to stdout within %v", patience)
			}
			tt.end(cancel, stdinW)
			select {
			case err := <-done:
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
					t.Errorf("got error %v, want %v", err, tt.wantErr)
				}
				checkNoRelayGoroutines(t)
			case <-time.After(patience):
				t.Fatalf("Run did not return within %v", patience)
			}
		})
	}
}
