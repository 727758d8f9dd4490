package extwire

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/egohost/egohost/extension"
)

// allOps is every op type the service sends (one value of each).
var allOps = []Op{CDP{}, Attach{}, Detach{}, TabsList{}, TabsFocused{}, TabsOpen{}, TabsClose{}, TabsActivate{}, Echo{}, GroupsAdd{}, GroupsUpdate{}, GroupsList{}, DownloadsDiscard{}, EventsQuiet{}}

// notSent are the ops the extension answers that the service never sends
// (the popup and tests use them).
var notSent = []string{"ping"}

// opSet reads the op set the extension declares (extension/opset.js): op
// → field → kind ("tabId", "string?", …).
func opSet(t *testing.T) map[string]map[string]string {
	t.Helper()
	b, err := fs.ReadFile(extension.Files(), "opset.js")
	if err != nil {
		t.Fatal(err)
	}
	const open, end = "export const OPS = Object.freeze(\n", "\n);"
	src := string(b)
	i := strings.Index(src, open)
	j := strings.LastIndex(src, end)
	if i < 0 || j < i {
		t.Fatalf("opset.js: no %q … %q", open, end)
	}
	var ops map[string]map[string]string
	if err := json.Unmarshal([]byte(src[i+len(open):j]), &ops); err != nil {
		t.Fatalf("opset.js: the op set is not JSON: %v", err)
	}
	return ops
}

// The extension's op set (extension/opset.js) is the one declaration of
// the ops: every op type here is one of its ops with its fields (a field
// the extension requires is always sent, and each field's Go type fits
// its kind), every op of it is sent or deliberately not, and PROTOCOL.md's
// table lists exactly its ops.
func TestOpSetMatchesTheExtension(t *testing.T) {
	ops := opSet(t)
	sent := map[string]bool{}
	for _, op := range allOps {
		name := op.OpName()
		sent[name] = true
		fields, ok := ops[name]
		if !ok {
			t.Errorf("%T: op %q is not in extension/opset.js", op, name)
			continue
		}
		seen := map[string]bool{}
		typ := reflect.TypeOf(op)
		for i := range typ.NumField() {
			f := typ.Field(i)
			tag := f.Tag.Get("json")
			jsonName, opts, _ := strings.Cut(tag, ",")
			if tag == "-" {
				continue // the service's own, never on the wire
			}
			if jsonName == "" {
				t.Errorf("%T.%s: no JSON name", op, f.Name)
				continue
			}
			seen[jsonName] = true
			kind, ok := fields[jsonName]
			if !ok {
				t.Errorf("%s: field %q is not in extension/opset.js (it takes %v)", name, jsonName, slices.Sorted(maps.Keys(fields)))
				continue
			}
			optional := strings.HasSuffix(kind, "?")
			if !optional && strings.Contains(opts, "omitempty") {
				t.Errorf("%s: field %q is required by the extension but %T.%s may leave it out (omitempty)", name, jsonName, op, f.Name)
			}
			if !fits(f.Type, strings.TrimSuffix(kind, "?")) {
				t.Errorf("%s: field %q is %s in Go, the extension wants %s", name, jsonName, f.Type, kind)
			}
		}
		for field, kind := range fields {
			if !seen[field] {
				t.Errorf("%s: the extension takes field %q (%s); %T has none", name, field, kind, op)
			}
		}
	}
	for name := range ops {
		if !sent[name] && !slices.Contains(notSent, name) {
			t.Errorf("op %q of extension/opset.js: no op type sends it (add one, or list it in notSent)", name)
		}
	}
	for _, name := range notSent {
		if _, ok := ops[name]; !ok {
			t.Errorf("notSent lists %q, which extension/opset.js does not have", name)
		}
	}

	// PROTOCOL.md §2.1's table: one row per op, in any order.
	doc, err := os.ReadFile("../../../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	if i := strings.Index(section, "| op | fields | result |"); i >= 0 {
		section = section[i:]
		if j := strings.Index(section, "\n\n"); j >= 0 {
			section = section[:j]
		}
	} else {
		t.Fatal("PROTOCOL.md: no op table (| op | fields | result |)")
	}
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z.]+)` \\|").FindAllStringSubmatch(section, -1) {
		documented = append(documented, m[1])
	}
	if got, want := slices.Sorted(slices.Values(documented)), slices.Sorted(maps.Keys(ops)); !slices.Equal(got, want) {
		t.Errorf("PROTOCOL.md's op table lists %v; extension/opset.js has %v", got, want)
	}
}

// Every op type of the package is in allOps, so the test above sees it.
func TestAllOpsListsEveryOpType(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name != "OpName" || fn.Recv == nil {
				continue
			}
			if id, ok := fn.Recv.List[0].Type.(*ast.Ident); ok {
				declared = append(declared, id.Name)
			}
		}
	}
	var listed []string
	for _, op := range allOps {
		listed = append(listed, reflect.TypeOf(op).Name())
	}
	if got, want := slices.Sorted(slices.Values(listed)), slices.Sorted(slices.Values(declared)); !slices.Equal(got, want) {
		t.Errorf("allOps has %v; the types with an OpName method are %v", got, want)
	}
}

// fits reports whether a Go field's type carries a kind of opset.js.
func fits(t reflect.Type, kind string) bool {
	switch kind {
	case "tabId":
		return t.Kind() == reflect.Int
	case "tabIds":
		return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Int
	case "string", "color":
		return t.Kind() == reflect.String
	case "bool":
		return t.Kind() == reflect.Bool
	case "object":
		return t == reflect.TypeOf(json.RawMessage(nil)) || t.Kind() == reflect.Map || t.Kind() == reflect.Struct ||
			t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct
	case "names":
		return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String
	case "any":
		return true
	}
	return false
}
