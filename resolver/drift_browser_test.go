package resolver_test

import (
	"testing"

	"github.com/egohost/egohost/internal/testkit/browsertest"
	"github.com/egohost/egohost/resolver"
)

// driftPage holds what the locator engine and the snapshot once computed
// apart, each its own way (issue 23); Chrome's names, in comments, decide.
const driftPage = `<!doctype html><title>drift</title>
<style>.s::before { content: "Sa" "ve" } .a::before { content: "★" / "Starred" } .i::before { content: "Icon" }</style>
<button class=s></button>
<button class=a></button>
<button class=i>text</button>
<input type=" color" aria-label=Spaced>
<span id=lo>Light</span><div id=host></div>
<script>
document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<input aria-labelledby=lo>';
</script>`

// What a locator matches and what a snapshot shows come from one page
// module: generated content is concatenated as Chrome does ("Sa" "ve" is
// "Save", an alternative text after a slash replaces the content, an
// inline ::before is glued to the text), so a regular expression over the
// whole name finds the element; an input's type is not trimmed (Chrome
// makes type=" color" a text box); an ID reference stays in its own tree.
func TestOneModuleForLocatorsAndSnapshotsInChromium(t *testing.T) {
	b := browsers.Launch(t)
	p, ctx := tab0(t, b, browsertest.Serve(t, browsertest.Pages(map[string]string{"/": driftPage}))+"/")
	r := resolver.New(p, nil)
	for target, want := range map[string]int{
		`role=button[name=/^Save$/]`:      1, // Chrome: "Save"
		`role=button[name=/^Starred$/]`:   1, // Chrome: "Starred"
		`role=button[name=/^Icontext$/]`:  1, // Chrome: "Icontext"
		`role=textbox[name="Spaced"]`:     1, // Chrome: textbox "Spaced"
		`role=ColorWell[name="Spaced"]`:   0,
		`label=Light`:                     0, // Chrome: the shadow input has no name (Playwright's getByLabel agrees)
		`role=textbox[name="Light"]`:      0,
		`role=button[name="Save"s]`:       1,
		`role=button[name=/Sa ve/]`:       0,
		`role=button[name=/^Icon text$/]`: 0,
		`role=button[name=/^★ Starred$/]`: 0,
	} {
		n, err := r.Count(ctx, target)
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		if n != want {
			t.Errorf("%s: got %d, want %d", target, n, want)
		}
	}
}
