package cdpdirect

import "bytes"

// WellFormed returns the JSON text b with every lone UTF-16 surrogate
// escape (`\ud800` with no low half after it, or a low half alone)
// replaced by `\ufffd`, the replacement character; b itself when it has
// none (the usual case: one scan, nothing copied).
//
// A page's strings are UTF-16 and may hold a lone surrogate (text cut in
// the middle of an emoji, or put there on purpose); Chrome writes it on a
// DevTools connection as such an escape, which strict decoders (cdproto's,
// go-json-experiment) refuse, failing the whole message: a snapshot of the
// page, an evaluation, an event. (Through the extension it arrives as
// U+FFFD already: native messaging writes UTF-8.)
func WellFormed(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\ud`)) && !bytes.Contains(b, []byte(`\uD`)) {
		return b
	}
	var out []byte // nil until the first change
	from := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if i+1 < len(b) && b[i+1] != 'u' {
			i++ // an escape of one character: \\, \", \n…
			continue
		}
		hi, ok := surrogate(b, i)
		if !ok {
			i++
			continue
		}
		if nextHigh, ok := surrogate(b, i+6); hi && ok && !nextHigh {
			i += 11 // a pair: both halves stay
			continue
		}
		out = append(out, b[from:i]...)
		out = append(out, `\ufffd`...)
		from = i + 6
		i += 5
	}
	if out == nil {
		return b
	}
	return append(out, b[from:]...)
}

// surrogate reports whether b[i:] starts with the escape of a surrogate
// half (ok), and whether it is a high one.
func surrogate(b []byte, i int) (high, ok bool) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' || (b[i+2] != 'd' && b[i+2] != 'D') {
		return false, false
	}
	switch b[i+3] {
	case '8', '9', 'a', 'b', 'A', 'B':
		high = true
	case 'c', 'd', 'e', 'f', 'C', 'D', 'E', 'F':
	default:
		return false, false
	}
	return high, isHex(b[i+4]) && isHex(b[i+5])
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
