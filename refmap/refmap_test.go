package refmap

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/google/go-cmp/cmp"
)

var parseRefTests = []struct {
	name, in, want string
	ok             bool
}{
	{"at", "@21", "21", true},
	{"ref=", "ref=21", "21", true},
	{"bare", "21", "21", true},
	{"spaces", "  @7\t", "7", true},
	{"leading zero kept", "@007", "007", true},
	{"empty", "", "", false},
	{"at only", "@", "", false},
	{"ref= only", "ref=", "", false},
	{"letters", "@e21", "", false},
	{"css", "button", "", false},
	{"negative", "-1", "", false},
	{"space inside", "@2 1", "", false},
	{"double prefix", "@ref=2", "", false},
	{"too long", "@1234567890123456789", "", false},
	{"unicode digit", "@٣", "", false},
}

func TestParseRef(t *testing.T) {
	for _, tt := range parseRefTests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseRef(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ParseRef(%q): got %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func FuzzParseRef(f *testing.F) {
	for _, tt := range parseRefTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		ref, ok := ParseRef(in)
		if !ok {
			if ref != "" {
				t.Errorf("ParseRef(%q): not a ref but returned %q", in, ref)
			}
			return
		}
		if ref == "" || len(ref) > 18 {
			t.Errorf("ParseRef(%q) = %q", in, ref)
		}
		for _, c := range ref {
			if c < '0' || c > '9' {
				t.Fatalf("ParseRef(%q) = %q: not all digits", in, ref)
			}
		}
		// Canonical refs parse to themselves, in every accepted form.
		for _, form := range []string{ref, "@" + ref, "ref=" + ref} {
			if again, ok := ParseRef(form); !ok || again != ref {
				t.Errorf("ParseRef(%q) = %q, %v; want %q", form, again, ok, ref)
			}
		}
	})
}

func TestMapAddGetClear(t *testing.T) {
	m := New()
	m.Add("1", 10, "button", "Go", 0)
	m.AddWithFrame("2", 20, "link", "Home", 1, "F1")
	tests := []struct {
		ref  string
		want Entry
		ok   bool
	}{
		{"1", Entry{Ref: "1", BackendNodeID: 10, Role: "button", Name: "Go"}, true},
		{"2", Entry{Ref: "2", BackendNodeID: 20, Role: "link", Name: "Home", Nth: 1, FrameID: "F1"}, true},
		{"3", Entry{}, false},
	}
	for _, tt := range tests {
		got, ok := m.Get(tt.ref)
		if ok != tt.ok {
			t.Errorf("Get(%s): ok %v, want %v", tt.ref, ok, tt.ok)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Get(%s) (-want +got):\n%s", tt.ref, diff)
		}
	}
	if got := m.Size(); got != 2 {
		t.Errorf("Size: got %d, want 2", got)
	}
	g := m.Generation()
	m.Clear()
	if m.Size() != 0 || m.Generation() != g+1 {
		t.Errorf("after Clear: size %d, generation %d; want 0, %d", m.Size(), m.Generation(), g+1)
	}
}

func TestRebuild(t *testing.T) {
	tests := []struct {
		name string
		in   []Entry
		want []string // refs kept
	}{
		{"all kept", []Entry{{Ref: "1", BackendNodeID: 5}, {Ref: "2", Local: 3}}, []string{"1", "2"}},
		{"no node skipped", []Entry{{Ref: "1"}, {Ref: "2", BackendNodeID: 9}}, []string{"2"}},
		{"no ref skipped", []Entry{{BackendNodeID: 4}}, nil},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := New()
			m.Add("99", 99, "button", "old", 0)
			m.Rebuild(tt.in)
			var got []string
			for _, r := range []string{"1", "2", "99"} {
				if _, ok := m.Get(r); ok {
					got = append(got, r)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("refs after Rebuild (-want +got):\n%s", diff)
			}
			if m.Size() != len(tt.want) || len(m.Entries()) != len(tt.want) {
				t.Errorf("Size %d, Entries %d; want %d", m.Size(), len(m.Entries()), len(tt.want))
			}
		})
	}
}

func TestEnsureTwentyRacingCallers(t *testing.T) {
	m := New()
	var calls atomic.Int64
	release := make(chan struct{})
	snapshot := func(ctx context.Context) error {
		calls.Add(1)
		<-release
		m.Rebuild([]Entry{{Ref: "1", BackendNodeID: 1}})
		return nil
	}
	var wg, started sync.WaitGroup
	errs := make([]error, 20)
	for i := range 20 {
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			started.Done()
			errs[i] = m.Ensure(context.Background(), "@1", snapshot)
		}()
	}
	started.Wait()
	// Let the callers reach Ensure before the snapshot finishes; whatever
	// the interleaving, exactly one snapshot may run.
	time.Sleep(10 * time.Millisecond)
	close(release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("caller %d: %v", i, err)
		}
	}
	if got := calls.Load(); got != 1 {
		t.Errorf("snapshots: got %d, want 1", got)
	}
	if _, ok := m.Get("1"); !ok {
		t.Errorf("the map is empty after Ensure")
	}
}

func TestEnsureSkips(t *testing.T) {
	fail := func(context.Context) error { t.Error("snapshot taken"); return nil }
	m := New()
	if err := m.Ensure(context.Background(), "button", fail); err != nil {
		t.Error(err)
	}
	m.Add("1", 1, "button", "Go", 0)
	if err := m.Ensure(context.Background(), "@5", fail); err != nil {
		t.Error(err)
	}
}

func TestEnsureSharesTheError(t *testing.T) {
	m := New()
	boom := errors.New("boom")
	var calls atomic.Int64
	release := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, 5)
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = m.Ensure(context.Background(), "@1", func(context.Context) error {
				calls.Add(1)
				<-release
				return boom
			})
		}()
	}
	// Release the leader only once the other four are waiting on its
	// flight: then exactly one snapshot may run.
	waitFollowers(t, m, 4)
	close(release)
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, boom) {
			t.Errorf("caller %d: got %v, want boom", i, err)
		}
	}
	if got := calls.Load(); got != 1 {
		t.Errorf("snapshots taken by 5 racing callers: got %d, want 1", got)
	}
	// A failed snapshot is not remembered: the next caller tries again.
	again := false
	if err := m.Ensure(context.Background(), "@1", func(context.Context) error { again = true; return nil }); err != nil {
		t.Error(err)
	}
	if !again {
		t.Error("a failed snapshot was remembered: the next caller did not take one")
	}
}

func TestEnsureWaiterHonoursContext(t *testing.T) {
	m := New()
	release := make(chan struct{})
	defer close(release)
	go m.Ensure(context.Background(), "@1", func(context.Context) error { <-release; return nil })
	for {
		m.mu.Lock()
		busy := m.flight != nil
		m.mu.Unlock()
		if busy {
			break
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := m.Ensure(ctx, "@1", func(context.Context) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestNumbering(t *testing.T) {
	n := NewNumbering()
	a := Key{FrameID: "F", LoaderID: "L1", Node: 1}
	b := Key{FrameID: "F", LoaderID: "L1", Node: 2}
	a2 := Key{FrameID: "F", LoaderID: "L2", Node: 1} // same node number, new document
	got := n.Refs([]Key{a, b, a, a2})
	if diff := cmp.Diff([]string{"1", "2", "1", "3"}, got); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	// A later call: the same keys keep their refs; new ones, of documents
	// interleaved, are numbered in the keys' order.
	c := Key{FrameID: "G", LoaderID: "L9", Node: 1}
	d := Key{FrameID: "F", LoaderID: "L1", Node: 3}
	got = n.Refs([]Key{c, a, d, a2, c})
	if diff := cmp.Diff([]string{"4", "1", "5", "3", "4"}, got); diff != "" {
		t.Errorf("second call's refs (-want +got):\n%s", diff)
	}
	if n.Len() != 5 {
		t.Errorf("Len: %d, want 5", n.Len())
	}
	n.Forget(func(_ cdp.FrameID, l cdp.LoaderID) bool { return l == "L2" })
	if n.Len() != 1 {
		t.Errorf("Len after Forget: %d, want 1", n.Len())
	}
	if r := n.Refs([]Key{a})[0]; r != "6" {
		t.Errorf("a forgotten key got %q, want a new number 6", r)
	}
	for _, tt := range []struct {
		ref  string
		want bool
	}{{"1", true}, {"6", true}, {"7", false}, {"0", false}, {"x", false}} {
		if got := n.Issued(tt.ref); got != tt.want {
			t.Errorf("Issued(%s): got %v, want %v", tt.ref, got, tt.want)
		}
	}
}

func TestReservedCounterContinuesAfterRestart(t *testing.T) {
	var stored uint64
	c := NewReservedCounter(0, func(upTo uint64) { stored = upTo })
	n := NewSharedNumbering(c)
	first := n.Refs([]Key{{Node: 1}})[0]
	if first != "1" || stored != 1001 {
		t.Fatalf("got ref %s and reservation %d, want 1 and 1001", first, stored)
	}
	// A restart starts where the last reservation ended: no number repeats.
	again := NewSharedNumbering(NewReservedCounter(stored, func(upTo uint64) { stored = upTo }))
	if got := again.Refs([]Key{{Node: 1}})[0]; got != "1001" {
		t.Errorf("after a restart: got ref %s, want 1001", got)
	}
	if stored != 2001 {
		t.Errorf("reservation after the restart: got %d, want 2001", stored)
	}
}

// A follower whose leader gave up (its own, shorter deadline) takes the
// snapshot itself instead of failing with the leader's timeout.
func TestEnsureFollowerOutlivesLeader(t *testing.T) {
	m := New()
	leaderIn := make(chan struct{})
	leaderCtx, cancelLeader := context.WithCancel(context.Background())
	leaderDone := make(chan error, 1)
	go func() {
		leaderDone <- m.Ensure(leaderCtx, "@1", func(ctx context.Context) error {
			close(leaderIn)
			<-ctx.Done()
			return ctx.Err()
		})
	}()
	<-leaderIn
	followerDone := make(chan error, 1)
	go func() {
		followerDone <- m.Ensure(context.Background(), "@1", func(context.Context) error {
			m.Rebuild([]Entry{{Ref: "1", BackendNodeID: 7}})
			return nil
		})
	}()
	time.Sleep(20 * time.Millisecond) // let the follower join the flight
	cancelLeader()
	if err := <-leaderDone; !errors.Is(err, context.Canceled) {
		t.Errorf("leader: got %v, want context.Canceled", err)
	}
	select {
	case err := <-followerDone:
		if err != nil || m.Size() != 1 {
			t.Errorf("follower: got %v with %d entries, want its own snapshot", err, m.Size())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("follower hung")
	}
}

// waitFollowers waits (up to 10 s) until n callers are waiting on m's
// current snapshot flight.
func waitFollowers(t *testing.T, m *Map, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		m.mu.Lock()
		got := 0
		if m.flight != nil {
			got = m.flight.followers
		}
		m.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("followers of the snapshot flight: got %d, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

var foreignRefTests = []struct {
	in   string
	want bool
}{
	{"@e12", true},
	{"e12", true},
	{"ref=e5", true},
	{"[ref=e5]", true},
	{" E7 ", true},
	{"REF=e1", true},
	{"@12", false},
	{"12", false},
	{"e", false},
	{"@e", false},
	{"email", false},
	{"e1x", false},
	{"[ref=e5", false},
	{"#e12", false},
	{"", false},
}

func TestForeignRef(t *testing.T) {
	for _, tt := range foreignRefTests {
		if got := ForeignRef(tt.in); got != tt.want {
			t.Errorf("ForeignRef(%q): got %v, want %v", tt.in, got, tt.want)
		}
	}
}

func FuzzForeignRef(f *testing.F) {
	for _, tt := range foreignRefTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		// Never both: an input is our ref, another tool's, or neither.
		if _, ok := ParseRef(in); ok && ForeignRef(in) {
			t.Errorf("%q is both a ref and a foreign ref", in)
		}
	})
}
