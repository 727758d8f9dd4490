// Package rpcparams decodes the params of a JSON-RPC call strictly: by
// name (a JSON object; absent, null or {} for a method that takes none),
// every member one the method's params type decodes, spelled exactly, of
// the right JSON type. Every failure is invalid_params, in words an agent
// can act on: the field it likely meant, or the fields there are, or the
// JSON type it sent instead of an object.
//
// A call's params are parsed once (Parse): its caller may read their
// members before the method's handler, wrapped by Strict, decodes them.
package rpcparams

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/egohost/egohost/protocol"
)

// Strict wraps fn, a method called by a caller C, so that its params are
// decoded strictly into a P (a struct; None for a method that takes none)
// before it runs: a decoding failure is the call's error, and fn does not
// run.
func Strict[C, P any](fn func(ctx context.Context, c C, p P) (any, error)) func(context.Context, C, Params) (any, error) {
	var zero P
	fields, nested := shape(reflect.TypeOf(zero))
	return func(ctx context.Context, c C, in Params) (any, error) {
		var p P
		if err := in.decode(fields, nested, &p); err != nil {
			return nil, err
		}
		return fn(ctx, c, p)
	}
}

// None are the params of a method that takes none: absent, null or {}.
type None struct{}

// Params are a call's params, parsed once (Parse): its caller's checks
// (the service's scope check, its audit line) and the strict decode
// (Strict) all read its members.
type Params struct {
	raw     []byte                     // trimmed
	members map[string]json.RawMessage // nil when absent, null, or not an object
	err     error                      // why raw is no object (decode answers it)
}

// Parse parses a call's params into their members. Params that are no
// JSON object are not an error yet: decoding them is (Strict).
func Parse(raw json.RawMessage) Params {
	in := Params{raw: bytes.TrimSpace(raw)}
	if len(in.raw) == 0 || string(in.raw) == "null" {
		return in
	}
	if in.raw[0] != '{' {
		in.err = protocol.Errorf(protocol.CodeInvalidParams, "invalid params: must be a JSON object (params by name), got %s", jsonKind(in.raw[0]))
		return in
	}
	if err := json.Unmarshal(in.raw, &in.members); err != nil {
		in.err = protocol.Errorf(protocol.CodeInvalidParams, "invalid params: %v", err)
	}
	return in
}

// Members are the params' members by name: nil when the params are
// absent, null, or not a JSON object. They are the params', not a copy.
func (in Params) Members() map[string]json.RawMessage {
	return in.members
}

// decode unmarshals the params strictly into v: absent or null is the
// zero value; anything else must be a JSON object whose every member is
// one of fields, spelled exactly (encoding/json alone would take "Tab" for
// "tab"), of the right JSON type. nested says v holds structs below its
// top level, whose members a decoder that refuses unknown fields checks;
// without them the members checked here are all there are, and
// json.Unmarshal decodes the same without the decoder's pass and copies
// of the params (service.BenchmarkCallLargeParams; docs/benchmarks.md,
// "Large params"). Every failure is invalid_params.
func (in Params) decode(fields map[string]bool, nested bool, v any) error {
	if in.err != nil {
		return in.err
	}
	if in.members == nil {
		return nil
	}
	for name := range in.members {
		if !fields[name] {
			return protocol.Errorf(protocol.CodeInvalidParams, "invalid params: unknown field %q%s", name, suggest(name, fields))
		}
	}
	if !nested {
		if err := json.Unmarshal(in.raw, v); err != nil {
			return protocol.Errorf(protocol.CodeInvalidParams, "invalid params: %v", err)
		}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(in.raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return protocol.Errorf(protocol.CodeInvalidParams, "invalid params: %v", err)
	}
	return nil
}

// suggest names the known field that differs from name only in case.
func suggest(name string, fields map[string]bool) string {
	for f := range fields {
		if strings.EqualFold(f, name) {
			return " (did you mean " + strconv.Quote(f) + "?)"
		}
	}
	known := make([]string, 0, len(fields))
	for f := range fields {
		known = append(known, f)
	}
	if len(known) == 0 {
		return " (this method takes no params)"
	}
	sort.Strings(known)
	return " (known: " + strings.Join(known, ", ") + ")"
}

// shape returns the JSON member names a struct type t (or what it points
// to) decodes, embedded structs' included, and whether one of those
// members is, holds or points to a struct: an object below the top level,
// whose unknown members only a strict decoder refuses.
func shape(t reflect.Type) (names map[string]bool, nested bool) {
	names = make(map[string]bool)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return names, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			inner, n := shape(f.Type)
			for m := range inner {
				names[m] = true
			}
			nested = nested || n
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names[name] = true
		ft := f.Type
		for k := ft.Kind(); k == reflect.Pointer || k == reflect.Slice || k == reflect.Array || k == reflect.Map; k = ft.Kind() {
			ft = ft.Elem()
		}
		nested = nested || ft.Kind() == reflect.Struct
	}
	return names, nested
}

// jsonKind names the JSON type that starts with c.
func jsonKind(c byte) string {
	switch {
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	default:
		return "a number"
	}
}
