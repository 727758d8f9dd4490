package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The strict subset (schema.go says where each rule comes from): the keys
// a schema node may have, the types, and the names.
var (
	subsetKeys    = []string{"type", "description", "enum", "items", "properties", "required", "format", "nullable"}
	subsetTypes   = []string{"string", "number", "integer", "boolean", "array", "object"}
	toolName      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)
	parameterName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
)

// checkSubset returns what in the schema node s (at path) the strict
// subset refuses.
func checkSubset(path string, s map[string]any) []string {
	var bad []string
	for k := range s {
		if !slices.Contains(subsetKeys, k) {
			bad = append(bad, fmt.Sprintf("%s: %q is not in the subset", path, k))
		}
	}
	typ, ok := s["type"].(string)
	if !ok || !slices.Contains(subsetTypes, typ) {
		return append(bad, fmt.Sprintf("%s: type %v is not one of %v", path, s["type"], subsetTypes))
	}
	if d, _ := s["description"].(string); path != "" && !strings.HasSuffix(path, "[]") && strings.TrimSpace(d) == "" {
		bad = append(bad, path+": no description") // the model needs one for every argument
	}
	if e, ok := s["enum"]; ok {
		vals, _ := e.([]any)
		if typ != "string" || len(vals) == 0 {
			bad = append(bad, fmt.Sprintf("%s: enum on a %s, or empty", path, typ))
		}
		for _, v := range vals {
			if _, ok := v.(string); !ok {
				bad = append(bad, fmt.Sprintf("%s: enum value %v is not a string", path, v))
			}
		}
	}
	_, hasItems := s["items"]
	if (typ == "array") != hasItems {
		bad = append(bad, fmt.Sprintf("%s: a %s with items %t", path, typ, hasItems))
	}
	if items, ok := s["items"].(map[string]any); ok {
		bad = append(bad, checkSubset(path+"[]", items)...)
	}
	props, hasProps := s["properties"].(map[string]any)
	if _, ok := s["properties"]; ok && (typ != "object" || len(props) == 0) {
		bad = append(bad, fmt.Sprintf("%s: properties on a %s, or empty", path, typ))
	}
	if req, ok := s["required"].([]any); ok {
		if typ != "object" {
			bad = append(bad, path+": required on a "+typ)
		}
		for _, r := range req {
			if _, ok := props[fmt.Sprint(r)]; !ok {
				bad = append(bad, fmt.Sprintf("%s: required %v is no property", path, r))
			}
		}
	}
	if hasProps {
		for name, p := range props {
			if !parameterName.MatchString(name) {
				bad = append(bad, fmt.Sprintf("%s: property name %q", path, name))
			}
			ps, ok := p.(map[string]any)
			if !ok {
				bad = append(bad, fmt.Sprintf("%s.%s: not a schema", path, name))
				continue
			}
			bad = append(bad, checkSubset(path+"."+name, ps)...)
		}
	}
	return bad
}

// Every tool's input schema keeps to the strictest subset common
// function-calling APIs accept (Gemini's function declarations; see
// schema.go), as a client lists it, for every group.
func TestSchemasKeepToTheStrictSubset(t *testing.T) {
	cs := connect(t, &fakeService{})
	res := listTools(t, cs)
	if len(res.Tools) != len(catalog()) {
		t.Fatalf("listed %d tools, the catalog has %d", len(res.Tools), len(catalog()))
	}
	for _, tl := range res.Tools {
		if !toolName.MatchString(tl.Name) {
			t.Errorf("tool name %q: not [A-Za-z_][A-Za-z0-9_-]{0,63}", tl.Name)
		}
		if tl.Title == "" || tl.Annotations == nil || tl.Annotations.Title != tl.Title || tl.Annotations.DestructiveHint == nil || tl.Annotations.OpenWorldHint == nil {
			t.Errorf("%s: title %q, annotations %+v: want a title and all four hints", tl.Name, tl.Title, tl.Annotations)
		}
		if a := tl.Annotations; a != nil && a.ReadOnlyHint && a.DestructiveHint != nil && *a.DestructiveHint {
			t.Errorf("%s: read-only and destructive", tl.Name)
		}
		b, err := json.Marshal(tl.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if s["type"] != "object" {
			t.Errorf("%s: the input schema's type is %v, want object", tl.Name, s["type"])
		}
		for _, bad := range checkSubset("", s) {
			t.Errorf("%s: %s", tl.Name, bad)
		}
	}
}

// The checker itself refuses what clients were seen to refuse.
func TestCheckSubsetRefuses(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string
	}{
		{"a type union", `{"type":"object","properties":{"a":{"type":["null","array"],"items":{"type":"string"},"description":"x"}}}`, "type [null array]"},
		{"additionalProperties", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string","description":"x"}}}`, `"additionalProperties" is not in the subset`},
		{"empty properties", `{"type":"object","properties":{}}`, "properties on a object, or empty"},
		{"a $ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/x","type":"string","description":"x"}}}`, `"$ref" is not in the subset`},
		{"anyOf", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"}],"type":"string","description":"x"}}}`, `"anyOf" is not in the subset`},
		{"an enum on a number", `{"type":"object","properties":{"a":{"type":"number","enum":[1,2],"description":"x"}}}`, "enum on a number"},
		{"a property name with a dot", `{"type":"object","properties":{"a.b":{"type":"string","description":"x"}}}`, `property name "a.b"`},
		{"a title", `{"type":"object","properties":{"a":{"type":"string","title":"A","description":"x"}}}`, `"title" is not in the subset`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s map[string]any
			if err := json.Unmarshal([]byte(tt.schema), &s); err != nil {
				t.Fatal(err)
			}
			got := strings.Join(checkSubset("", s), "; ")
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %q, want it to say %q", got, tt.want)
			}
		})
	}
}

// The offered schema leaves out additionalProperties, but arguments are
// still checked strictly: an unknown or misspelt argument, a value not in
// an enum, a wrong type are one-line invalid_params errors, and nothing
// reaches the service.
func TestArgumentsAreCheckedStrictly(t *testing.T) {
	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"browser_click", map[string]any{"taget": "@3"}, `invalid_params: unknown argument "taget" (known: button, doubleClick, element, modifiers, ref, target)`},
		{"browser_tabs", map[string]any{"action": "shuffle"}, "invalid_params: arguments: "},
		{"browser_click", map[string]any{"target": "@3", "modifiers": []string{"Hyper"}}, "invalid_params: arguments: "},
		{"browser_fill_form", map[string]any{"fields": []map[string]any{{"target": "@1", "type": "textbox", "value": "x", "colour": "red"}}}, "invalid_params: arguments: "},
		{"browser_navigate", map[string]any{"url": 42}, "invalid_params: arguments: "},
		{"browser_navigate", map[string]any{}, "invalid_params: arguments: "},
		{"browser_close", map[string]any{"force": true}, `invalid_params: unknown argument "force" (known: none)`},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+fmt.Sprint(tt.args), func(t *testing.T) {
			f := &fakeService{}
			cs := connect(t, f)
			got, isErr := callText(t, cs, tt.tool, tt.args)
			if !isErr || !strings.HasPrefix(got, tt.want) || strings.Contains(got, "\n") {
				t.Errorf("got %q (error %t), want one line starting %q", got, isErr, tt.want)
			}
			if len(f.calls) != 0 {
				t.Errorf("calls %q, want none", f.calls)
			}
		})
	}
}

// --caps adds groups to the default ones, --tools names the tools (and
// groups) offered; unknown names are errors naming the known ones.
func TestCapsAndTools(t *testing.T) {
	names := func(o Options) ([]string, error) {
		defs, err := o.offered()
		var out []string
		for _, d := range defs {
			out = append(out, d.name)
		}
		return out, err
	}
	def, err := names(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(def, "browser_verify_value") || !slices.Contains(def, "browser_space_wait") || !slices.Contains(def, "browser_cookies") {
		t.Errorf("the default tools %v: want spaces and storage, not testing", def)
	}
	withTesting, _ := names(Options{Caps: []string{"testing"}})
	all, _ := names(Options{Caps: []string{"all"}})
	if len(withTesting) != len(catalog()) || len(all) != len(catalog()) {
		t.Errorf("--caps testing gives %d tools, all %d; want the %d of the catalog", len(withTesting), len(all), len(catalog()))
	}
	tests := []struct {
		name string
		o    Options
		want []string
		err  string
	}{
		{"tools by name", Options{Tools: []string{"browser_snapshot", "browser_click"}}, []string{"browser_snapshot", "browser_click"}, ""},
		{"a group and a tool", Options{Tools: []string{"tabs", "browser_navigate"}}, []string{"browser_navigate", "browser_tabs"}, ""},
		{"tools and caps", Options{Tools: []string{"browser_snapshot"}, Caps: []string{"spaces"}}, []string{"browser_snapshot", "browser_spaces", "browser_space_new", "browser_space_wait", "browser_space_complete"}, ""},
		{"an unknown tool", Options{Tools: []string{"browser_clik"}}, nil, `--tools: "browser_clik" is neither a tool nor a group`},
		{"a tool in --caps", Options{Caps: []string{"browser_click"}}, nil, `--caps: "browser_click" is not a group: want all or core, tabs, spaces, storage, testing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := names(tt.o)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("got %v, %v; want error %q", got, err, tt.err)
				}
				if _, err := New(&fakeService{}, tt.o); err == nil {
					t.Error("New accepted it")
				}
				return
			}
			if err != nil || !cmp.Equal(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	cs := connectWith(t, &fakeService{}, Options{Tools: []string{"browser_snapshot"}})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != 1 || res.Tools[0].Name != "browser_snapshot" {
		t.Errorf("listed %v, %v; want browser_snapshot alone", res, err)
	}
}
