// Package script runs an agent's JavaScript next to the browser, in a
// sandbox: a goja runtime whose only ways out are a Playwright-shaped
// facade (page, locators, browser, cdp) and console output. Every browser
// operation of the facade is one of the service's own agent methods,
// called through the Service interface, so a script call and an agent's
// request run the same code.
//
// The sandbox has no require, no file system, network, process or
// environment access; a wall-clock timeout, the caller's cancellation, a
// heap-growth cap, guards on the built-ins that allocate in one go, and a
// call-depth cap stop scripts that would hurt the service.
package script

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/dop251/goja"

	"github.com/egohost/egohost/protocol"
)

// Service runs one of the service's agent methods (PROTOCOL.md) with JSON
// params and returns its JSON result; an error is a *protocol.Error.
type Service interface {
	Call(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
}

// Options configure one run.
type Options struct {
	// Target is the tab of the script's page; Browser may be empty when
	// one browser is connected.
	Target protocol.Target
	// Timeout bounds the whole run (default 30 s).
	Timeout time.Duration
	// MaxMemory caps how much the process heap may grow while the script
	// runs, in bytes (default 256 MiB).
	MaxMemory int64
	// MaxOutput caps the console output in bytes (default 64 KiB).
	MaxOutput int
	// MaxCallDepth caps JavaScript call depth (default 2000).
	MaxCallDepth int
	// MaxScreenshots caps the screenshots one run may take (default 20).
	MaxScreenshots int
	// Files are the absolute paths setInputFiles may use.
	Files []string
	// Payloads are files given by their bytes: setInputFiles may name
	// one by its name (or a path ending in it).
	Payloads []protocol.FilePayload
}

func (o *Options) defaults() {
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxMemory <= 0 {
		o.MaxMemory = 256 << 20
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = 64 << 10
	}
	if o.MaxCallDepth <= 0 {
		o.MaxCallDepth = 2000
	}
	if o.MaxScreenshots <= 0 {
		o.MaxScreenshots = 20
	}
}

//go:embed facade.js
var facadeJS string

// facadeProgram is facade.js compiled, once: every script's runtime runs
// the same program (a goja.Program is bound to no runtime and may run in
// several at once). Compiled per script, a script that does nothing took
// 1.93–1.99 ms and 1.18 MB; now 0.68–0.70 ms and 394 KB
// (BenchmarkScriptStart, docs/benchmarks.md).
var facadeProgram = sync.OnceValues(func() (*goja.Program, error) {
	return goja.Compile("egohost-facade.js", facadeJS, false)
})

// methods are the service methods a script may call (the facade's
// building blocks); screenshot is reached through host.shot only.
var methods = map[string]bool{
	protocol.MethodClick: true, protocol.MethodHover: true, protocol.MethodFocus: true,
	protocol.MethodCheck: true, protocol.MethodUncheck: true, protocol.MethodFill: true,
	protocol.MethodType: true, protocol.MethodPress: true, protocol.MethodSelect: true,
	protocol.MethodDrag: true, protocol.MethodUpload: true, protocol.MethodScroll: true,
	protocol.MethodWait: true, protocol.MethodGoto: true, protocol.MethodBack: true,
	protocol.MethodForward: true, protocol.MethodReload: true, protocol.MethodEval: true,
	protocol.MethodResolve: true, protocol.MethodSnapshot: true, protocol.MethodCDPSend: true,
	protocol.MethodTabsList: true, protocol.MethodTabsOpen: true, protocol.MethodTabsSelect: true,
	protocol.MethodTabsClose: true,
}

// errTimeout is the cause of a run's end by its clock.
var errTimeout = errors.New("script timed out")

// limitError is a guard's verdict; it ends the run with CodeScriptLimit.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// run is one script's run. Its fields are used on the VM's goroutine
// only, except jobs and done (channels) and wg.
type run struct {
	vm     *goja.Runtime
	svc    Service
	opts   Options
	src    *source
	out    output
	stop   context.CancelCauseFunc // ends the run with a cause (guards)
	jobs   chan func() error       // work posted back to the VM's goroutine
	done   chan struct{}           // closed when the loop stops taking jobs
	wg     sync.WaitGroup          // goroutines of calls and timers
	calls  int
	shots  []protocol.ScriptScreenshot
	errs   map[*goja.Object]*protocol.Error // errors the facade's calls rejected with
	unhand []*goja.Promise                  // rejected promises nobody handled (yet)

	pending    int // operations whose result is not posted back yet
	clock      *clock
	timers     map[int64]*timer // setTimeout's, by id
	nextTimer  int64
	running    int      // calls running (spawn)
	queued     []func() // calls waiting for their turn
	makeError  goja.Callable
	stringify  goja.Callable
	parse      goja.Callable
	shotsAsked int
	errorCtor  *goja.Object
}

// Run compiles and runs src as the body of an async function, and returns
// what it logged and its last expression's value. A failure is a
// *protocol.Error whose data holds the output so far ("output"), where
// the script failed ("line", "column") and, for a failing call, the call
// and its locator ("call", "locator").
func Run(ctx context.Context, svc Service, src string, opts Options) (*protocol.ScriptRunResult, error) {
	start := time.Now()
	opts.defaults()
	prog, srcMap, err := compile(src)
	if err != nil {
		var se *syntaxError
		errors.As(err, &se)
		e := protocol.Errorf(protocol.CodeScript, "script: SyntaxError: %s (line %d, column %d)", se.Message, se.Line, se.Column)
		return nil, e.With("line", se.Line).With("column", se.Column).With("output", "")
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	ctx, cancel := context.WithTimeoutCause(ctx, opts.Timeout, errTimeout)
	defer cancel()

	r := &run{
		vm: goja.New(), svc: svc, opts: opts, src: srcMap, stop: stop,
		jobs: make(chan func() error, 64), done: make(chan struct{}),
		errs: map[*goja.Object]*protocol.Error{}, timers: map[int64]*timer{}, clock: newClock(),
	}
	r.out.max = opts.MaxOutput
	defer func() {
		close(r.done)
		stop(context.Canceled) // calls still in flight end now
		r.wg.Wait()
	}()
	unwatch := r.watch(ctx, opts.MaxMemory)
	defer unwatch()
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.clock.run(ctx, r.post)
	}()

	value, err := r.exec(ctx, prog)
	res := &protocol.ScriptRunResult{Calls: r.calls, Screenshots: r.shots}
	res.Output, res.Cut = r.out.text()
	if err != nil {
		var pe *protocol.Error
		if !errors.As(err, &pe) {
			pe = protocol.Errorf(protocol.CodeInternal, "script: %v", err)
		}
		pe.With("output", res.Output)
		if res.Cut > 0 {
			pe.With("cut", res.Cut)
		}
		return nil, pe
	}
	res.Value = value
	res.TookMs = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}

// exec runs the program and its event loop until the script's promise is
// settled and nothing is pending.
func (r *run) exec(ctx context.Context, prog *goja.Program) (json.RawMessage, error) {
	r.vm.SetMaxCallStackSize(r.opts.MaxCallDepth)
	r.vm.SetPromiseRejectionTracker(func(p *goja.Promise, op goja.PromiseRejectionOperation) {
		if op == goja.PromiseRejectionReject {
			r.unhand = append(r.unhand, p)
			return
		}
		r.unhand = slices.DeleteFunc(r.unhand, func(q *goja.Promise) bool { return q == p })
	})
	if err := r.install(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, r.failure(ctx, err)
		}
		return nil, fmt.Errorf("script: set up the facade: %w", err)
	}
	v, err := r.vm.RunProgram(prog)
	if err != nil {
		return nil, r.failure(ctx, err)
	}
	p, ok := v.Export().(*goja.Promise)
	if !ok {
		return nil, fmt.Errorf("script: the wrapper returned %s, not a promise", v)
	}
	for p.State() == goja.PromiseStatePending || r.pending > 0 {
		if p.State() == goja.PromiseStatePending && r.pending == 0 {
			return nil, protocol.Errorf(protocol.CodeScript, "script: it awaits a promise that nothing will settle")
		}
		select {
		case job := <-r.jobs:
			r.pending--
			if err := job(); err != nil {
				return nil, r.failure(ctx, err)
			}
		case <-ctx.Done():
			return nil, r.failure(ctx, ctx.Err())
		}
		// As in Node: a rejection nobody handled once the microtasks ran
		// ends the run (a failing call the script did not await).
		if e := r.unhandled(p); e != nil {
			return nil, e
		}
	}
	if ctx.Err() != nil {
		return nil, r.failure(ctx, ctx.Err())
	}
	if p.State() == goja.PromiseStateRejected {
		return nil, r.thrown(p.Result())
	}
	if e := r.unhandled(p); e != nil {
		return nil, e
	}
	return r.value(p.Result()), nil
}

// unhandled is the first rejection nobody handled, other than the
// script's own promise (reported as the script's failure).
func (r *run) unhandled(main *goja.Promise) *protocol.Error {
	for _, q := range r.unhand {
		if q == main {
			continue
		}
		e := r.thrown(q.Result())
		e.Message = "unhandled rejection (a call without await?): " + e.Message
		return e
	}
	return nil
}

// failure turns what stopped the VM into the run's error.
func (r *run) failure(ctx context.Context, err error) *protocol.Error {
	var (
		ie *goja.InterruptedError
		so *goja.StackOverflowError
		ex *goja.Exception
		le *limitError
	)
	cause := context.Cause(ctx)
	switch {
	case errors.As(cause, &le):
		return protocol.Errorf(protocol.CodeScriptLimit, "script: %s", le.msg)
	case errors.As(err, &so):
		return protocol.Errorf(protocol.CodeScriptLimit, "script: call stack exceeded %d frames (deep recursion?)", r.opts.MaxCallDepth)
	case errors.Is(cause, errTimeout):
		return protocol.Errorf(protocol.CodeTimeout, "script: timed out after %v", r.opts.Timeout).With("timeoutMs", r.opts.Timeout.Milliseconds())
	case ctx.Err() != nil:
		return protocol.Errorf(protocol.CodeTimeout, "script: canceled (%v)", cause)
	case errors.As(err, &ie):
		return protocol.Errorf(protocol.CodeScript, "script: interrupted: %v", ie.Value())
	case errors.As(err, &ex):
		return r.thrown(ex.Value())
	}
	return protocol.Errorf(protocol.CodeInternal, "script: %v", err)
}

// thrown describes a value the script threw or rejected with.
func (r *run) thrown(v goja.Value) *protocol.Error {
	if o, ok := v.(*goja.Object); ok {
		if pe := r.errs[o]; pe != nil {
			return pe
		}
	}
	msg, line, col := r.describe(v)
	e := protocol.Errorf(protocol.CodeScript, "script: %s", msg)
	if line > 0 {
		e.Message += fmt.Sprintf(" (line %d, column %d)", line, col)
		e.With("line", line).With("column", col)
	}
	return e
}

var stackPos = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(regexp.QuoteMeta(fileName) + `:(\d+):(\d+)`) }) // on first use, not at start

// describe formats an error value as "name: message" with the script's
// line and column from its stack (0 when it has none).
func (r *run) describe(v goja.Value) (string, int, int) {
	o, ok := v.(*goja.Object)
	if !ok || !r.vm.InstanceOf(v, r.errorCtor) {
		return "uncaught " + r.format(v), 0, 0
	}
	msg := o.Get("name").String() + ": " + o.Get("message").String()
	if st := o.Get("stack"); st != nil && !goja.IsUndefined(st) {
		if m := stackPos().FindStringSubmatch(st.String()); m != nil {
			l, _ := strconv.Atoi(m[1])
			c, _ := strconv.Atoi(m[2])
			l, c = r.src.pos(l, c)
			return msg, l, c
		}
	}
	return msg, 0, 0
}

// site is where the script is now: the innermost frame of the script
// itself (not the facade's), mapped to the script's own lines.
func (r *run) site() (int, int) {
	for _, f := range r.vm.CaptureCallStack(0, nil) {
		if f.SrcName() == fileName {
			p := f.Position()
			return r.src.pos(p.Line, p.Column)
		}
	}
	return 0, 0
}

// value is the last expression's value as JSON (nil for undefined).
func (r *run) value(v goja.Value) json.RawMessage {
	if v == nil || goja.IsUndefined(v) {
		return nil
	}
	var b []byte
	if s, err := r.stringify(goja.Undefined(), v); err == nil && !goja.IsUndefined(s) {
		b = []byte(s.String())
	} else {
		b, _ = json.Marshal(v.String())
	}
	if len(b) > r.opts.MaxOutput {
		b, _ = json.Marshal(fmt.Sprintf("%s… (value cut: %d bytes past limits.script_output)", b[:r.opts.MaxOutput], len(b)-r.opts.MaxOutput))
	}
	return b
}

// format prints one console argument: strings raw, errors as "name:
// message (line:col)", functions by name, anything else as JSON.
func (r *run) format(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	}
	if s, ok := v.Export().(string); ok {
		if _, isObj := v.(*goja.Object); !isObj {
			return s
		}
	}
	if o, ok := v.(*goja.Object); ok {
		if r.vm.InstanceOf(v, r.errorCtor) {
			msg, line, col := r.describe(v)
			if line > 0 {
				msg += fmt.Sprintf(" (%d:%d)", line, col)
			}
			return msg
		}
		if _, ok := goja.AssertFunction(v); ok {
			return "[Function " + o.Get("name").String() + "]"
		}
	}
	if s, err := r.stringify(goja.Undefined(), v); err == nil && !goja.IsUndefined(s) {
		return s.String()
	}
	return v.String()
}
