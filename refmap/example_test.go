package refmap_test

import (
	"context"
	"fmt"

	"github.com/egohost/egohost/refmap"
)

func Example() {
	m := refmap.New()
	snapshot := func(context.Context) error {
		// A real snapshot walks the page; here it finds one button.
		m.Rebuild([]refmap.Entry{{Ref: "1", BackendNodeID: 42, Role: "button", Name: "Save"}})
		return nil
	}
	// A ref before any snapshot: Ensure takes one first.
	if err := m.Ensure(context.Background(), "@1", snapshot); err != nil {
		fmt.Println(err)
	}
	ref, _ := refmap.ParseRef("@1")
	e, ok := m.Get(ref)
	fmt.Println(ok, e.Role, e.Name, e.BackendNodeID)
	// Output: true button Save 42
}
