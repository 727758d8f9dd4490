package script

import (
	"errors"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
)

// fileName is the script's name in stacks and positions.
const fileName = "script.js"

const (
	prefix    = "(async function () {"
	suffix    = "\n})()"
	returnKw  = "return "
	firstLine = 1
)

// source is a script wrapped as the body of an async function, so that
// await works at the top level and the last expression statement is
// returned. It maps positions in the wrapped text back to the script's.
type source struct {
	retLine, retCol int // where "return " was inserted (0: nowhere)
	lines           int // the script's lines
	lastLen         int // the length of its last line
}

// syntaxError is a script that does not parse.
type syntaxError struct {
	Line, Column int
	Message      string
}

func (e *syntaxError) Error() string { return e.Message }

// compile wraps and compiles src.
func compile(src string) (*goja.Program, *source, error) {
	wrapped := prefix + src + suffix
	prog, err := parser.ParseFile(nil, fileName, wrapped, 0)
	s := &source{lines: strings.Count(src, "\n") + 1, lastLen: len(src) - strings.LastIndex(src, "\n") - 1}
	if err != nil {
		var list parser.ErrorList
		var one *parser.Error
		switch {
		case errors.As(err, &list) && len(list) > 0:
			one = list[0]
		case errors.As(err, &one):
		default:
			return nil, nil, &syntaxError{Message: err.Error()}
		}
		line, col := s.pos(one.Position.Line, one.Position.Column)
		return nil, nil, &syntaxError{Line: line, Column: col, Message: one.Message}
	}
	if idx := lastExpression(prog); idx > 0 {
		off := openParens(wrapped, int(idx)-1) // Idx is 1-based
		p := file.NewFile(fileName, wrapped, 1).Position(off)
		s.retLine, s.retCol = p.Line, p.Column
		wrapped = wrapped[:off] + returnKw + wrapped[off:]
		if prog, err = parser.ParseFile(nil, fileName, wrapped, 0); err != nil {
			return nil, nil, &syntaxError{Message: err.Error()}
		}
	}
	p, err := goja.CompileAST(prog, false)
	if err != nil {
		return nil, nil, &syntaxError{Message: strings.TrimPrefix(err.Error(), "SyntaxError: ")}
	}
	return p, s, nil
}

// lastExpression returns where the wrapper function's last statement
// starts when it is an expression statement, else 0.
func lastExpression(prog *ast.Program) file.Idx {
	if len(prog.Body) != 1 {
		return 0
	}
	es, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return 0
	}
	call, ok := es.Expression.(*ast.CallExpression)
	if !ok {
		return 0
	}
	fn, ok := call.Callee.(*ast.FunctionLiteral)
	if !ok || fn.Body == nil || len(fn.Body.List) == 0 {
		return 0
	}
	last, ok := fn.Body.List[len(fn.Body.List)-1].(*ast.ExpressionStatement)
	if !ok {
		return 0
	}
	return last.Idx0()
}

// openParens moves off back over the opening parentheses (and white
// space between them) in front of an expression: the AST has no node for
// parentheses, so its position is inside them.
func openParens(src string, off int) int {
	at := off
	for i := off; i > 0; i-- {
		switch src[i-1] {
		case '(':
			at = i - 1
		case ' ', '\t', '\n', '\r':
		default:
			return at
		}
	}
	return at
}

// pos maps a 1-based line and column of the compiled text to the script's.
func (s *source) pos(line, col int) (int, int) {
	if s.lines > 0 && line > s.lines { // in the wrapper's closing lines
		return s.lines, s.lastLen + 1
	}
	if s.retLine != 0 && line == s.retLine && col >= s.retCol+len(returnKw) {
		col -= len(returnKw)
	}
	if line == firstLine {
		col -= len(prefix)
		if col < 1 {
			col = 1
		}
	}
	return line, col
}
