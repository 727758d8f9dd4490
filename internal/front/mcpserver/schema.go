package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The tools' input schemas keep to the strictest subset that common
// function-calling APIs accept, so that a client may hand them to its
// model as they are. That subset is the Gemini API's function declaration
// `parameters` Schema, "a select subset of an OpenAPI 3.0 schema object"
// (https://ai.google.dev/api/rest/v1beta/Schema), whose fields are type
// (one of STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT: never a list),
// format, description, nullable, enum ("possible values of the element of
// Type.STRING"), properties, required and items. What clients have seen
// refused, and we therefore never emit:
//   - type unions, as Go slices and pointers come out (["null", "array"]);
//   - additionalProperties ("Invalid JSON payload received. Unknown name
//     \"additionalProperties\"": nanbingxyz/5ire#42);
//   - an empty properties object ("properties: should be non-empty for
//     OBJECT type": vercel/ai#3371, CherryHQ/cherry-studio#3270): a tool
//     without arguments has the schema {"type": "object"};
//   - $ref, $defs, oneOf, anyOf, allOf, not, const, default, title,
//     minimum/maximum and the other constraints;
//   - properties or required on anything but an object
//     (anomalyco/opencode#11889); enum on anything but a string.
//
// Property names keep to Gemini's ([A-Za-z_][A-Za-z0-9_]{0,63}) and tool
// names to Gemini's and OpenAI's both ([A-Za-z_][A-Za-z0-9_-]{0,63}).
// TestSchemasKeepToTheStrictSubset checks every tool against these rules.
//
// The model sees the offered schema; the arguments are still checked
// against the strict one the SDK infers (additionalProperties false
// included), so a misspelt argument is an error, not ignored.

// toolSchemas are a tool's input schemas: the one offered to clients and
// the one its arguments are checked against.
type toolSchemas struct {
	offered *jsonschema.Schema
	strict  *jsonschema.Resolved
}

// schemasFor infers In's schemas: descriptions from the jsonschema tags,
// enums from the enum tags (comma-separated values; on a slice, of its
// items), required from the fields without omitempty.
func schemasFor[In any]() (toolSchemas, error) {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return toolSchemas{}, err
	}
	addEnums(s, reflect.TypeFor[In]())
	plainTypes(s)
	strict, err := s.CloneSchemas().Resolve(nil)
	if err != nil {
		return toolSchemas{}, err
	}
	offered := s.CloneSchemas()
	strip(offered)
	return toolSchemas{offered: offered, strict: strict}, nil
}

// addEnums sets the enum of each property whose field has an enum tag.
func addEnums(s *jsonschema.Schema, t reflect.Type) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
		if s.Items != nil {
			s = s.Items
		}
	}
	if t.Kind() != reflect.Struct || s == nil {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			addEnums(s, f.Type) // promoted fields: the same properties
			continue
		}
		p := s.Properties[name]
		if p == nil {
			continue
		}
		if tag := f.Tag.Get("enum"); tag != "" {
			target := p
			if p.Items != nil {
				target = p.Items
			}
			for _, v := range strings.Split(tag, ",") {
				target.Enum = append(target.Enum, v)
			}
		}
		addEnums(p, f.Type)
	}
}

// plainTypes turns the type unions the inference makes of slices and
// pointers (["null", "array"]) into the one type.
func plainTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if len(types) == 1 {
			s.Type, s.Types = types[0], nil
		}
	}
	plainTypes(s.Items)
	for _, p := range s.Properties {
		plainTypes(p)
	}
}

// strip drops what the strict subset refuses from an offered schema.
func strip(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	if len(s.Properties) == 0 {
		s.Properties = nil
	}
	strip(s.Items)
	for _, p := range s.Properties {
		strip(p)
	}
}

// check checks a tool's arguments against its strict schema.
func (ts toolSchemas) check(args json.RawMessage) error {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	if m, ok := v.(map[string]any); ok {
		for k := range m {
			if _, known := ts.offered.Properties[k]; !known {
				return fmt.Errorf("unknown argument %q (known: %s)", k, strings.Join(propertyNames(ts.offered), ", "))
			}
		}
	}
	if err := ts.strict.Validate(v); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	return nil
}

func propertyNames(s *jsonschema.Schema) []string {
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	if len(names) == 0 {
		return []string{"none"}
	}
	return names
}
