package spaces_test

import (
	"fmt"

	"github.com/egohost/egohost/internal/server/spaces"
)

func Example() {
	r := spaces.New(spaces.Saved{})
	sp, created := r.For("alice", "b1") // alice's first tab in browser b1
	sp, _ = r.Grouped(sp.ID, 7, 42)     // the tab went into group 7
	fmt.Println(sp.ID, created, sp.Title())

	held, _ := r.ByGroup("b1", 7)
	fmt.Println(spaces.Check(spaces.Caller{Name: "bob"}, held, true) == spaces.OthersSpace)
	r.SetState(sp.ID, spaces.Person) // the person takes it over
	held, _ = r.ByGroup("b1", 7)
	fmt.Println(spaces.Check(spaces.Caller{Name: "alice"}, held, true) == spaces.TakenOver)
	// Output:
	// s1 true 🤖 alice
	// true
	// true
}
