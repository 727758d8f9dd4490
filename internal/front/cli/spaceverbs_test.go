package cli

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/egohost/egohost/protocol"
)

// The take over tells the person which of the space's tabs ran the
// agent's own script, and how to load them afresh; a space without such
// a tab prints its one line.
func TestTakeOverSaysWhichTabsRanTheAgentsScript(t *testing.T) {
	for _, tt := range []struct {
		name  string
		space protocol.Space
		want  string
	}{
		{"no script", protocol.Space{ID: "s1", Agent: "alice", State: "person", Color: "blue", Title: "✋ alice", Tabs: []int{50, 51}},
			"you have space s1  person   blue  ✋ alice  tabs [50 51]\n"},
		{"two tabs scripted", protocol.Space{ID: "s1", Agent: "alice", State: "person", Color: "blue", Title: "✋ alice", Tabs: []int{50, 51}, Scripted: []int{50, 51}},
			"you have space s1  person   blue  ✋ alice  tabs [50 51]\n" +
				"  ! tab 50: alice ran its own script in this page, which can read what you type there: reload it first (egohost reload --tab 50)\n" +
				"  ! tab 51: alice ran its own script in this page, which can read what you type there: reload it first (egohost reload --tab 51)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, _ := json.Marshal(protocol.SpaceResult{Space: tt.space})
			var out bytes.Buffer
			if err := printSpace("you have space")(&out, raw); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
