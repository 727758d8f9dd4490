package service

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

// handler runs one method. Only typed makes one, so the params of every
// method in the registry are decoded by decodeParams and by nothing else:
// a new method cannot forget to refuse unknown fields or a wrong JSON type.
type handler struct {
	run func(ctx context.Context, c *call, in params) (any, error)
}

// typed makes the handler of a method whose params are a P (a struct;
// noParams for methods that take none).
func typed[P any](fn func(ctx context.Context, c *call, p P) (any, error)) handler {
	return handler{run: strict(fn)}
}

// strict wraps fn, called with a caller C (an agent's call, or the link of a
// popup), so that its params are decoded by decodeParams.
func strict[C, P any](fn func(ctx context.Context, c C, p P) (any, error)) func(context.Context, C, params) (any, error) {
	var zero P
	fields := fieldNames(reflect.TypeOf(zero))
	return func(ctx context.Context, c C, in params) (any, error) {
		var p P
		if err := in.decode(fields, &p); err != nil {
			return nil, err
		}
		return fn(ctx, c, p)
	}
}

// noParams are the params of a method that takes none: absent, null or {}.
type noParams struct{}

// params are a call's params, parsed once (parseParams): the scope check
// (a raise), the audit line and the strict decode all read its members.
type params struct {
	raw     []byte                     // trimmed
	members map[string]json.RawMessage // nil when absent, null, or not an object
	err     error                      // why raw is no object (decode answers it)
}

// parseParams parses a call's params into their members.
func parseParams(raw json.RawMessage) params {
	in := params{raw: bytes.TrimSpace(raw)}
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

// decodeParams decodes raw params strictly into v (see params.decode).
func decodeParams(raw json.RawMessage, fields map[string]bool, v any) error {
	return parseParams(raw).decode(fields, v)
}

// decode unmarshals the params strictly into v: absent or null is the
// zero value; anything else must be a JSON object whose every member is
// one of fields, spelled exactly (encoding/json alone would take "Tab" for
// "tab"), of the right JSON type. Every failure is invalid_params.
func (in params) decode(fields map[string]bool, v any) error {
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

// fieldNames returns the JSON member names a struct type decodes,
// embedded structs' included.
func fieldNames(t reflect.Type) map[string]bool {
	names := make(map[string]bool)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return names
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			for n := range fieldNames(f.Type) {
				names[n] = true
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		names[name] = true
	}
	return names
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
