// Package relay is egohost's relay mode: the short-lived process Chrome
// spawns for the extension's native port (`egohost chrome-extension://<id>/`).
// It checks the extension's origin, then pipes native messaging frames
// between Chrome (stdin/stdout) and the egohost service (a local socket),
// reconnecting with backoff and telling the extension when the service is
// down. It holds no state and writes nothing to stdout but frames.
package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/link/chromeext"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/nativemsg"
)

// Defaults for the zero values in Options.
const (
	DefaultDialTimeout     = 5 * time.Second
	DefaultMaxBrowserFrame = 64 << 20
	DefaultBackoffMin      = 100 * time.Millisecond
	DefaultBackoffMax      = 5 * time.Second
)

// stdoutGrace is how long a stdout write may go on after ctx is cancelled
// before Run interrupts it.
const stdoutGrace = time.Second

// ErrOriginNotAllowed is matched by Run's error when the extension's
// origin is not among the allowed IDs.
var ErrOriginNotAllowed = errors.New("origin not allowed")

// Backoff is the delay between attempts to reach the service: Min after
// the first failure, doubling on each further failure up to Max. It goes
// back to Min once a connection has lasted at least Max.
type Backoff struct {
	Min time.Duration // zero means DefaultBackoffMin (100ms)
	Max time.Duration // zero means DefaultBackoffMax (5s)
}

// Options configures Run.
type Options struct {
	// Origin is the extension's origin as Chrome passes it in argv,
	// "chrome-extension://<id>/" (the trailing slash is optional).
	Origin string
	// AllowedIDs are the extension IDs allowed to use the relay.
	AllowedIDs []string
	// Socket is the path of the service's unix socket.
	Socket string
	// DialTimeout bounds each dial and the handshake; zero means
	// DefaultDialTimeout.
	DialTimeout time.Duration
	// MaxBrowserFrame caps frames from the browser; zero means
	// DefaultMaxBrowserFrame (64 MiB).
	MaxBrowserFrame int
	// Logger receives the relay's logs; it must not write to stdout.
	// Nil discards them.
	Logger *slog.Logger
	// Backoff paces reconnection attempts.
	Backoff Backoff
}

func (o Options) withDefaults() Options {
	if o.DialTimeout <= 0 {
		o.DialTimeout = DefaultDialTimeout
	}
	if o.MaxBrowserFrame <= 0 {
		o.MaxBrowserFrame = DefaultMaxBrowserFrame
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Backoff.Min <= 0 {
		o.Backoff.Min = DefaultBackoffMin
	}
	if o.Backoff.Max <= 0 {
		o.Backoff.Max = DefaultBackoffMax
	}
	if o.Backoff.Max < o.Backoff.Min {
		o.Backoff.Max = o.Backoff.Min
	}
	return o
}

// Run relays frames between the browser (stdin, stdout) and the service
// (opts.Socket) until stdin ends or ctx is cancelled.
//
// It first checks opts.Origin against opts.AllowedIDs; an origin that is
// malformed or not allowed is an error, and nothing is read or written.
// Then it dials the service, sends the handshake frame
// {"relay":"hello","origin":…,"pid":…} and writes the event
// {"event":"relay","state":"connected","socket":…} to stdout. When the
// service cannot be reached or drops the connection, it writes
// {"event":"relay","state":"service_down","error":…,"retryMs":…} and
// retries with backoff; frames the browser sends meanwhile are dropped
// (and logged).
//
// Frames are capped at opts.MaxBrowserFrame from the browser and at
// nativemsg.MaxHostFrame from the service. A frame from the service over
// its cap is logged and the connection is dropped and redialled; a broken
// or oversized frame from the browser ends Run with an error.
//
// Run returns nil when stdin ends cleanly at a frame boundary, ctx.Err()
// when ctx is cancelled, and an error when stdin breaks framing or stdout
// fails. It returns only after every goroutine it started has ended.
//
// When ctx is cancelled, Run unblocks a pending stdin read at once; when
// ctx is cancelled or stdin ends, it unblocks a pending stdout write after
// a grace period of one second (so that a frame being written normally
// ends whole). To unblock a stream it sets a past deadline if the
// stream has SetReadDeadline / SetWriteDeadline, or else closes it if it
// is an io.Closer. A stream that supports neither (such as a blocking
// *os.File, whose Close does not interrupt a read) delays Run's return
// until its pending read or write completes; main can pass a pollable
// stdin (syscall.SetNonblock on fd 0, then os.NewFile) to avoid that.
func Run(ctx context.Context, stdin io.Reader, stdout io.Writer, opts Options) error {
	id, err := chromeext.ParseOrigin(opts.Origin)
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	if !slices.Contains(opts.AllowedIDs, id) {
		return fmt.Errorf("relay: %q: %w", opts.Origin, ErrOriginNotAllowed)
	}
	if opts.Socket == "" {
		return errors.New("relay: no service socket path")
	}
	opts = opts.withDefaults()
	r := &relay{
		opts:   opts,
		origin: "chrome-extension://" + id + "/",
		out:    nativemsg.NewWriter(stdout, nativemsg.MaxHostFrame),
		log:    opts.Logger,
	}
	return r.run(ctx, stdin, stdout)
}

// relay holds what one Run shares between its goroutines.
type relay struct {
	opts   Options
	origin string
	out    *nativemsg.Writer // stdout: the only writer of frames to the browser
	log    *slog.Logger
}

// errStdinEOF reports that the browser closed stdin at a frame boundary:
// the clean end of a relay session.
var errStdinEOF = errors.New("relay: browser closed stdin")

// errReturned is the cause of the run context when Run is returning.
var errReturned = errors.New("relay: returned")

// run owns every goroutine of one Run. Two contexts end the work:
// runCtx, cancelled abruptly (ctx cancelled, stdin broke framing, Run
// returning), and liveCtx, its child, also cancelled when stdin ends
// cleanly. A clean end is also signalled in order by closing frames, so
// that every frame read before EOF still reaches a connected service.
func (r *relay) run(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	runCtx, stop := context.WithCancelCause(ctx)
	liveCtx, endLive := context.WithCancel(runCtx)
	var wg sync.WaitGroup
	quit := make(chan struct{})
	stdinDone := make(chan struct{})
	defer func() {
		stop(errReturned)
		endLive()
		close(quit)
		select {
		case <-stdinDone:
		default:
			interruptRead(stdin) // e.g. stdout failed while stdin is still open
		}
		wg.Wait()
	}()

	// Cancelling ctx unblocks a pending stdin read at once. Once the run
	// is ending (ctx cancelled, stdin closed or broken), a stdout write
	// still pending after a grace period is interrupted: the grace lets a
	// frame being written finish whole.
	wg.Go(func() {
		select {
		case <-liveCtx.Done():
		case <-quit:
			return
		}
		if ctx.Err() != nil {
			interruptRead(stdin)
		}
		t := time.NewTimer(stdoutGrace)
		defer t.Stop()
		select {
		case <-t.C:
			interruptWrite(stdout)
		case <-quit:
		}
	})

	frames := make(chan []byte)
	eof := make(chan struct{}) // closed when stdin ends cleanly
	wg.Go(func() {
		defer close(stdinDone)
		in := nativemsg.NewBufferedReader(stdin, r.opts.MaxBrowserFrame)
		for {
			msg, err := in.Read()
			if err == io.EOF {
				r.log.Info("relay: browser closed stdin")
				close(eof)
				close(frames)
				endLive()
				return
			}
			if err != nil {
				if runCtx.Err() == nil {
					r.log.Error("relay: bad input from browser", "error", err)
				}
				stop(fmt.Errorf("relay: read from browser: %w", err))
				return
			}
			select {
			case frames <- msg:
			case <-runCtx.Done():
				return
			}
		}
	})

	err := r.loop(runCtx, liveCtx, frames)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, errStdinEOF):
		return nil
	case err != nil:
		select {
		case <-eof: // the browser hung up; a failing stdout is no news
			return nil
		default:
			return err
		}
	}
	return context.Cause(runCtx) // stdin broke framing
}

// loop connects, relays and reconnects. It returns errStdinEOF when stdin
// ends cleanly, nil when runCtx ends, or the error that broke stdout.
func (r *relay) loop(runCtx, liveCtx context.Context, frames <-chan []byte) error {
	delay := r.opts.Backoff.Min
	for {
		conn, w, err := r.dial(liveCtx)
		if err == nil {
			began := time.Now()
			var fatal bool
			fatal, err = r.session(runCtx, conn, w, frames)
			if fatal || errors.Is(err, errStdinEOF) {
				return err
			}
			if time.Since(began) >= r.opts.Backoff.Max {
				delay = r.opts.Backoff.Min
			}
		}
		switch {
		case runCtx.Err() != nil:
			return nil
		case liveCtx.Err() != nil:
			return errStdinEOF
		}
		r.log.Warn("relay: service down", "error", err, "retry", delay)
		if err := r.event(extwire.RelayDown{Event: extwire.EventRelay, State: extwire.RelayServiceDown, Error: err.Error(), RetryMs: delay.Milliseconds()}); err != nil {
			return err
		}
		if err := r.wait(runCtx, delay, frames); err != nil {
			if runCtx.Err() != nil {
				return nil
			}
			return err
		}
		delay = min(2*delay, r.opts.Backoff.Max)
	}
}

// dial connects to the service and sends the handshake.
func (r *relay) dial(ctx context.Context) (net.Conn, *nativemsg.Writer, error) {
	d := net.Dialer{Timeout: r.opts.DialTimeout}
	conn, err := d.DialContext(ctx, "unix", r.opts.Socket)
	if err != nil {
		return nil, nil, fmt.Errorf("dial service: %w", err)
	}
	hello, err := json.Marshal(extwire.RelayHello{Relay: "hello", Origin: r.origin, PID: os.Getpid()})
	if err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("send handshake: %w", err)
	}
	conn.SetWriteDeadline(time.Now().Add(r.opts.DialTimeout))
	if err := nativemsg.NewWriter(conn, len(hello)).Write(hello); err != nil {
		conn.Close()
		return nil, nil, fmt.Errorf("send handshake: %w", err)
	}
	conn.SetWriteDeadline(time.Time{})
	return conn, nativemsg.NewWriter(conn, r.opts.MaxBrowserFrame), nil
}

// session relays frames over conn until the connection breaks, stdin
// ends (errStdinEOF, after every frame read before EOF was written) or ctx
// ends. It closes conn. fatal reports a stdout failure, which ends Run.
func (r *relay) session(ctx context.Context, conn net.Conn, w *nativemsg.Writer, frames <-chan []byte) (fatal bool, err error) {
	r.log.Info("relay: connected", "socket", r.opts.Socket)
	if err := r.event(extwire.RelayUp{Event: extwire.EventRelay, State: extwire.RelayConnected, Socket: r.opts.Socket}); err != nil {
		conn.Close()
		return true, err
	}

	sessCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	wg.Go(func() {
		<-sessCtx.Done()
		conn.Close()
	})
	pumped := make(chan pumpResult, 1)
	wg.Go(func() { pumped <- r.pump(conn) })

	for {
		select {
		case msg, ok := <-frames:
			if !ok {
				return false, errStdinEOF
			}
			if err := w.Write(msg); err != nil {
				if ctx.Err() == nil {
					r.log.Warn("relay: frame to service lost", "bytes", len(msg), "error", err)
				}
				return false, fmt.Errorf("write to service: %w", err)
			}
		case res := <-pumped:
			return res.fatal, res.err
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

type pumpResult struct {
	err   error
	fatal bool // stdout failed
}

// pump copies frames from the service to stdout until either fails.
func (r *relay) pump(conn net.Conn) pumpResult {
	in := nativemsg.NewBufferedReader(conn, nativemsg.MaxHostFrame)
	for {
		msg, err := in.Read()
		if errors.Is(err, nativemsg.ErrFrameTooLarge) {
			r.log.Error("relay: frame from service over the browser's cap; dropping the connection", "error", err)
			return pumpResult{err: fmt.Errorf("read from service: %w", err)}
		}
		if err == io.EOF {
			return pumpResult{err: errors.New("service closed the connection")}
		}
		if err != nil {
			return pumpResult{err: fmt.Errorf("read from service: %w", err)}
		}
		if err := r.out.Write(msg); err != nil {
			return pumpResult{err: fmt.Errorf("relay: write to browser: %w", err), fatal: true}
		}
	}
}

// wait sleeps for d while dropping the browser's frames. It returns
// errStdinEOF if stdin ends meanwhile, ctx's error if ctx ends, else nil.
func (r *relay) wait(ctx context.Context, d time.Duration, frames <-chan []byte) error {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case msg, ok := <-frames:
			if !ok {
				return errStdinEOF
			}
			r.log.Warn("relay: service down; dropped a frame from the browser", "bytes", len(msg))
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// event writes one of the relay's own events to the browser.
func (r *relay) event(e any) error {
	msg, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("relay: encode event: %w", err)
	}
	if err := r.out.Write(msg); err != nil {
		return fmt.Errorf("relay: write to browser: %w", err)
	}
	return nil
}

// longAgo returns a deadline in the past, to unblock pending I/O.
func longAgo() time.Time { return time.Unix(1, 0) }

func interruptRead(r io.Reader) {
	if d, ok := r.(interface{ SetReadDeadline(time.Time) error }); ok && d.SetReadDeadline(longAgo()) == nil {
		return
	}
	if c, ok := r.(io.Closer); ok {
		c.Close()
	}
}

func interruptWrite(w io.Writer) {
	if d, ok := w.(interface{ SetWriteDeadline(time.Time) error }); ok && d.SetWriteDeadline(longAgo()) == nil {
		return
	}
	if c, ok := w.(io.Closer); ok {
		c.Close()
	}
}
