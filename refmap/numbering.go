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

// Numbering hands out a tab's ref numbers: the same key gets the same ref
// for as long as Numbering remembers it, and a number is never given to a
// second key, so an old ref can never silently name another node. Refs are
// short decimal strings counting from "1". It is safe for concurrent use.
type Numbering struct {
	mu   sync.Mutex
	refs map[Key]string
	next uint64
}

// NewNumbering returns a numbering that starts at "1".
func NewNumbering() *Numbering { return &Numbering{refs: make(map[Key]string), next: 1} }

// Ref returns k's ref, handing out the next number the first time.
func (n *Numbering) Ref(k Key) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if r, ok := n.refs[k]; ok {
		return r
	}
	r := strconv.FormatUint(n.next, 10)
	n.next++
	n.refs[k] = r
	return r
}

// Issued reports whether ref is a number this numbering handed out.
func (n *Numbering) Issued(ref string) bool {
	v, err := strconv.ParseUint(ref, 10, 64)
	if err != nil {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return v >= 1 && v < n.next
}

// Forget drops the keys of documents for which keep returns false (a
// navigated frame's old document), so the table does not grow without
// bound. Their numbers are not handed out again.
func (n *Numbering) Forget(keep func(cdp.FrameID, cdp.LoaderID) bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for k := range n.refs {
		if !keep(k.FrameID, k.LoaderID) {
			delete(n.refs, k)
		}
	}
}

// Len returns how many keys the numbering remembers.
func (n *Numbering) Len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.refs)
}
