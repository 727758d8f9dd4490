package agentlive

import (
	"slices"
	"testing"
)

// conn is a connection that notes its cuts.
type conn struct {
	name string
	cuts int
}

func (c *conn) Cut() { c.cuts++ }

// ids are the numbers of the connections in list.
func ids(list []Live[*conn]) []uint64 {
	out := make([]uint64, len(list))
	for i, lc := range list {
		out[i] = lc.ID
	}
	return out
}

func TestListNumbersInOrder(t *testing.T) {
	var r Registry[*conn, string]
	a, b, c := &conn{name: "a"}, &conn{name: "b"}, &conn{name: "c"}
	r.Add(a)
	r.Add(b)
	r.Add(c)
	r.Drop(b)
	d := &conn{name: "d"}
	r.Add(d)
	list := r.List()
	var names []string
	for _, lc := range list {
		names = append(names, lc.Conn.name)
		if lc.Since.IsZero() {
			t.Errorf("%s: no time it was added", lc.Conn.name)
		}
	}
	if want := []string{"a", "c", "d"}; !slices.Equal(names, want) {
		t.Errorf("got %v, want %v", names, want)
	}
	if got, want := ids(list), []uint64{1, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("got numbers %v, want %v (a dropped connection's number is not given again)", got, want)
	}
}

func TestTrack(t *testing.T) {
	var r Registry[*conn, string]
	a, gone := &conn{name: "a"}, &conn{name: "never added"}
	r.Add(a)
	doneFirst := r.Track(a, "first")
	doneSecond := r.Track(a, "second")
	r.Track(gone, "nowhere")() // not live: not tracked, and done does nothing
	calls := func(c *conn) []string {
		var out []string
		for _, call := range r.Calls(c) {
			out = append(out, call.Call)
			if call.Since.IsZero() {
				t.Errorf("%s: no time it started", call.Call)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		step func()
		c    *conn
		want []string
	}{
		{"both, oldest first", func() {}, a, []string{"first", "second"}},
		{"a connection never added", func() {}, gone, nil},
		{"the first done", doneFirst, a, []string{"second"}},
		{"a third", func() { r.Track(a, "third") }, a, []string{"second", "third"}},
		{"dropped", func() { r.Drop(a) }, a, nil},
		{"done after the drop", doneSecond, a, nil},
	} {
		tc.step()
		if got := calls(tc.c); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCut(t *testing.T) {
	var r Registry[*conn, string]
	a, b, c := &conn{name: "bot"}, &conn{name: "other"}, &conn{name: "bot"}
	for _, x := range []*conn{a, b, c} {
		r.Add(x)
	}
	if n := r.Cut(func(lc Live[*conn]) bool { return lc.Conn.name == "bot" }); n != 2 {
		t.Errorf("cut %d by name, want 2", n)
	}
	if n := r.Cut(func(lc Live[*conn]) bool { return lc.ID == 2 }); n != 1 {
		t.Errorf("cut %d by number, want 1", n)
	}
	if n := r.Cut(func(Live[*conn]) bool { return false }); n != 0 {
		t.Errorf("cut %d picking none, want 0", n)
	}
	for _, x := range []*conn{a, b, c} {
		if x.cuts != 1 {
			t.Errorf("%s cut %d times, want 1", x.name, x.cuts)
		}
	}
	// A cut connection is listed until its user drops it.
	if got := len(r.List()); got != 3 {
		t.Errorf("got %d listed after the cuts, want 3", got)
	}
}
