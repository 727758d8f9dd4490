package snapshot

import (
	"fmt"
	"strings"
)

// maxEdits bounds the diff's work: past it the snapshot is shown whole.
const maxEdits = 4000

type opKind byte

const (
	opKeep opKind = iota
	opAdd
	opDel
)

type diffOp struct {
	kind opKind
	l    line
}

// edit is one step of an edit script: keep a[a] (= b[b]), add b[b], or
// delete a[a].
type edit struct {
	kind opKind
	a, b int
}

// editScript returns the shortest edit script from a to b (Myers), or
// false when it needs more than maxEdits edits.
func editScript(a, b []string) ([]edit, bool) {
	n, m := len(a), len(b)
	max := n + m
	if max == 0 {
		return nil, true
	}
	limit := min(max, maxEdits)
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	found := -1
	for d := 0; d <= limit; d++ {
		snap := make([]int, len(v))
		copy(snap, v)
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
		if found >= 0 {
			break
		}
	}
	if found < 0 {
		return nil, false
	}
	// Walk back through the trace.
	var rev []edit
	x, y := n, m
	for d := found; d > 0; d-- {
		vv := trace[d]
		k := x - y
		var pk int
		if k == -d || (k != d && vv[off+k-1] < vv[off+k+1]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := vv[off+pk]
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, edit{opKeep, x, y})
		}
		if x == px {
			y--
			rev = append(rev, edit{opAdd, x, y})
		} else {
			x--
			rev = append(rev, edit{opDel, x, y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, edit{opKeep, x, y})
	}
	ops := make([]edit, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops, true
}

// diffLines renders cur against prev: added lines start with "+ ", removed
// ones with "- ", and unchanged lines are collapsed into "… N unchanged
// lines" except the ancestors that place a change.
func diffLines(prev, cur []line) []outLine {
	a := make([]string, len(prev))
	for i, l := range prev {
		a[i] = l.String()
	}
	b := make([]string, len(cur))
	for i, l := range cur {
		b[i] = l.String()
	}
	raw, ok := editScript(a, b)
	if !ok {
		out := []outLine{{text: "[diff: too many changes since the previous snapshot; the whole snapshot follows]"}}
		for i, l := range cur {
			out = append(out, outLine{b[i], l.ref})
		}
		return out
	}
	// Resolve the ops' indexes into lines.
	ops := make([]diffOp, len(raw))
	for i, o := range raw {
		switch o.kind {
		case opKeep, opAdd:
			ops[i] = diffOp{o.kind, cur[o.b]}
		case opDel:
			ops[i] = diffOp{o.kind, prev[o.a]}
		}
	}
	added, removed := 0, 0
	show := make([]bool, len(ops))
	type frame struct{ depth, i int }
	var stack []frame
	for i, o := range ops {
		for len(stack) > 0 && stack[len(stack)-1].depth >= o.l.depth {
			stack = stack[:len(stack)-1]
		}
		if o.kind != opKeep {
			show[i] = true
			if o.kind == opAdd {
				added++
			} else {
				removed++
			}
			for _, f := range stack { // the lines that place this one
				show[f.i] = true
			}
		}
		if o.kind != opDel {
			stack = append(stack, frame{o.l.depth, i})
		}
	}
	out := []outLine{{text: fmt.Sprintf("[diff against the previous snapshot: %d added, %d removed, %d unchanged; \"+ \" added, \"- \" removed]", added, removed, len(cur)-added)}}
	if added == 0 && removed == 0 {
		out[0].text = fmt.Sprintf("[no changes since the previous snapshot: %d lines]", len(cur))
		return out
	}
	for i := 0; i < len(ops); {
		o := ops[i]
		if !show[i] {
			j := i
			for j < len(ops) && !show[j] {
				j++
			}
			out = append(out, outLine{text: "  " + strings.Repeat(indent, o.l.depth) + fmt.Sprintf("… %d unchanged lines", j-i)})
			i = j
			continue
		}
		prefix := "  "
		switch o.kind {
		case opAdd:
			prefix = "+ "
		case opDel:
			prefix = "- "
		}
		ref := o.l.ref
		if o.kind == opDel {
			ref = ""
		}
		out = append(out, outLine{prefix + o.l.String(), ref})
		i++
	}
	return out
}
