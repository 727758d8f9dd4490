package refmap

import (
	"strconv"
	"sync"

	"github.com/chromedp/cdproto/cdp"
)

// Key names one node for numbering: the frame and document it lives in and
// its number (a backendNodeId or a document-local number) there.
type Key struct {
	FrameID  cdp.FrameID
	LoaderID cdp.LoaderID
	Node     int64
}

// Counter hands out ref numbers, counting from 1. Numberings that share one
// (the service gives every tab the same) never hand out the same number, so
// a ref of one tab is unknown on every other tab instead of naming some
// element there. It is safe for concurrent use.
type Counter struct {
	mu      sync.Mutex
	next    uint64
	limit   uint64            // numbers below limit are reserved
	reserve func(upTo uint64) // nil: nothing to reserve
}

// NewCounter returns a counter that starts at 1.
func NewCounter() *Counter { return &Counter{next: 1} }

// reserveBlock is how many numbers a reserved counter reserves at a time.
const reserveBlock = 1000

// NewReservedCounter returns a counter that starts at start (at least 1)
// and calls reserve(upTo) before it hands out a number at or above what it
// reserved, in blocks of a thousand. A caller that stores upTo and starts
// its next counter there (a restarted service) never hands out a number
// again, so an agent's ref from before the restart cannot name another
// element. reserve is called with the counter's lock held: keep it short.
func NewReservedCounter(start uint64, reserve func(upTo uint64)) *Counter {
	return &Counter{next: max(start, 1), reserve: reserve}
}

func (c *Counter) take() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.next
	c.next++
	if c.reserve != nil && v >= c.limit {
		c.limit = v + reserveBlock
		c.reserve(c.limit)
	}
	return v
}

// span is a run [lo, hi) of numbers one numbering handed out.
type span struct{ lo, hi uint64 }

// Numbering hands out a tab's ref numbers: the same key gets the same ref
// for as long as Numbering remembers it, and a number is never given to a
// second key, so an old ref can never silently name another node. Refs are
// short decimal strings. It is safe for concurrent use.
type Numbering struct {
	mu     sync.Mutex
	docs   map[docKey]map[int64]string // a document's nodes' refs
	keys   int                         // how many nodes docs holds
	c      *Counter
	issued []span // runs of numbers handed out, in order
}

// docKey names one frame document.
type docKey struct {
	frame  cdp.FrameID
	loader cdp.LoaderID
}

// NewNumbering returns a numbering with a counter of its own (from "1").
func NewNumbering() *Numbering { return NewSharedNumbering(NewCounter()) }

// NewSharedNumbering returns a numbering that draws from c.
func NewSharedNumbering(c *Counter) *Numbering {
	return &Numbering{docs: make(map[docKey]map[int64]string), c: c}
}

// Refs returns the ref of each key, in order, handing out the next
// numbers, in the keys' order, to those seen the first time. A snapshot
// numbers its thousands of elements in one call (one lock, and a
// document's table looked up once for a run of its nodes).
func (n *Numbering) Refs(keys []Key) []string {
	out := make([]string, len(keys))
	n.mu.Lock()
	defer n.mu.Unlock()
	var cur docKey
	var refs map[int64]string
	for i, k := range keys {
		if dk := (docKey{k.FrameID, k.LoaderID}); refs == nil || dk != cur {
			cur, refs = dk, n.docs[dk]
			if refs == nil {
				refs = make(map[int64]string)
				n.docs[dk] = refs
			}
		}
		r, ok := refs[k.Node]
		if !ok {
			r = n.next()
			refs[k.Node] = r
			n.keys++
		}
		out[i] = r
	}
	return out
}

// next hands out the next number; n.mu is held.
func (n *Numbering) next() string {
	v := n.c.take()
	if last := len(n.issued) - 1; last >= 0 && n.issued[last].hi == v {
		n.issued[last].hi++
	} else {
		n.issued = append(n.issued, span{v, v + 1})
	}
	return strconv.FormatUint(v, 10)
}

// Issued reports whether ref is a number this numbering handed out.
func (n *Numbering) Issued(ref string) bool {
	v, err := strconv.ParseUint(ref, 10, 64)
	if err != nil {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, s := range n.issued {
		if v >= s.lo && v < s.hi {
			return true
		}
	}
	return false
}

// Forget drops the keys of documents for which keep returns false (a
// navigated frame's old document), so the table does not grow without
// bound. Their numbers are not handed out again.
func (n *Numbering) Forget(keep func(cdp.FrameID, cdp.LoaderID) bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for dk, refs := range n.docs {
		if !keep(dk.frame, dk.loader) {
			n.keys -= len(refs)
			delete(n.docs, dk)
		}
	}
}

// Len returns how many keys the numbering remembers.
func (n *Numbering) Len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.keys
}
