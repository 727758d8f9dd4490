package locator

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCandidatesInRankOrder(t *testing.T) {
	tests := []struct {
		name string
		el   Element
		want []string
	}{
		{
			name: "button with text, test id and id",
			el:   Element{Tag: "button", Role: "button", Name: "Save", CSS: "#save", Text: "Save", Attrs: map[string]string{"data-testid": "save-btn", "id": "save"}},
			want: []string{`role=button[name="Save"]`, `role=button[name="Save"s]`, `text="Save"`, `testid="save-btn"`, `css=#save`, `role=button`},
		},
		{
			name: "labelled input with placeholder",
			el:   Element{Tag: "input", Role: "textbox", Name: "Email", CSS: "form > input:nth-of-type(2)", Attrs: map[string]string{"placeholder": "you@example.com", "title": "Your mail"}},
			want: []string{`role=textbox[name="Email"]`, `role=textbox[name="Email"s]`, `label="Email"`, `placeholder="you@example.com"`, `title="Your mail"`, `css=form > input:nth-of-type(2)`, `role=textbox`},
		},
		{
			name: "image with alt",
			el:   Element{Tag: "img", Role: "image", Name: "A cat", CSS: "img", Attrs: map[string]string{"alt": "A cat"}},
			want: []string{`role=image[name="A cat"]`, `role=image[name="A cat"s]`, `alt="A cat"`, `css=img`, `role=image`},
		},
		{
			name: "generic div: text and CSS only",
			el:   Element{Tag: "div", Role: "generic", CSS: "div.card", Text: `Say "hi" <b>`},
			want: []string{`text="Say \"hi\" <b>"`, `css=div.card`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range Candidates(tt.el) {
				got = append(got, c.Locator)
				if _, err := Parse(c.Locator); err != nil {
					t.Errorf("candidate %q does not parse: %v", c.Locator, err)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
		})
	}
}
