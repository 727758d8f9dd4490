package aria

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/runtime"
)

func str(s string) *runtime.RemoteObject {
	return &runtime.RemoteObject{Type: runtime.RemoteObjectTypeString, Value: []byte(strconv.Quote(s))}
}

func TestAgain(t *testing.T) {
	f, g := Keep("(el) => 1"), Keep("(el) => 2")
	deep := &runtime.RemoteObject{Type: runtime.RemoteObjectTypeString, DeepSerializedValue: &runtime.DeepSerializedValue{Type: "string", Value: []byte(strconv.Quote(noModule))}}
	tests := []struct {
		name  string
		f     Func
		in    Install
		res   *runtime.RemoteObject
		want  Install
		again bool
	}{
		{"ran", f, InstallNone, str("a value"), InstallNone, false},
		{"no result", f, InstallNone, nil, InstallNone, false},
		{"a number", f, InstallNone, &runtime.RemoteObject{Type: "number", Value: []byte("1")}, InstallNone, false},
		{"no module", f, InstallNone, str(noModule), InstallModule, true},
		{"no module, deep serialized", f, InstallNone, deep, InstallModule, true},
		{"no function", f, InstallNone, str(f.noFunc()), InstallFunc, true},
		{"another function's marker", f, InstallNone, str(g.noFunc()), InstallNone, false},
		{"no module after the function was sent", f, InstallFunc, str(noModule), InstallModule, true},
		{"still no module after installing it", f, InstallModule, str(noModule), InstallModule, false},
		{"a sent function knows no function marker", Send("(el) => 1"), InstallNone, str(f.noFunc()), InstallNone, false},
		{"a sent function needs the module", Send("(el) => 1"), InstallNone, str(noModule), InstallModule, true},
	}
	for _, tt := range tests {
		got, again := tt.f.Again(tt.in, tt.res)
		if got != tt.want || again != tt.again {
			t.Errorf("%s: got %d, %v; want %d, %v", tt.name, got, again, tt.want, tt.again)
		}
	}
}

// What each home sends: a page function never the module; a sent function
// the module only when asked; a kept one the function only when asked,
// and the module only with it.
func TestCallSends(t *testing.T) {
	const src = "(el, ns) => 'SRC'"
	tests := []struct {
		name             string
		f                Func
		in               Install
		module, function bool
	}{
		{"page", Page(src), InstallModule, false, true},
		{"sent", Send(src), InstallNone, false, true},
		{"sent with the module", Send(src), InstallModule, true, true},
		{"kept", Keep(src), InstallNone, false, false},
		{"kept, the function", Keep(src), InstallFunc, false, true},
		{"kept, the module and the function", Keep(src), InstallModule, true, true},
	}
	for _, tt := range tests {
		got := tt.f.Call(tt.in, "document", "1")
		if m := strings.Contains(got, module()); m != tt.module {
			t.Errorf("%s: sends the module: %v, want %v", tt.name, m, tt.module)
		}
		if fn := strings.Contains(got, "'SRC'"); fn != tt.function {
			t.Errorf("%s: sends the function: %v, want %v", tt.name, fn, tt.function)
		}
	}
}

func TestShown(t *testing.T) {
	tests := []struct {
		name, in, want string
		hasNoText      bool
	}{
		{"plain name", "Save  all", "Save  all", false},
		{"an icon font's glyph alone", "\uf0c7", "", true},
		{"a glyph beside text", "\uf07b Home", "Home", true},
		{"a glyph between words", "Run \uf04b cell", "Run cell", true},
		{"a supplementary private-use glyph", "\U000F0001 Star", "Star", true},
		{"zero-width space and byte order mark", "Sa\u200bve\ufeff", "Save", true},
		{"other symbols stay", "★ Starred ✓", "★ Starred ✓", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Shown(tt.in); got != tt.want {
				t.Errorf("Shown(%q): got %q, want %q", tt.in, got, tt.want)
			}
			if got := HasNoText(tt.in); got != tt.hasNoText {
				t.Errorf("HasNoText(%q): got %v, want %v", tt.in, got, tt.hasNoText)
			}
		})
	}
}

// TestOneNoTextRule holds the three copies of the rule of what shows no
// text to one: aria.js's (names and text in the page), describe.js's
// (which runs without the module, so it cannot call it) and Shown's (the
// names Chrome gives). (JavaScript's surrogate range takes the two
// noncharacters at the end of each supplementary private-use plane too.)
func TestOneNoTextRule(t *testing.T) {
	const literal = `/[\u200b\ufeff\ue000-\uf8ff]|[\udb80-\udbff][\udc00-\udfff]/g`
	for name, src := range map[string]string{"aria.js": source, "describe.js": describeSource} {
		if !strings.Contains(src, literal) {
			t.Errorf("%s has not the rule %s", name, literal)
		}
	}
	for _, r := range []rune{0x200b, 0xfeff, 0xe000, 0xf0c7, 0xf8ff, 0xf0000, 0xffffd, 0x100000, 0x10fffd} {
		if !noText(r) {
			t.Errorf("noText(%U): got false, want true", r)
		}
	}
	for _, r := range []rune{'a', ' ', 0x200a, 0x200c, 0x200d, 0xdfff, 0xf900, 0xeffff, 0x2605} {
		if noText(r) {
			t.Errorf("noText(%U): got true, want false", r)
		}
	}
}

// answers is a cdp.Session that answers each Runtime.evaluate or
// Runtime.callFunctionOn with the next of its results, and keeps what
// it was sent.
type answers struct {
	results []*runtime.RemoteObject
	sent    []any // the params
}

func (a *answers) Call(ctx context.Context, method string, params, result any) error {
	a.sent = append(a.sent, params)
	if len(a.results) == 0 {
		return errors.New("no more answers")
	}
	r := a.results[0]
	a.results = a.results[1:]
	switch res := result.(type) {
	case *runtime.EvaluateResult:
		res.Result = r
	case *runtime.CallFunctionOnResult:
		res.Result = r
	default:
		return fmt.Errorf("unexpected %s", method)
	}
	return nil
}

func (a *answers) Subscribe(string) (<-chan jsonv2.Value, func()) { return nil, func() {} }

// Evaluate and CallOn send a call, then again with what the world lacked,
// until it runs; the arguments go as JSON values.
func TestEvaluateAndCallOn(t *testing.T) {
	ctx := context.Background()
	f := Keep("(el, ns, a, b) => a + b")
	s := &answers{results: []*runtime.RemoteObject{str(noModule), str("done")}}
	res, err := f.Evaluate(ctx, s, runtime.EvaluateParams{ContextID: 7}, "x", 1)
	if err != nil || res.Result == nil || string(res.Result.Value) != `"done"` {
		t.Fatalf("Evaluate: %v %+v; want the second answer", err, res.Result)
	}
	want := []any{
		runtime.EvaluateParams{Expression: f.Expr(InstallNone, []byte(`"x"`), []byte("1")), ContextID: 7},
		runtime.EvaluateParams{Expression: f.Expr(InstallModule, []byte(`"x"`), []byte("1")), ContextID: 7},
	}
	if !reflect.DeepEqual(s.sent, want) {
		t.Errorf("Evaluate sent %+v; want %+v", s.sent, want)
	}

	s = &answers{results: []*runtime.RemoteObject{str(f.noFunc()), str("done")}}
	boxed := func(in Install) string { return "box(" + f.Decl(in) + ")" }
	cres, err := f.CallOn(ctx, s, runtime.CallFunctionOnParams{ObjectID: "o"}, boxed, "x", 1)
	if err != nil || cres.Result == nil || string(cres.Result.Value) != `"done"` {
		t.Fatalf("CallOn: %v %+v; want the second answer", err, cres.Result)
	}
	args := []*runtime.CallArgument{{Value: []byte(`"x"`)}, {Value: []byte("1")}}
	want = []any{
		runtime.CallFunctionOnParams{FunctionDeclaration: boxed(InstallNone), ObjectID: "o", Arguments: args},
		runtime.CallFunctionOnParams{FunctionDeclaration: boxed(InstallFunc), ObjectID: "o", Arguments: args},
	}
	if !reflect.DeepEqual(s.sent, want) {
		t.Errorf("CallOn sent %+v; want %+v", s.sent, want)
	}

	// A world that still lacks the module once it was sent: the answer
	// is the caller's to read, no third call.
	s = &answers{results: []*runtime.RemoteObject{str(noModule), str(noModule), str("done")}}
	res, err = f.Evaluate(ctx, s, runtime.EvaluateParams{})
	if m, _ := StringOf(res.Result); err != nil || len(s.sent) != 2 || m != noModule {
		t.Errorf("Evaluate in a world that keeps nothing: %v, %d calls, answer %q; want no error, 2 calls and the marker", err, len(s.sent), m)
	}
	if _, err := f.CallOn(ctx, s, runtime.CallFunctionOnParams{}, f.Decl, make(chan int)); err == nil || !strings.HasPrefix(err.Error(), "encode argument: ") {
		t.Errorf("CallOn with an argument JSON cannot hold: %v; want encode argument: …", err)
	}
}

// released is a cdp.Session that keeps what it was asked to release, and
// whether the call's context was live and bounded.
type released struct {
	ids     []runtime.RemoteObjectID
	bounded bool
}

func (r *released) Call(ctx context.Context, method string, params, result any) error {
	if p, ok := params.(runtime.ReleaseObjectParams); ok && method == runtime.CommandReleaseObject {
		r.ids = append(r.ids, p.ObjectID)
		_, deadline := ctx.Deadline()
		r.bounded = ctx.Err() == nil && deadline
	}
	return nil
}

func (r *released) Subscribe(string) (<-chan jsonv2.Value, func()) { return nil, func() {} }

// Release releases also after the caller's context ended, on a context
// of its own with a deadline.
func TestRelease(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &released{}
	Release(ctx, s, "o")
	if len(s.ids) != 1 || s.ids[0] != "o" || !s.bounded {
		t.Errorf("released %v (on a live context with a deadline: %v); want o, on one", s.ids, s.bounded)
	}
}

func TestCompact(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"whole-line comments and indentation go, every line stays",
			"(() => {\n  // a comment\n  const a = 1; // kept: not a whole line\n\n    // another\n  return a;\n})",
			"(() => {\n\nconst a = 1; // kept: not a whole line\n\n\nreturn a;\n})"},
		{"a template on one line", "(x) => {\n  // c\n  return `a${x}b`;\n}", "(x) => {\n\nreturn `a${x}b`;\n}"},
		{"a template over lines: as it is", "(x) => `\n  // not a comment\n`", "(x) => `\n  // not a comment\n`"},
		{"a block comment: as it is", "/*\n  // in it\n*/ 1", "/*\n  // in it\n*/ 1"},
		{"a string continued on the next line: as it is", "'a\\\n  // in it\n'", "'a\\\n  // in it\n'"},
		{"nothing to take out", "1", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Compact(tt.src); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// The module a page gets is aria.js compacted: as many lines (an
// exception's line is the file's), a third smaller.
func TestTheModuleGoesCompacted(t *testing.T) {
	src, err := os.ReadFile("aria.js")
	if err != nil {
		t.Fatal(err)
	}
	got := Source()
	if n, want := strings.Count(got, "\n"), strings.Count(string(src), "\n"); n != want {
		t.Errorf("the module has %d lines, aria.js %d", n, want)
	}
	if len(got)*4 > len(src)*3 {
		t.Errorf("the module is %d bytes of aria.js's %d: want it at most three quarters", len(got), len(src))
	}
}

// Only a kept function has a keeper, which names its key and holds its
// source.
func TestKeeper(t *testing.T) {
	src := `(el, ns) => 1`
	for name, f := range map[string]Func{"sent": Send(src), "page": Page(src)} {
		if got := f.Keeper(); got != "" {
			t.Errorf("%s function: got keeper %q, want none", name, got)
		}
	}
	k := Keep(src)
	if got := k.Keeper(); !strings.Contains(got, "globalThis."+k.Key()+" ??= (") || !strings.Contains(got, src) {
		t.Errorf("kept function: got keeper %q, want it to keep %s under %s", got, src, k.Key())
	}
}
