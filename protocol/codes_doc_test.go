package protocol

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// codeConsts reads every constant of type Code declared in the package's
// sources, so that a new code cannot miss the checks below.
func codeConsts(t *testing.T) map[string]Code {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	out := map[string]Code{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" || len(vs.Values) != 1 {
					continue
				}
				lit := vs.Values[0]
				neg := false
				if u, ok := lit.(*ast.UnaryExpr); ok && u.Op == token.SUB {
					lit, neg = u.X, true
				}
				bl, ok := lit.(*ast.BasicLit)
				if !ok {
					t.Fatalf("%s: not a number literal", vs.Names[0].Name)
				}
				n, err := strconv.Atoi(bl.Value)
				if err != nil {
					t.Fatal(err)
				}
				if neg {
					n = -n
				}
				out[vs.Names[0].Name] = Code(n)
			}
		}
	}
	return out
}

// TestEveryCodeIsNamedAndDocumented: every Code constant has its own name,
// and PROTOCOL.md's code tables have a row with its number and that name.
func TestEveryCodeIsNamedAndDocumented(t *testing.T) {
	doc, err := os.ReadFile("../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	codes := codeConsts(t)
	if len(codes) < 40 {
		t.Fatalf("got %d Code constants, want the whole set (at least 40)", len(codes))
	}
	seen := map[string]string{}
	for ident, c := range codes {
		name := c.Name()
		if strings.HasPrefix(name, "code_") {
			t.Errorf("%s (%d) has no name", ident, int(c))
			continue
		}
		if other, dup := seen[name]; dup {
			t.Errorf("%s and %s share the name %q", ident, other, name)
		}
		seen[name] = ident
		if row := fmt.Sprintf("| %d | `%s` |", int(c), name); !strings.Contains(string(doc), row) {
			t.Errorf("%s: PROTOCOL.md has no row %q", ident, row)
		}
	}
}
