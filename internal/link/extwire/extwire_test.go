package extwire

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEncodeRequest pins each op's request as PROTOCOL.md §2.1 and
// extension/dispatch.js read it.
func TestEncodeRequest(t *testing.T) {
	tests := []struct {
		name string
		op   Op
		want string
	}{
		{"cdp", CDP{TabID: 3, Method: "Runtime.evaluate", Params: json.RawMessage(`{"expression":"1+1"}`)},
			`{"id":7,"op":"cdp","tabId":3,"method":"Runtime.evaluate","params":{"expression":"1+1"}}`},
		{"cdp of a child session without params", CDP{TabID: 3, Method: "Page.enable", SessionID: "S1"},
			`{"id":7,"op":"cdp","tabId":3,"method":"Page.enable","sessionId":"S1"}`},
		{"attach", Attach{TabID: 3}, `{"id":7,"op":"attach","tabId":3}`},
		{"tabs.list", TabsList{}, `{"id":7,"op":"tabs.list"}`},
		{"tabs.focused", TabsFocused{}, `{"id":7,"op":"tabs.focused"}`},
		{"tabs.open", TabsOpen{URL: "https://example.com/", Active: false}, `{"id":7,"op":"tabs.open","url":"https://example.com/","active":false}`},
		{"tabs.close", TabsClose{TabID: 3}, `{"id":7,"op":"tabs.close","tabId":3}`},
		{"tabs.activate", TabsActivate{TabID: 3}, `{"id":7,"op":"tabs.activate","tabId":3}`},
		{"echo", Echo{Data: "x"}, `{"id":7,"op":"echo","data":"x"}`},
		{"groups.add to a new group", GroupsAdd{TabIDs: []int{3}, Title: "🤖 a", Color: "blue"}, `{"id":7,"op":"groups.add","tabIds":[3],"title":"🤖 a","color":"blue"}`},
		{"groups.add to a group", GroupsAdd{TabIDs: []int{3, 4}, GroupID: 9}, `{"id":7,"op":"groups.add","tabIds":[3,4],"groupId":9}`},
		{"groups.update", GroupsUpdate{GroupID: 9, Title: "✋ a"}, `{"id":7,"op":"groups.update","groupId":9,"title":"✋ a"}`},
		{"groups.list", GroupsList{}, `{"id":7,"op":"groups.list"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := EncodeRequest(7, tt.op)
			if err != nil {
				t.Fatal(err)
			}
			var got, want any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("request %s is not JSON: %v", b, err)
			}
			json.Unmarshal([]byte(tt.want), &want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEncodeRequestBadParams(t *testing.T) {
	if _, err := EncodeRequest(1, CDP{TabID: 1, Method: "X", Params: json.RawMessage(`{`)}); err == nil {
		t.Fatal("got no error for params that are not JSON")
	}
}
