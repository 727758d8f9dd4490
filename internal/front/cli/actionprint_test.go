package cli

import (
	"bytes"
	"testing"

	"github.com/egohost/egohost/protocol"
)

func TestWriteAction(t *testing.T) {
	tests := []struct {
		name string
		r    protocol.ActionResult
		want string
	}{
		{"a click", protocol.ActionResult{Element: "<button>Go</button>", TookMs: 12},
			"clicked <button>Go</button> in 12 ms\n"},
		{"a click that navigated", protocol.ActionResult{Element: "<a>Next</a>", TookMs: 80, Settled: protocol.Settled{Ms: 60, For: []string{"navigation"}, Navigated: true, URL: "http://x.test/next"}},
			"clicked <a>Next</a> in 80 ms (settled 60 ms: navigation)\nnavigated to http://x.test/next\n"},
		{"a click that opened tabs", protocol.ActionResult{Element: "<a>New</a>", TookMs: 30, Opened: []protocol.Tab{{ID: 8, URL: "http://x.test/new"}, {ID: 9, URL: "about:blank"}}},
			"clicked <a>New</a> in 30 ms\nopened tab 8: http://x.test/new (act there with --tab 8)\nopened tab 9: about:blank (act there with --tab 9)\n"},
		{"a click that opened a popup window", protocol.ActionResult{Element: "<button>Sign in</button>", TookMs: 30, Opened: []protocol.Tab{{ID: 8, URL: "http://id.test/", Popup: true}}},
			"clicked <button>Sign in</button> in 30 ms\nopened tab 8, a popup window: http://id.test/ (act there with --tab 8)\n"},
		{"a fill whose page moved the focus", protocol.ActionResult{Element: `<textarea id="_to">`, Value: new(string), FocusMovedTo: `<input role="combobox" type="text">`, TookMs: 20},
			"clicked <textarea id=\"_to\"> → \"\" in 20 ms\nthe page moved the focus to <input role=\"combobox\" type=\"text\">: the text went there\n"},
		{"a click whose release landed elsewhere", protocol.ActionResult{Element: "<button>Go</button>", ReleasedOn: `<div id="banner">`, TookMs: 15},
			"clicked <button>Go</button> in 15 ms\nthe release landed on <div id=\"banner\">, not on the element (it moved or was replaced after the press): the page saw a press of it and no click\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeAction(&b, "clicked", tt.r); err != nil {
				t.Fatal(err)
			}
			if got := b.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
