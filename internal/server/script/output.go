package script

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// output is the console's buffer, capped at max bytes: what does not fit
// is counted, not kept.
type output struct {
	b        strings.Builder
	max      int
	cut      int // bytes left out
	cutLines int // lines left out, in part or whole
}

// line appends one line.
func (o *output) line(s string) {
	if o.cut > 0 {
		o.cut += len(s) + 1
		o.cutLines++
		return
	}
	room := o.max - o.b.Len()
	if len(s)+1 <= room {
		o.b.WriteString(s)
		o.b.WriteByte('\n')
		return
	}
	keep := max(room, 0)
	for keep > 0 && keep < len(s) && !utf8.RuneStart(s[keep]) {
		keep--
	}
	o.b.WriteString(s[:keep])
	o.cut = len(s) + 1 - keep
	o.cutLines = 1
}

// text returns the output, with a marker saying what was cut, and the
// number of bytes cut.
func (o *output) text() (string, int) {
	if o.cut == 0 {
		return o.b.String(), 0
	}
	return o.b.String() + fmt.Sprintf("\n… [output cut: %d more bytes in %d lines past limits.script_output = %d bytes]\n", o.cut, o.cutLines, o.max), o.cut
}
