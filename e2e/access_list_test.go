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

// Revoking an agent ends its spaces: their tabs stay, the person's, and an
// agent paired later under the same name starts with no space and sees
// none of those tabs (spaces belong to a name; before, it took them over).
func TestRevokeEndsTheAgentsSpaces(t *testing.T) {
	c := useSharedChain(t)
	base := serve(t, map[string]string{"/": accessPage})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bot := dialToken(t, c, pairDirect(t, c, "bot", "space"))
	var sp protocol.SpaceResult
	if err := bot.Call(ctx, protocol.MethodSpacesNew, protocol.SpacesNewParams{URL: base + "/?bot=first"}, &sp); err != nil {
		t.Fatalf("bot's space: %v", err)
	}
	if err := c.agent.Call(ctx, protocol.MethodAgentsRevoke, protocol.AgentNameParams{Name: "bot"}, nil); err != nil {
		t.Fatalf("revoke bot: %v", err)
	}
	var all protocol.SpacesListResult
	if err := c.agent.Call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{All: true}, &all); err != nil {
		t.Fatal(err)
	}
	for _, s := range all.Spaces {
		if s.Agent == "bot" {
			t.Errorf("after the revoke, spaces.list has bot's space %+v; want it ended", s)
		}
	}
	if !tabOpen(ctx, t, c, sp.Tab.ID) {
		t.Errorf("after the revoke, the space's tab %d is gone; want it kept for the person", sp.Tab.ID)
	}

	again := dialToken(t, c, pairDirect(t, c, "bot", "space"))
	var mine protocol.SpacesListResult
	if err := again.Call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{}, &mine); err != nil || len(mine.Spaces) != 0 {
		t.Errorf("a new bot's spaces.list: %+v, %v; want none", mine.Spaces, err)
	}
	var seen protocol.TabsListResult
	if err := again.Call(ctx, protocol.MethodTabsList, nil, &seen); err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(seen.Tabs, func(tb protocol.Tab) bool { return tb.ID == sp.Tab.ID }) {
		t.Errorf("a new bot sees the revoked bot's tab %d; want it hidden", sp.Tab.ID)
	}
	if _, err := c.eval(ctx, protocol.Target{Tab: sp.Tab.ID}, "1"); err != nil {
		t.Errorf("the person's eval on the kept tab: %v", err)
	}
	err := again.Call(ctx, protocol.MethodEval, protocol.EvalParams{Target: protocol.Target{Tab: sp.Tab.ID}, Expression: "1"}, nil)
	if err == nil {
		t.Error("a new bot's eval on the revoked bot's tab: got no error, want a refusal")
	}
}
