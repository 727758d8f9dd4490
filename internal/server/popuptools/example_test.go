package popuptools

import (
	"context"
	"fmt"

	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/resolver"
)

// The person tests a locator in the popup: the tab's resolver finds two
// links, the popup lists both, and the overlay numbers them in the page.
// (The tab here is a fake whose resolver answers from a table.)
func Example() {
	m, _ := newMethods()
	tab := newTab(map[string][]resolver.Match{"role=link": {
		{BackendNodeID: 5, Role: "link", Name: "Docs", Box: &resolver.Box{X: 30, Y: 10, Width: 40, Height: 20}},
		{BackendNodeID: 6, Role: "link", Name: "Blog", Box: &resolver.Box{X: 90, Y: 10, Width: 40, Height: 20}},
	}})
	res, err := m.Highlight(context.Background(), &fakePopup{tab: tab}, protocol.PopupHighlightParams{Targets: []string{"role=link"}})
	if err != nil {
		panic(err)
	}
	for _, h := range res.(protocol.PopupHighlightResult).Matches {
		fmt.Printf("%s: %s %q at %v,%v\n", h.Target, h.Role, h.Name, h.Box.X, h.Box.Y)
	}
	fmt.Println(drawn(tab.page))
	// Output:
	// role=link: link "Docs" at 30,10
	// role=link: link "Blog" at 90,10
	// [show [{"x":10,"y":0,"width":40,"height":20,"label":"1/2"},{"x":70,"y":0,"width":40,"height":20,"label":"2/2"}]]
}
