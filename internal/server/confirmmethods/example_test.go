package confirmmethods

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/egohost/egohost/internal/engine/actions"
	"github.com/egohost/egohost/internal/server/confirm"
	"github.com/egohost/egohost/internal/server/confirm/asks"
	"github.com/egohost/egohost/internal/server/rpcparams"
	"github.com/egohost/egohost/protocol"
)

// A paired agent's click on a shop's "Place order" button waits for the
// person (the default policy asks about submits and purchases): the
// agent hears what it waits on, the popup of the tab's browser lists the
// ask with a picture of the button, and the person's yes there lets the
// click go on. (The call, the tab, the page and the service are fakes.)
func Example() {
	s := &fakeService{store: asks.Load(filepath.Join(os.TempDir(), "no-such-egohost-data-dir"), func(string, ...any) {})}
	m := New(s, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	c := &fakeCall{kinds: []confirm.Kind{confirm.Submit, confirm.Purchase}}
	c.onWait = func(w protocol.ConfirmWaiting) {
		fmt.Println("the agent:", w.Message)
		res, _ := m.PopupList(ctx, fakePopup("B1"), rpcparams.None{})
		for _, q := range res.(protocol.ConfirmListResult).Pending {
			fmt.Printf("the popup: %s (%s, a %d-byte picture)\n", q.Action, q.Kind, len(q.Picture))
		}
		res, _ = m.PopupAnswer(ctx, fakePopup("B1"), protocol.ConfirmAnswerParams{ID: w.ID, Allow: true})
		fmt.Println("the person:", res.(protocol.ConfirmAnswerResult).Decision)
	}
	button := &actions.Facts{Facts: confirm.Facts{Tag: "button", Role: "button", Name: "Place order", Submits: true}, URL: "https://shop.example/cart"}
	hook := m.Hook(c, newTab(0, "https://shop.example/cart"), &fakeRunner{facts: button}, "click", false)
	judged, err := hook(ctx, actions.Element{})
	fmt.Println("the click goes on:", judged, err)
	for _, line := range s.said() {
		fmt.Println("audit:", line)
	}
	// Output:
	// the agent: waiting for the person to confirm: click button 'Place order' on shop.example
	// the popup: click button 'Place order' on shop.example (submit, a 3-byte picture)
	// the person: allowed
	// the click goes on: true <nil>
	// audit: bot confirm.ask waiting: click button 'Place order' on shop.example
	// audit: person confirm.answer allowed: bot: click button 'Place order' on shop.example
}
