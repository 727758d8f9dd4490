package ownermethods

import (
	"context"
	"fmt"
	"os"

	"github.com/egohost/egohost/internal/server/pairing"
	"github.com/egohost/egohost/protocol"
)

// An agent asks to pair; the person denies it with the popup's button.
// The service (here a fake that prints) tells the browsers a request
// waits, and writes both decisions' audit lines.
func Example() {
	dir, err := os.MkdirTemp("", "ownermethods")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	m, f, err := newFake(dir, pairing.DefaultLimits)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	f.onNotice = func(n protocol.PairingNotice) {
		fmt.Printf("badge %s: %s asks for %v\n", n.Badge, n.Pending[0].Name, n.Pending[0].Scopes)
		if _, err := m.PopupPairingDecide(ctx, fakePopup{}, protocol.PopupPairingDecideParams{ID: n.Pending[0].ID}); err != nil {
			panic(err)
		}
	}
	_, err = m.PairRequest(ctx, &fakeCall{name: "(unpaired)"}, protocol.PairRequestParams{Name: "bot", Scopes: []string{"read"}})
	fmt.Println(err)
	for _, e := range f.audits {
		fmt.Println(e.Agent, e.Method, e.Target, e.Result)
	}
	// Output:
	// badge 1: bot asks for [read]
	// pair bot: pairing denied by the person (pairing_denied 1142)
	// person agents.deny bot ok
	// (unpaired) pair.request bot denied
}
