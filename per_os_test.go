package egohost

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPerOSFilesExportNothing holds what lets scripts/test.sh vet on macOS
// only the packages whose files differ from Linux's: a file that one of
// the two builds and the other does not declares nothing exported, so a
// package's API, all its importers see, is the same on both and they
// compile alike (Windows, where more differs, is vetted whole).
func TestPerOSFilesExportNothing(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	differing := 0
	for _, dir := range strings.Fields(string(out)) {
		linux, darwin := filesFor(t, dir, "linux"), filesFor(t, dir, "darwin")
		for _, name := range symmetricDifference(linux, darwin) {
			differing++
			for _, exported := range exportedNames(t, filepath.Join(dir, name)) {
				t.Errorf("%s declares %s, but only one of Linux and macOS builds it: declare the API in a file both build, and implement it per OS unexported", filepath.Join(dir, name), exported)
			}
		}
	}
	if differing == 0 {
		t.Fatal("no file differs between Linux and macOS: the check found nothing to check (go/build contexts wrong?)")
	}
}

// filesFor lists the Go files (with tests) of dir that goos builds.
func filesFor(t *testing.T, dir, goos string) []string {
	t.Helper()
	ctx := build.Default
	ctx.GOOS = goos
	pkg, err := ctx.ImportDir(dir, 0)
	if err != nil {
		if _, ok := err.(*build.NoGoError); ok {
			return nil
		}
		t.Fatalf("%s for %s: %v", dir, goos, err)
	}
	return slices.Concat(pkg.GoFiles, pkg.CgoFiles, pkg.TestGoFiles, pkg.XTestGoFiles)
}

func symmetricDifference(a, b []string) []string {
	var diff []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			diff = append(diff, x)
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			diff = append(diff, x)
		}
	}
	return diff
}

// exportedNames lists the exported identifiers a file declares at its top
// level, methods included.
func exportedNames(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	var names []string
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						names = append(names, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	return names
}
