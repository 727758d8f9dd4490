// Command crossvet type-checks and vets Go packages as they build on
// another OS, from their source: every package they import, the
// standard library's too, is type-checked from source rather than
// compiled, so checking the per-OS files of a Linux checkout for Windows
// and macOS costs a few seconds instead of compiling two standard
// libraries (docs/testing.md has the figures). It runs go vet's
// analyzers (those of cmd/vet in Go 1.26) on the named packages and
// their tests.
//
// Usage:
//
//	crossvet -goos windows [-C dir] package...
//
// It exits 1 when a package is missing or does not type-check, or an
// analyzer reports something; 2 on a bad command line or when go list
// cannot run (an OS Go does not know).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/analysis/passes/appends"
	"golang.org/x/tools/go/analysis/passes/asmdecl"
	"golang.org/x/tools/go/analysis/passes/assign"
	"golang.org/x/tools/go/analysis/passes/atomic"
	"golang.org/x/tools/go/analysis/passes/bools"
	"golang.org/x/tools/go/analysis/passes/buildtag"
	"golang.org/x/tools/go/analysis/passes/cgocall"
	"golang.org/x/tools/go/analysis/passes/composite"
	"golang.org/x/tools/go/analysis/passes/copylock"
	"golang.org/x/tools/go/analysis/passes/defers"
	"golang.org/x/tools/go/analysis/passes/directive"
	"golang.org/x/tools/go/analysis/passes/errorsas"
	"golang.org/x/tools/go/analysis/passes/framepointer"
	"golang.org/x/tools/go/analysis/passes/hostport"
	"golang.org/x/tools/go/analysis/passes/httpresponse"
	"golang.org/x/tools/go/analysis/passes/ifaceassert"
	"golang.org/x/tools/go/analysis/passes/loopclosure"
	"golang.org/x/tools/go/analysis/passes/lostcancel"
	"golang.org/x/tools/go/analysis/passes/nilfunc"
	"golang.org/x/tools/go/analysis/passes/printf"
	"golang.org/x/tools/go/analysis/passes/shift"
	"golang.org/x/tools/go/analysis/passes/sigchanyzer"
	"golang.org/x/tools/go/analysis/passes/slog"
	"golang.org/x/tools/go/analysis/passes/stdmethods"
	"golang.org/x/tools/go/analysis/passes/stdversion"
	"golang.org/x/tools/go/analysis/passes/stringintconv"
	"golang.org/x/tools/go/analysis/passes/structtag"
	"golang.org/x/tools/go/analysis/passes/testinggoroutine"
	"golang.org/x/tools/go/analysis/passes/tests"
	"golang.org/x/tools/go/analysis/passes/timeformat"
	"golang.org/x/tools/go/analysis/passes/unmarshal"
	"golang.org/x/tools/go/analysis/passes/unreachable"
	"golang.org/x/tools/go/analysis/passes/unsafeptr"
	"golang.org/x/tools/go/analysis/passes/unusedresult"
	"golang.org/x/tools/go/analysis/passes/waitgroup"
	"golang.org/x/tools/go/packages"
)

// vetSuite is cmd/vet's list of analyzers in Go 1.26, in its order.
var vetSuite = []*analysis.Analyzer{
	appends.Analyzer, asmdecl.Analyzer, assign.Analyzer, atomic.Analyzer,
	bools.Analyzer, buildtag.Analyzer, cgocall.Analyzer, composite.Analyzer,
	copylock.Analyzer, defers.Analyzer, directive.Analyzer, errorsas.Analyzer,
	framepointer.Analyzer, httpresponse.Analyzer, hostport.Analyzer,
	ifaceassert.Analyzer, loopclosure.Analyzer, lostcancel.Analyzer,
	nilfunc.Analyzer, printf.Analyzer, shift.Analyzer, sigchanyzer.Analyzer,
	slog.Analyzer, stdmethods.Analyzer, stdversion.Analyzer,
	stringintconv.Analyzer, structtag.Analyzer, tests.Analyzer,
	testinggoroutine.Analyzer, timeformat.Analyzer, unmarshal.Analyzer,
	unreachable.Analyzer, unsafeptr.Analyzer, unusedresult.Analyzer,
	waitgroup.Analyzer,
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("crossvet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	goos := fs.String("goos", "", "the OS to check the packages for (GOOS)")
	dir := fs.String("C", "", "the directory to load the packages from")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *goos == "" || fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: crossvet -goos GOOS [-C dir] package...")
		return 2
	}
	problems, err := vet(*goos, *dir, fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "crossvet: %v\n", err)
		return 2
	}
	for _, p := range problems {
		fmt.Fprintln(stdout, p)
	}
	if len(problems) > 0 {
		return 1
	}
	return 0
}

// vet loads patterns and their tests as they build for goos (without
// cgo, as a cross build is) and returns their type errors and the vet
// analyzers' diagnostics, each once (a package's test variant repeats its
// files), sorted.
func vet(goos, dir string, patterns []string) ([]string, error) {
	cfg := &packages.Config{
		Mode:  packages.LoadAllSyntax,
		Tests: true,
		Dir:   dir,
		Env:   append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0"),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("load %s for %s: %w", patterns, goos, err)
	}
	seen := map[string]bool{}
	var problems []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			problems = append(problems, s)
		}
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			add(fmt.Sprintf("%s (%s)", e, goos))
		}
	})
	if len(problems) > 0 {
		// The analyzers need packages that type-check.
		slices.Sort(problems)
		return problems, nil
	}
	graph, err := checker.Analyze(vetSuite, pkgs, nil)
	if err != nil {
		return nil, fmt.Errorf("analyze %s for %s: %w", patterns, goos, err)
	}
	for act := range graph.All() {
		if !act.IsRoot {
			continue
		}
		if act.Err != nil {
			add(fmt.Sprintf("%s: %s: %v (%s)", act.Package.PkgPath, act.Analyzer.Name, act.Err, goos))
		}
		for _, d := range act.Diagnostics {
			add(fmt.Sprintf("%s: %s (%s, %s)", act.Package.Fset.Position(d.Pos), d.Message, act.Analyzer.Name, goos))
		}
	}
	slices.Sort(problems)
	return problems, nil
}
