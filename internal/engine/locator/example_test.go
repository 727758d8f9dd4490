package locator_test

import (
	"fmt"

	"github.com/egohost/egohost/internal/engine/locator"
)

func Example() {
	for _, in := range []string{
		`role:button[name="Next"]`,
		`#submit`,
		`//a[@href]`,
		`text:exact:"Sign in"`,
		`li:has-text("Milk") >> role=button >> nth=0`,
	} {
		l, err := locator.Parse(in)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(l)
	}
	_, err := locator.Parse(`role=button[name="Next"`)
	fmt.Println(err)
	// Output:
	// role=button[name="Next"i]
	// css=#submit
	// xpath=//a[@href]
	// text="Sign in"
	// css=li >> has-text="Milk"i >> role=button >> nth=0
	// invalid locator "role=button[name=\"Next\"": unclosed [ at offset 11
}
