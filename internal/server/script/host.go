package script

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dop251/goja"

	"github.com/egohost/egohost/protocol"
)

// install evaluates the facade with the host functions it is built on and
// sets its globals. ctx is the run's: the host's goroutines end with it.
func (r *run) install(ctx context.Context) error {
	vm := r.vm
	r.errorCtor = vm.Get("Error").ToObject(vm)
	stringify, ok := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("stringify"))
	if !ok {
		return fmt.Errorf("JSON.stringify is not a function")
	}
	r.stringify = stringify
	if r.parse, ok = goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("parse")); !ok {
		return fmt.Errorf("JSON.parse is not a function")
	}
	if err := r.guard(); err != nil {
		return err
	}

	host := vm.NewObject()
	target := vm.NewObject()
	if r.opts.Target.Browser != "" {
		target.Set("browser", r.opts.Target.Browser)
	}
	target.Set("tab", r.opts.Target.Tab)
	host.Set("target", target)
	host.Set("call", func(method, params string) *goja.Promise {
		return r.callAsync(ctx, method, params, func(raw json.RawMessage) (goja.Value, error) {
			return vm.ToValue(string(raw)), nil
		})
	})
	host.Set("callSync", func(method, params string) string {
		raw, thrown := r.callSync(ctx, method, params)
		if thrown != nil {
			panic(thrown)
		}
		return string(raw)
	})
	host.Set("shot", func(params, name string) *goja.Promise { return r.screenshot(ctx, params, name) })
	host.Set("sleep", func(ms float64) *goja.Promise {
		p, resolve, _ := vm.NewPromise()
		r.after(ms, func() error { return resolve(goja.Undefined()) })
		return p
	})
	host.Set("setTimeout", func(c goja.FunctionCall) goja.Value {
		fn, ok := goja.AssertFunction(c.Argument(0))
		if !ok {
			panic(vm.NewTypeError("setTimeout: the first argument must be a function"))
		}
		args := slices.Clone(c.Arguments[min(2, len(c.Arguments)):])
		r.nextTimer++
		id := r.nextTimer
		t, ok := r.after(c.Argument(1).ToFloat(), func() error {
			if _, live := r.timers[id]; !live {
				return nil
			}
			delete(r.timers, id)
			_, err := fn(goja.Undefined(), args...)
			return err
		})
		if !ok {
			return goja.Undefined()
		}
		r.timers[id] = t
		return vm.ToValue(id)
	})
	host.Set("clearTimeout", func(id int64) {
		if t, ok := r.timers[id]; ok {
			delete(r.timers, id)
			r.clear(t)
		}
	})
	host.Set("base64", func(v goja.Value) string { return r.base64(v) })
	host.Set("print", func(c goja.FunctionCall) goja.Value {
		parts := make([]string, len(c.Arguments))
		for i, a := range c.Arguments {
			parts[i] = r.format(a)
		}
		r.out.line(strings.Join(parts, " "))
		return goja.Undefined()
	})

	prog, err := facadeProgram()
	if err != nil {
		return err
	}
	v, err := vm.RunProgram(prog)
	if err != nil {
		return err
	}
	build, ok := goja.AssertFunction(v)
	if !ok {
		return fmt.Errorf("the facade is not a function")
	}
	made, err := build(goja.Undefined(), host)
	if err != nil {
		return err
	}
	o := made.ToObject(vm)
	if r.makeError, ok = goja.AssertFunction(o.Get("makeError")); !ok {
		return fmt.Errorf("the facade has no makeError")
	}
	globals := o.Get("globals").ToObject(vm)
	for _, k := range globals.Keys() {
		if err := vm.Set(k, globals.Get(k)); err != nil {
			return err
		}
	}
	// What goja offers beyond ECMAScript and the facade: nothing reaches
	// out of the process, but these would let a script defeat the guards.
	for _, k := range []string{"SharedArrayBuffer", "Atomics"} {
		vm.GlobalObject().Delete(k)
	}
	return nil
}

// post hands fn to the VM's goroutine, unless the run has ended.
func (r *run) post(fn func() error) {
	select {
	case r.jobs <- fn:
	case <-r.done:
	}
}

// check refuses what the facade never sends: a method scripts may not
// call, a file the run was not given, a screenshot written to disk. An
// upload's file that names one of the run's payloads becomes that
// payload: check returns the params to send.
func (r *run) check(method string, params json.RawMessage) (json.RawMessage, error) {
	if !methods[method] {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "script: method %q is not available to scripts", method)
	}
	if method != protocol.MethodUpload {
		return params, nil
	}
	var p map[string]json.RawMessage
	var files []string
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "setInputFiles: %v", err)
	}
	if err := json.Unmarshal(p["files"], &files); err != nil && p["files"] != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "setInputFiles: %v", err)
	}
	var payloads []protocol.FilePayload
	if raw := p["payloads"]; raw != nil {
		if err := json.Unmarshal(raw, &payloads); err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "setInputFiles: %v", err)
		}
	}
	var paths []string
	for _, f := range files {
		if slices.Contains(r.opts.Files, filepath.Clean(f)) {
			paths = append(paths, f)
			continue
		}
		i := slices.IndexFunc(r.opts.Payloads, func(pl protocol.FilePayload) bool { return pl.Name == f || pl.Name == filepath.Base(f) })
		if i < 0 {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "setInputFiles: %s is not among the files this run was given (egohost run --file PATH)", f)
		}
		payloads = append(payloads, r.opts.Payloads[i])
	}
	p["files"], _ = json.Marshal(append([]string{}, paths...))
	delete(p, "payloads")
	if len(payloads) > 0 {
		p["payloads"], _ = json.Marshal(payloads)
	}
	return json.Marshal(p)
}

// callAsync starts method on a goroutine and returns a promise that
// conv's value fulfils, or the call's error rejects, on the VM's
// goroutine. It runs on the VM's goroutine.
func (r *run) callAsync(ctx context.Context, method, params string, conv func(json.RawMessage) (goja.Value, error)) *goja.Promise {
	line, col := r.site()
	p, resolve, reject := r.vm.NewPromise()
	raw, err := r.check(method, json.RawMessage(params))
	if err != nil {
		reject(r.jsError(err, method, json.RawMessage(params), line, col))
		return p
	}
	r.calls++
	r.pending++
	r.spawn(func() {
		res, err := r.svc.Call(ctx, method, raw)
		r.post(func() error {
			r.callDone()
			if err != nil {
				return reject(r.jsError(err, method, raw, line, col))
			}
			v, err := conv(res)
			if err != nil {
				return reject(r.jsError(err, method, raw, line, col))
			}
			return resolve(v)
		})
	})
	return p
}

// callSync calls method on the VM's goroutine, blocking the script (for
// the few calls Playwright makes synchronous, like page.url()).
func (r *run) callSync(ctx context.Context, method, params string) (json.RawMessage, goja.Value) {
	line, col := r.site()
	raw, err := r.check(method, json.RawMessage(params))
	if err != nil {
		return nil, r.jsError(err, method, json.RawMessage(params), line, col)
	}
	r.calls++
	res, err := r.svc.Call(ctx, method, raw)
	if err != nil {
		if ctx.Err() != nil {
			// The run is ending: let the interrupt say why.
			return nil, r.jsError(protocol.Errorf(protocol.CodeTimeout, "%s: %v", method, context.Cause(ctx)), method, raw, line, col)
		}
		return nil, r.jsError(err, method, raw, line, col)
	}
	return res, nil
}

// screenshot takes a screenshot through the service and keeps the PNG
// with the run's result; the script gets a handle.
func (r *run) screenshot(ctx context.Context, params, name string) *goja.Promise {
	if r.shotsAsked >= r.opts.MaxScreenshots {
		p, _, reject := r.vm.NewPromise()
		e := protocol.Errorf(protocol.CodeScriptLimit, "screenshot: a run may take %d screenshots", r.opts.MaxScreenshots)
		line, col := r.site()
		reject(r.jsError(e, protocol.MethodScreenshot, json.RawMessage(params), line, col))
		return p
	}
	var sp protocol.ScreenshotParams
	if err := json.Unmarshal([]byte(params), &sp); err != nil || sp.Path != "" {
		panic(r.vm.NewTypeError("screenshot: bad params"))
	}
	r.shotsAsked++
	if name == "" {
		name = fmt.Sprintf("screenshot-%d.png", r.shotsAsked)
	} else if !strings.HasSuffix(strings.ToLower(name), ".png") {
		name += ".png"
	}
	name = filepath.Base(filepath.Clean("/" + name))
	// The call itself goes through the allow-list bypass below: scripts
	// may take screenshots, but only into the result.
	line, col := r.site()
	p, resolve, reject := r.vm.NewPromise()
	r.calls++
	r.pending++
	r.spawn(func() {
		raw, err := r.svc.Call(ctx, protocol.MethodScreenshot, json.RawMessage(params))
		var res protocol.ScreenshotResult
		if err == nil {
			err = json.Unmarshal(raw, &res)
		}
		r.post(func() error {
			r.callDone()
			if err != nil {
				return reject(r.jsError(err, protocol.MethodScreenshot, json.RawMessage(params), line, col))
			}
			r.shots = append(r.shots, protocol.ScriptScreenshot{Name: name, Width: res.Width, Height: res.Height, Data: res.Data})
			h := r.vm.NewObject()
			h.Set("screenshot", name)
			h.Set("width", res.Width)
			h.Set("height", res.Height)
			h.Set("bytes", len(res.Data))
			return resolve(h)
		})
	})
	return p
}

// jsError is the error a failing call rejects with: an Error whose name
// is the stable code's name; the run remembers the protocol error with
// where the script made the call, to report it if nobody catches it.
func (r *run) jsError(err error, method string, params json.RawMessage, line, col int) goja.Value {
	pe, ok := err.(*protocol.Error)
	if !ok {
		pe = protocol.Errorf(protocol.CodeOf(err), "%v", err)
		if pe.Code == protocol.CodeInternal {
			pe = protocol.Errorf(protocol.CodeInternal, "%s: %v", method, err)
		}
	}
	var p struct {
		Target string `json:"target"`
	}
	_ = json.Unmarshal(params, &p)
	// A copy: the service's error value is not ours to change.
	e := &protocol.Error{Code: pe.Code, Message: pe.Message, Data: map[string]any{}}
	for k, v := range pe.Data {
		e.Data[k] = v
	}
	e.With("call", method)
	if p.Target != "" {
		e.With("locator", p.Target)
	}
	where := ""
	if line > 0 {
		e.With("line", line).With("column", col)
		where = fmt.Sprintf("line %d, column %d: ", line, col)
	}
	e.Message = where + e.Message
	data := goja.Value(r.vm.NewObject())
	if b, err := json.Marshal(pe.Data); err == nil {
		if v, err := r.parse(goja.Undefined(), r.vm.ToValue(string(b))); err == nil {
			data = v
		}
	}
	v, err := r.makeError(goja.Undefined(), r.vm.ToValue(pe.Code.Name()), r.vm.ToValue(e.Message), r.vm.ToValue(int(pe.Code)), data)
	if err != nil {
		return r.vm.NewGoError(e)
	}
	if o, ok := v.(*goja.Object); ok {
		r.errs[o] = e
	}
	return v
}

// base64 encodes a file's content a script gave setInputFiles: a string
// (as UTF-8), an ArrayBuffer, a Uint8Array or an array of bytes.
func (r *run) base64(v goja.Value) string {
	switch b := v.Export().(type) {
	case string:
		return base64.StdEncoding.EncodeToString([]byte(b))
	case []byte:
		return base64.StdEncoding.EncodeToString(b)
	case goja.ArrayBuffer:
		return base64.StdEncoding.EncodeToString(b.Bytes())
	case []any:
		out := make([]byte, len(b))
		for i, x := range b {
			n, ok := x.(int64)
			if !ok || n < 0 || n > 255 {
				panic(r.vm.NewTypeError("setInputFiles: buffer[%d] is not a byte", i))
			}
			out[i] = byte(n)
		}
		return base64.StdEncoding.EncodeToString(out)
	}
	panic(r.vm.NewTypeError("setInputFiles: a buffer is a string, an ArrayBuffer, a Uint8Array or an array of bytes"))
}
