package protocol

// Page-level methods: snapshots, resolution, actions.
const (
	MethodSnapshot = "snapshot"
	MethodResolve  = "resolve"
)

// SnapshotParams are the params of snapshot.
type SnapshotParams struct {
	Target
	// Interactive shows only elements an agent can act on, with their context.
	Interactive bool `json:"interactive,omitempty"`
	// Scope limits the snapshot to one element's subtree: a @ref or a locator.
	Scope string `json:"scope,omitempty"`
	// Viewport shows only what intersects the viewport.
	Viewport bool `json:"viewport,omitempty"`
	// URLs writes each link's target (url=) in a full snapshot; without it
	// links have none (read one with get attr @N href).
	URLs bool `json:"urls,omitempty"`
	// MaxChars caps the text; a marker line says what was cut and how to get it.
	MaxChars int `json:"maxChars,omitempty"`
	// Start skips the first Start lines (paging after a cut; the marker gives it).
	Start int `json:"start,omitempty"`
	// Diff shows only what changed since the tab's previous snapshot.
	Diff bool `json:"diff,omitempty"`
	// Refs adds the refs with their backendNodeIds to the result.
	Refs bool `json:"refs,omitempty"`
	// TimeoutMs bounds the wait for a document that is still being parsed
	// to reach DOMContentLoaded (default timeouts.action).
	TimeoutMs int `json:"timeoutMs,omitempty"`
}

// Ref describes one ref of a snapshot.
type Ref struct {
	Ref           string `json:"ref"`
	Role          string `json:"role"`
	Name          string `json:"name"`
	Nth           int    `json:"nth"` // index among the snapshot's refs with the same role and name, in document order
	BackendNodeID int64  `json:"backendNodeId,omitempty"`
	FrameID       string `json:"frameId,omitempty"`
	SessionID     string `json:"sessionId,omitempty"`
}

// SnapshotResult answers snapshot.
type SnapshotResult struct {
	Text      string        `json:"text"`
	URL       string        `json:"url"`
	Title     string        `json:"title"`
	Tab       int           `json:"tab"`
	Refs      []Ref         `json:"refs,omitempty"`
	Truncated *SnapshotCut  `json:"truncated,omitempty"`
	Stats     SnapshotStats `json:"stats"`
}

// SnapshotCut says what MaxChars/Start left out.
type SnapshotCut struct {
	FirstLine  int `json:"firstLine"`
	ShownLines int `json:"shownLines"`
	TotalLines int `json:"totalLines"`
	Next       int `json:"next"` // the Start that shows the rest; 0 when nothing follows
	HiddenRefs int `json:"hiddenRefs"`
}

// SnapshotStats counts what a snapshot saw and cost.
type SnapshotStats struct {
	Elements    int      `json:"elements"`
	Refs        int      `json:"refs"`
	Frames      int      `json:"frames"`
	Chars       int      `json:"chars"`
	Bytes       int      `json:"bytes"`
	TookMs      float64  `json:"tookMs"`
	FrameErrors []string `json:"frameErrors,omitempty"`
}

// ResolveParams are the params of resolve.
type ResolveParams struct {
	Target
	// Element is a @ref or a locator (see the README's grammar).
	Element string `json:"target"`
	// Mode is what to return: "matches" (default: the count and every
	// match), "center" (exactly one element's centre: several matches are
	// an ambiguous error unless nth/last picks one) or "object" (exactly one
	// element as a remote object in egohost's isolated world).
	Mode string `json:"mode,omitempty"`
	// Wait retries while nothing matches (and, for center and object, while
	// the element is not rendered), until TimeoutMs (default
	// timeouts.action) passes.
	Wait      bool `json:"wait,omitempty"`
	TimeoutMs int  `json:"timeoutMs,omitempty"`
}

// Resolve modes.
const (
	ResolveMatches = "matches"
	ResolveCenter  = "center"
	ResolveObject  = "object"
)

// Box is an element's geometry in top-level viewport CSS pixels: the
// centre of its border box (of its first line, for an inline element that
// wraps) and the size of its border box.
type Box struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Match is one element a target matches.
type Match struct {
	BackendNodeID int64  `json:"backendNodeId"`
	Role          string `json:"role"`
	Name          string `json:"name"`
	FrameID       string `json:"frameId,omitempty"`
	SessionID     string `json:"sessionId,omitempty"`
	Box           *Box   `json:"box,omitempty"` // nil: not rendered
}

// Point is where an action on the element would happen: the centre of its
// border box in top-level viewport CSS pixels.
type Point struct {
	X         float64 `json:"x"`
	Y         float64 `json:"y"`
	SessionID string  `json:"sessionId,omitempty"`
}

// ResolveResult answers resolve.
type ResolveResult struct {
	Count   int     `json:"count"`
	Matches []Match `json:"matches"`
	// Center is set when the target picks exactly one element.
	Center *Point `json:"center,omitempty"`
	// Object is set in mode "object".
	Object *Object `json:"object,omitempty"`
	TookMs float64 `json:"tookMs"`
}

// Object is a remote object of an element, in egohost's isolated world of
// its frame, reachable through SessionID ("" = the tab's main session).
type Object struct {
	ObjectID  string `json:"objectId"`
	SessionID string `json:"sessionId,omitempty"`
}
