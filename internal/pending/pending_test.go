package pending

import (
	"errors"
	"slices"
	"sync"
	"testing"
)

func TestTable(t *testing.T) {
	var tb Table[int, string]
	if _, ok := tb.Take(1); ok {
		t.Fatal("an empty table took a request")
	}
	for i, v := range []string{"a", "b", "c", "d"} {
		if err := tb.Add(i, v); err != nil {
			t.Fatal(err)
		}
	}
	if v, ok := tb.Take(0); !ok || v != "a" {
		t.Errorf("Take(0): got %q %v, want a true", v, ok)
	}
	if _, ok := tb.Take(0); ok {
		t.Error("Take(0) twice: the second took it again")
	}
	got := tb.TakeIf(func(v string) bool { return v == "b" || v == "c" })
	slices.Sort(got)
	if !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("TakeIf: got %v, want [b c]", got)
	}
	gone := errors.New("gone")
	if got := tb.Close(gone); !slices.Equal(got, []string{"d"}) {
		t.Errorf("Close: got %v, want [d]", got)
	}
	if err := tb.Add(9, "z"); !errors.Is(err, gone) {
		t.Errorf("Add after Close: got %v, want %v", err, gone)
	}
	if tb.Close(errors.New("later")); !errors.Is(tb.Err(), gone) {
		t.Errorf("Err: got %v, want the first Close's", tb.Err())
	}
}

// Requests added and taken from many goroutines each come back once.
func TestTableConcurrent(t *testing.T) {
	var tb Table[int, int]
	var wg sync.WaitGroup
	taken := make([]bool, 1000)
	for i := range 1000 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tb.Add(i, i)
			if v, ok := tb.Take(i); !ok || v != i {
				t.Errorf("Take(%d): got %d %v", i, v, ok)
			} else {
				taken[i] = true
			}
		}()
	}
	wg.Wait()
	if left := tb.Close(errors.New("end")); len(left) != 0 {
		t.Errorf("got %d left, want none", len(left))
	}
}
