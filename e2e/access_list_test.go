package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/egohost/egohost/client"
	"github.com/egohost/egohost/protocol"
)

// A paired agent sees only the tabs it may act on: tabs.list shows a
// space-scoped agent its own spaces' tabs (not the person's tabs, whose
// URLs may carry tokens), an all-tabs agent every tab but those on an
// origin its rules deny; spaces.list shows a space-scoped agent its own
// spaces even when it asks for all. The owner sees everything.
func TestPairedAgentSeesOnlyItsTabs(t *testing.T) {
	c := originsChain(t) // "wide" may not reach localhost
	base := serve(t, map[string]string{"/": accessPage})
	denied := strings.Replace(base, "127.0.0.1", "localhost", 1)
	personTab := c.openTab(t, base+"/?secret=person").Tab
	deniedTab := c.openTab(t, denied+"/").Tab
	bot := dialToken(t, c, pairDirect(t, c, "bot", "space"))
	wide := dialToken(t, c, pairDirect(t, c, "wide", "space", "all-tabs"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	carol, err := client.Dial(ctx, c.svc.addr, c.svc.token, client.Options{Agent: "carol"})
	if err != nil {
		t.Fatal(err)
	}
	defer carol.Close()

	tabIDs := func(cl *client.Client) []int {
		t.Helper()
		var r protocol.TabsListResult
		if err := cl.Call(ctx, protocol.MethodTabsList, nil, &r); err != nil {
			t.Fatalf("tabs.list: %v", err)
		}
		var ids []int
		for _, tab := range r.Tabs {
			ids = append(ids, tab.ID)
		}
		return ids
	}
	if got := tabIDs(bot); len(got) != 0 {
		t.Errorf("bot, before it has a space, sees tabs %v; want none", got)
	}
	var botSpace, carolSpace protocol.SpaceResult
	if err := bot.Call(ctx, protocol.MethodSpacesNew, protocol.SpacesNewParams{URL: base + "/"}, &botSpace); err != nil {
		t.Fatalf("bot's space: %v", err)
	}
	if err := carol.Call(ctx, protocol.MethodSpacesNew, protocol.SpacesNewParams{URL: base + "/"}, &carolSpace); err != nil {
		t.Fatalf("carol's space: %v", err)
	}
	botTab, carolTab := botSpace.Tab.ID, carolSpace.Tab.ID
	if got := tabIDs(bot); !slices.Equal(got, []int{botTab}) {
		t.Errorf("bot sees tabs %v; want only its own %d", got, botTab)
	}
	got := tabIDs(wide)
	if slices.Contains(got, deniedTab) || !slices.Contains(got, personTab) || !slices.Contains(got, botTab) || !slices.Contains(got, carolTab) {
		t.Errorf("wide (all-tabs, localhost denied) sees %v; want every tab but %d", got, deniedTab)
	}
	if got := tabIDs(c.agent); !slices.Contains(got, deniedTab) || !slices.Contains(got, personTab) {
		t.Errorf("the owner sees %v; want every tab", got)
	}

	var sl protocol.SpacesListResult
	if err := bot.Call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{All: true}, &sl); err != nil {
		t.Fatal(err)
	}
	if len(sl.Spaces) != 1 || sl.Spaces[0].Agent != "bot" {
		t.Errorf("bot's spaces.list all: %+v; want its own only", sl.Spaces)
	}
	if err := bot.Call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{Agent: "carol"}, &sl); err != nil {
		t.Fatal(err)
	}
	if len(sl.Spaces) != 1 || sl.Spaces[0].Agent != "bot" {
		t.Errorf("bot's spaces.list of carol: %+v; want its own only", sl.Spaces)
	}
	if err := wide.Call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{All: true}, &sl); err != nil || len(sl.Spaces) != 2 {
		t.Errorf("wide's spaces.list all: %+v, %v; want bot's and carol's", sl.Spaces, err)
	}
}
