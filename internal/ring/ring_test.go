package ring

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRingKeepsTheNewest(t *testing.T) {
	tests := []struct {
		name        string
		puts        int
		want        []int
		wantDropped int
	}{
		{"empty", 0, []int{}, 0},
		{"under capacity", 2, []int{0, 1}, 0},
		{"full", 3, []int{0, 1, 2}, 0},
		{"wrapped once", 4, []int{1, 2, 3}, 1},
		{"wrapped twice", 7, []int{4, 5, 6}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New[int](3)
			for i := range tt.puts {
				r.Put(i)
			}
			if d := cmp.Diff(tt.want, r.All()); d != "" {
				t.Errorf("all (-want +got):\n%s", d)
			}
			if r.Dropped() != tt.wantDropped {
				t.Errorf("dropped: got %d, want %d", r.Dropped(), tt.wantDropped)
			}
		})
	}
}
