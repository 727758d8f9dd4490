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
// and on Windows only the packages whose files there differ from Linux's:
// a file that one OS builds and another does not declares
// nothing exported, so a package's API, all its importers see, is the same
// on every OS and they compile alike.
func TestPerOSFilesExportNothing(t *testing.T) {
	differing := 0
	for _, dir := range packageDirs(t) {
		linux := filesFor(t, dir, "linux")
		for _, goos := range []string{"darwin", "windows"} {
			for _, name := range symmetricDifference(linux, filesFor(t, dir, goos)) {
				differing++
				if strings.HasSuffix(name, "_test.go") {
					continue // a test's names are no importer's API
				}
				for _, exported := range exportedNames(t, filepath.Join(dir, name)) {
					t.Errorf("%s declares %s, but only one of Linux and %s builds it: declare the API in a file every OS builds, and implement it per OS unexported", filepath.Join(dir, name), exported, goos)
				}
			}
		}
	}
	if differing == 0 {
		t.Fatal("no file differs between Linux and another OS: the check found nothing to check (go/build contexts wrong?)")
	}
}

// TestCommonFilesUseNoPerOSSyscalls holds the other half of what lets the
// vet of another OS skip a package whose files are Linux's: the standard
// library's own per-OS API (package syscall, golang.org/x/sys) is used only
// in per-OS files. A file every OS builds may name a signal that every OS
// has (syscall.SIGTERM; not SIGUSR1, which Windows lacks), or a type every
// OS declares alike (syscall.RawConn), and nothing else of syscall.
func TestCommonFilesUseNoPerOSSyscalls(t *testing.T) {
	checked := 0
	for _, dir := range packageDirs(t) {
		linux := filesFor(t, dir, "linux")
		darwin, windows := filesFor(t, dir, "darwin"), filesFor(t, dir, "windows")
		for _, name := range linux {
			if !slices.Contains(darwin, name) || !slices.Contains(windows, name) {
				continue
			}
			checked++
			for _, use := range perOSSyscallUses(t, filepath.Join(dir, name)) {
				t.Errorf("%s uses %s, which differs between operating systems, in a file every OS builds: move it to a per-OS file", filepath.Join(dir, name), use)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no file is built on every OS: the check found nothing to check")
	}
}

// TestHeavyPackagesBuildAlikeEverywhere keeps the vet of the other OSes
// small: a package with a file of its own on Windows or macOS is vetted
// there with every package it imports compiled for that OS. e2e imports
// nearly the whole module: one socket option in a per-OS test file of its
// own made the Windows vet compile all of it (122 s of CPU in a cold cache
// instead of 58). Such code goes into a leaf package (internal/testkit/
// sockbuf, fifo; front/hostexec).
func TestHeavyPackagesBuildAlikeEverywhere(t *testing.T) {
	for _, dir := range []string{"e2e", "cmd/egohost", "cmd/egohost-host", "internal/server/service"} {
		linux := filesFor(t, dir, "linux")
		if len(linux) == 0 {
			t.Fatalf("%s: no Go files found (moved?)", dir)
		}
		for _, goos := range []string{"darwin", "windows"} {
			if diff := symmetricDifference(linux, filesFor(t, dir, goos)); len(diff) > 0 {
				t.Errorf("%s builds %v differently on Linux and %s: move the per-OS code into a leaf package", dir, diff, goos)
			}
		}
	}
}

// packageDirs lists the module's package directories.
func packageDirs(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	return strings.Fields(string(out))
}

// everyOSSignal: the signal names package syscall has on every OS (the
// thirteen Windows defines; SIGUSR1, SIGCHLD and the like are unix's only).
var everyOSSignal = map[string]bool{
	"Signal": true, "SIGHUP": true, "SIGINT": true, "SIGQUIT": true, "SIGILL": true, "SIGTRAP": true, "SIGABRT": true,
	"SIGBUS": true, "SIGFPE": true, "SIGKILL": true, "SIGSEGV": true, "SIGPIPE": true, "SIGALRM": true, "SIGTERM": true,
}

// everyOSType: the types package syscall declares alike on every OS
// (RawConn, a net.Dialer Control's argument).
var everyOSType = map[string]bool{"RawConn": true}

// perOSSyscallUses lists what path takes from syscall other than the
// signal names and types every OS has, and its imports of golang.org/x/sys.
func perOSSyscallUses(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	syscallName := ""
	var uses []string
	for _, imp := range f.Imports {
		switch p := strings.Trim(imp.Path.Value, `"`); {
		case p == "syscall":
			syscallName = "syscall"
			if imp.Name != nil {
				syscallName = imp.Name.Name
			}
		case strings.HasPrefix(p, "golang.org/x/sys/"):
			uses = append(uses, p)
		}
	}
	if syscallName == "" {
		return uses
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == syscallName && !everyOSSignal[sel.Sel.Name] && !everyOSType[sel.Sel.Name] {
			uses = append(uses, "syscall."+sel.Sel.Name)
		}
		return true
	})
	return uses
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
