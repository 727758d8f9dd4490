package cli

import (
	"encoding/json"
	"testing"

	"github.com/egohost/egohost/protocol"
)

// TestReadVerbsFinish checks what the get and is verbs make of the
// service's answer (finishAs).
func TestReadVerbsFinish(t *testing.T) {
	verbs := readVerbs()
	box := protocol.ResolveParams{Element: "@4"} // get box's params: its TARGET
	tests := []struct {
		name, verb         string
		params             any
		raw, want, wantErr string // the service's answer; the verb's, or its error
	}{
		{"get value", "get value", nil, `{"tab":7,"element":"@3","value":"a@b.c"}`, `{"tab":7,"element":"@3","value":"a@b.c"}`, ""},
		{"get value of a div", "get value", nil, `{"tab":7,"element":"@3"}`, "", "get value: @3 holds no value (inputs, textareas, selects and contenteditable elements do)"},
		{"get count", "get count", nil, `{"count":3,"matches":[]}`, `{"count":3}`, ""},
		{"get box", "get box", box, `{"count":1,"matches":[{"box":{"x":1,"y":2,"width":3,"height":4}}]}`, `{"x":1,"y":2,"width":3,"height":4}`, ""},
		{"get box of nothing", "get box", box, `{"count":0,"matches":[]}`, "", "get box: nothing matches @4 (not_found 1100)"},
		{"is checked", "is checked", nil, `{"tab":1,"element":"@2","checked":true}`, `{"checked":true,"element":"@2","tab":1}`, ""},
		{"is checked of a link", "is checked", nil, `{"tab":1,"element":"@2"}`, "", "is checked: @2 is not a checkbox, radio button or switch"},
		{"a bad answer", "get count", nil, `[`, "", "unexpected end of JSON input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := verbs[tt.verb].finish(nil, tt.params, json.RawMessage(tt.raw))
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("got error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
