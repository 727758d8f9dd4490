package cookiewire_test

import (
	"fmt"

	"github.com/chromedp/cdproto/network"

	"github.com/egohost/egohost/internal/server/cookiewire"
)

// Chrome's cookies of a tab on the wire: cookies.get's answer, one name
// kept.
func Example() {
	if err := cookiewire.CheckURL("cookies.get", 3, "about:blank"); err != nil {
		fmt.Println(err)
	}
	chrome := []*network.Cookie{
		{Name: "sid", Value: "abc", Domain: "shop.example", Path: "/", Session: true, Expires: -1},
		{Name: "theme", Value: "dark", Domain: "shop.example", Path: "/"},
	}
	for _, c := range cookiewire.Cookies(chrome, "sid") {
		fmt.Println(c.Name, c.Value, c.Domain, c.Expires)
	}
	// Output:
	// cookies.get: tab 3 shows "about:blank", which has no cookies: navigate to an http(s) page first (unsupported 1108)
	// sid abc shop.example 0
}
