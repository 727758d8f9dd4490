package tabdata

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/egohost/egohost/protocol"
)

// storage.get reads the kind of storage asked (local when none) of a tab
// no dialog blocks.
func TestStorageGet(t *testing.T) {
	dialog := protocol.Errorf(protocol.CodeDialogOpen, "storage.get: a alert dialog blocks tab 7")
	tests := []struct {
		name    string
		params  protocol.StorageGetParams
		dialog  error
		readErr error
		read    []string
		code    protocol.Code
	}{
		{name: "local by default", params: protocol.StorageGetParams{}, read: []string{"local "}},
		{name: "one session key", params: protocol.StorageGetParams{Kind: "session", Name: "cart"}, read: []string{"session cart"}},
		{name: "an unknown kind", params: protocol.StorageGetParams{Kind: "indexed"}, code: protocol.CodeInvalidParams},
		{name: "a dialog blocks the tab", dialog: dialog, code: protocol.CodeDialogOpen},
		{name: "the page fails", readErr: context.DeadlineExceeded, read: []string{"local "}, code: protocol.CodeTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items := []protocol.StorageItem{{Key: "cart", Value: "3"}}
			tab := &fakeTab{id: 7, dialog: tt.dialog, origin: "https://example.com", items: items, readErr: tt.readErr}
			res, err := testMethods().StorageGet(context.Background(), &fakeCall{tabs: tab}, tt.params)
			if got := codeOf(err); got != tt.code {
				t.Fatalf("got %v (%v), want code %v", got, err, tt.code)
			}
			if d := cmp.Diff(tt.read, tab.read); d != "" {
				t.Errorf("reads (-want +got):\n%s", d)
			}
			if err != nil {
				return
			}
			want := protocol.StorageGetResult{Tab: 7, Origin: "https://example.com", Kind: "local", Items: items}
			if tt.params.Kind != "" {
				want.Kind = tt.params.Kind
			}
			if d := cmp.Diff(want, res); d != "" {
				t.Errorf("result (-want +got):\n%s", d)
			}
		})
	}
}
