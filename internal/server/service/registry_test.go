package service

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/egohost/egohost/protocol"
)

// The registry against what the project says and does elsewhere: every
// method is in PROTOCOL.md's method tables (§3) and every method there is
// a row; a method an MCP tool (internal/front/mcpserver) or a CLI verb (internal/front/cli, cmd/egohost-host and
// the client library it uses) calls says nothing against it, and one
// none calls says why (noMCP, noCLI).
func TestRegistry(t *testing.T) {
	rows := (&Service{}).registry()
	byName := methodsByName(rows)
	if len(byName) != len(rows) {
		t.Errorf("got %d rows for %d names: a method has two rows", len(rows), len(byName))
	}
	documented := protocolMethods(t, "../../../PROTOCOL.md")
	for _, m := range rows {
		if got, want := protocol.MayConfirm(m.name), len(m.kinds) > 0; got != want {
			t.Errorf("%s: protocol.MayConfirm says %v, the registry's kinds %v: the clients' deadlines would not match the service's", m.name, got, m.kinds)
		}
		if !documented[m.name] {
			t.Errorf("%s: not in PROTOCOL.md's method tables (§3)", m.name)
		}
	}
	for name := range documented {
		if _, ok := byName[name]; !ok {
			t.Errorf("PROTOCOL.md documents %s, which has no row in registry.go", name)
		}
	}
	consts := methodConsts(t, "../../../protocol")
	mcp := calledMethods(t, consts, "../../front/mcpserver")
	cli := calledMethods(t, consts, "../../front/cli", "../../../cmd/egohost-host", "../../../client")
	for _, m := range rows {
		for _, fe := range []struct {
			name   string
			called map[string]bool
			why    string
		}{{"MCP tool", mcp, m.noMCP}, {"CLI verb", cli, m.noCLI}} {
			switch {
			case fe.called[m.name] && fe.why != "":
				t.Errorf("%s: a %s calls it, but its row says none does (%q)", m.name, fe.name, fe.why)
			case !fe.called[m.name] && fe.why == "":
				t.Errorf("%s: no %s calls it: add one, or say why not in its row", m.name, fe.name)
			}
		}
	}
	for name := range mcp {
		if _, ok := byName[name]; !ok && !strings.HasPrefix(name, "popup.") {
			t.Errorf("mcpserver calls %s, which has no row", name)
		}
	}
}

// protocolMethods are the first column of PROTOCOL.md's tables headed
// "method" in §3 (the agents' API), less its notifications (§3.2).
func protocolMethods(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	inAgents, inTable := false, false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			inAgents = strings.HasPrefix(line, "## 3.")
		case strings.HasPrefix(line, "### "):
			inAgents = strings.HasPrefix(line, "### 3.") && !strings.Contains(line, "Notifications")
		}
		if !strings.HasPrefix(line, "|") {
			inTable = false
			continue
		}
		cells := strings.Split(line, "|")
		first := strings.TrimSpace(cells[1])
		switch {
		case first == "method":
			inTable = inAgents
		case inTable && strings.HasPrefix(first, "`") && strings.HasSuffix(first, "`"):
			for _, name := range strings.Split(first, ",") { // "`back`, `forward`, `reload`"
				out[strings.Trim(strings.TrimSpace(name), "`")] = true
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 30 {
		t.Fatalf("got %d methods from %s's tables, want them all", len(out), path)
	}
	return out
}

// methodConsts maps protocol's Method… constants to their names.
func methodConsts(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range parseDir(t, dir) {
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, id := range vs.Names {
				if !strings.HasPrefix(id.Name, "Method") || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ := strconv.Unquote(lit.Value)
					out[id.Name] = v
				}
			}
			return true
		})
	}
	return out
}

// calledMethods are the methods the non-test Go files of dirs name
// (protocol.MethodX).
func calledMethods(t *testing.T, consts map[string]string, dirs ...string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, dir := range dirs {
		for _, f := range parseDir(t, dir) {
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "protocol" {
						if name, ok := consts[sel.Sel.Name]; ok {
							out[name] = true
						}
					}
				}
				return true
			})
		}
	}
	return out
}

func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	sort.Strings(paths)
	var files []*ast.File
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}
