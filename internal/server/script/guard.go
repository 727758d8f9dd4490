package script

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/dop251/goja"
)

// watchEvery is how often the watchdog looks at the heap.
const watchEvery = 10 * time.Millisecond

// heapMetric is the bytes of heap objects, live or not yet swept.
const heapMetric = "/memory/classes/heap/objects:bytes"

func heapBytes() int64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// watch interrupts the VM when ctx ends (timeout, the agent gone, a
// guard's verdict) and ends the run when the heap grows by more than
// limit bytes while the script runs. The heap is the process's: the
// measure is coarse, but it needs no help from the script. unwatch stops
// both and waits for them.
func (r *run) watch(ctx context.Context, limit int64) (unwatch func()) {
	stopInterrupt := context.AfterFunc(ctx, func() { r.vm.Interrupt(context.Cause(ctx)) })
	quit := make(chan struct{})
	ended := make(chan struct{})
	base := heapBytes()
	go func() {
		defer close(ended)
		t := time.NewTicker(watchEvery)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			grown := heapBytes() - base
			if grown <= limit {
				continue
			}
			// Garbage counts until swept: collect before judging, unless
			// the heap is far over (the script runs on meanwhile).
			if grown <= 2*limit {
				runtime.GC()
				grown = heapBytes() - base
			}
			if grown > limit {
				r.stop(&limitError{msg: fmt.Sprintf("memory limit: the heap grew by %d MiB (limits.script_memory = %d MiB)", grown>>20, limit>>20)})
				return
			}
		}
	}()
	return func() {
		stopInterrupt()
		close(quit)
		<-ended
	}
}

// guard wraps the built-ins that can allocate a great deal in one native
// call, which no interrupt can stop: a call that would go over the
// memory limit ends the run instead (limits.script_memory).
func (r *run) guard() error {
	vm := r.vm
	limit := r.opts.MaxMemory
	const slot = 16 // bytes per array element, at least
	maxLen := limit / slot
	deny := func(what string, bytes float64) goja.Value {
		r.stop(&limitError{msg: fmt.Sprintf("memory limit: %s would take %.0f MiB (limits.script_memory = %d MiB)", what, bytes/(1<<20), limit>>20)})
		vm.Interrupt("memory limit")
		return goja.Undefined()
	}
	num := func(v goja.Value) float64 {
		if v == nil || goja.IsUndefined(v) {
			return 0
		}
		f := v.ToFloat()
		if math.IsNaN(f) {
			return 0
		}
		return f
	}
	lengthOf := func(v goja.Value) float64 {
		if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
			return 0
		}
		return num(v.ToObject(vm).Get("length"))
	}
	wrap := func(o *goja.Object, name string, check func(c goja.FunctionCall) goja.Value) error {
		orig, ok := goja.AssertFunction(o.Get(name))
		if !ok {
			return fmt.Errorf("guard: %s is not a function", name)
		}
		return o.Set(name, func(c goja.FunctionCall) goja.Value {
			if v := check(c); v != nil {
				return v
			}
			res, err := orig(c.This, c.Arguments...)
			if err != nil {
				panic(err)
			}
			return res
		})
	}

	// Every array method walks this.length in native code.
	arrayProto := vm.Get("Array").ToObject(vm).Get("prototype").ToObject(vm)
	for _, name := range arrayProto.GetOwnPropertyNames() {
		if _, ok := goja.AssertFunction(arrayProto.Get(name)); !ok || name == "constructor" {
			continue
		}
		if err := wrap(arrayProto, name, func(c goja.FunctionCall) goja.Value {
			if n := lengthOf(c.This); n > float64(maxLen) {
				return deny(fmt.Sprintf("Array.prototype.%s on %.0f elements", name, n), n*slot)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	array := vm.Get("Array").ToObject(vm)
	if err := wrap(array, "from", func(c goja.FunctionCall) goja.Value {
		if n := lengthOf(c.Argument(0)); n > float64(maxLen) {
			return deny(fmt.Sprintf("Array.from of %.0f elements", n), n*slot)
		}
		return nil
	}); err != nil {
		return err
	}

	// Strings: the result's size is known before it is built (two bytes
	// per code unit at most).
	strProto := vm.Get("String").ToObject(vm).Get("prototype").ToObject(vm)
	sizes := map[string]func(c goja.FunctionCall) float64{
		"repeat":   func(c goja.FunctionCall) float64 { return lengthOf(c.This) * num(c.Argument(0)) * 2 },
		"padStart": func(c goja.FunctionCall) float64 { return num(c.Argument(0)) * 2 },
		"padEnd":   func(c goja.FunctionCall) float64 { return num(c.Argument(0)) * 2 },
		"replace": func(c goja.FunctionCall) float64 {
			return lengthOf(c.This) * max(lengthOf(c.Argument(1)), 1) * 2
		},
		"replaceAll": func(c goja.FunctionCall) float64 {
			return lengthOf(c.This) * max(lengthOf(c.Argument(1)), 1) * 2
		},
	}
	for name, size := range sizes {
		if err := wrap(strProto, name, func(c goja.FunctionCall) goja.Value {
			if b := size(c); b > float64(limit) {
				return deny("String.prototype."+name, b)
			}
			return nil
		}); err != nil {
			return err
		}
	}

	// Buffers and typed arrays are allocated whole.
	for name, per := range map[string]float64{
		"ArrayBuffer": 1, "Int8Array": 1, "Uint8Array": 1, "Uint8ClampedArray": 1, "Int16Array": 2, "Uint16Array": 2,
		"Int32Array": 4, "Uint32Array": 4, "Float32Array": 4, "Float64Array": 8, "BigInt64Array": 8, "BigUint64Array": 8,
	} {
		if err := r.guardConstructor(name, func(args []goja.Value) goja.Value {
			if len(args) == 0 {
				return nil
			}
			var n float64
			if _, isObj := args[0].(*goja.Object); isObj {
				n = lengthOf(args[0])
			} else {
				n = num(args[0])
			}
			if n*per > float64(limit) {
				return deny("new "+name, n*per)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// guardConstructor replaces the global constructor name with a function
// that checks its arguments and then constructs the original; the
// prototype, statics and instanceof stay the original's.
func (r *run) guardConstructor(name string, check func(args []goja.Value) goja.Value) error {
	vm := r.vm
	orig := vm.Get(name)
	if orig == nil || goja.IsUndefined(orig) {
		return nil // not in this goja
	}
	ctor := orig.ToObject(vm)
	guarded := func(c goja.ConstructorCall) *goja.Object {
		if v := check(c.Arguments); v != nil {
			return vm.NewObject()
		}
		o, err := vm.New(ctor, c.Arguments...)
		if err != nil {
			panic(err)
		}
		return o
	}
	g := vm.ToValue(guarded).ToObject(vm)
	for _, k := range ctor.GetOwnPropertyNames() {
		if k == "length" || k == "name" {
			continue
		}
		if err := g.DefineDataProperty(k, ctor.Get(k), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
			return fmt.Errorf("guard %s.%s: %w", name, k, err)
		}
	}
	return vm.Set(name, g)
}
