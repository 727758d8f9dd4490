package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/egohost/egohost/protocol"
)

// The agent's side of its spaces (PROTOCOL.md §3.6): an MCP agent's tabs
// live in a tab group of its own; the person may take it over (the
// agent's calls then fail with user_in_control) and hand it back; the
// agent ends it when the task is done.

type spaceNewIn struct {
	Task string `json:"task" jsonschema:"the task in a few words (at most 80 bytes): the user sees it on the tab group"`
	URL  string `json:"url,omitempty" jsonschema:"the first page (default about:blank)"`
}

type spaceWaitIn struct {
	Space   string  `json:"space,omitempty" jsonschema:"the space, as browser_spaces names it (default: the current tab's)"`
	Timeout float64 `json:"timeout,omitempty" jsonschema:"seconds to wait (default: as long as one call may, about 29); call again while the user still has it"`
}

type spaceCompleteIn struct {
	Space string `json:"space,omitempty" jsonschema:"the space (default: the current tab's)"`
	Keep  bool   `json:"keep,omitempty" jsonschema:"leave its tabs open for the user, marked done, instead of closing them"`
}

// currentSpace is the space of the session's tab ("" when it has none:
// the service then picks the agent's current space).
func (t *tools) currentSpace(ctx context.Context) string {
	cur := t.target().Tab
	if cur == 0 {
		return ""
	}
	var r protocol.TabsListResult
	if err := t.c.Call(ctx, protocol.MethodTabsList, protocol.TabsListParams{}, &r); err != nil {
		return ""
	}
	for _, tab := range r.Tabs {
		if tab.ID == cur {
			return tab.Space
		}
	}
	return ""
}

func (t *tools) spacesList(ctx context.Context, _ noIn) *mcp.CallToolResult {
	var sl protocol.SpacesListResult
	if err := t.call(ctx, protocol.MethodSpacesList, protocol.SpacesListParams{}, &sl); err != nil {
		return failure(err)
	}
	if len(sl.Spaces) == 0 {
		return text("no spaces yet: your first browser_navigate or browser_tabs new opens one (or browser_space_new with a task)")
	}
	tabs, cur, err := t.tabList(ctx)
	if err != nil {
		return failure(err)
	}
	var b strings.Builder
	for i, sp := range sl.Spaces {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s %q: %s", sp.ID, sp.Title, stateWords(sp.State))
		if sp.Current {
			b.WriteString(" (current)")
		}
		for _, id := range sp.Tabs {
			i := slices.IndexFunc(tabs, func(tab protocol.Tab) bool { return tab.ID == id })
			if i < 0 {
				fmt.Fprintf(&b, "\n  [tab %d]", id)
				continue
			}
			b.WriteString("\n  " + tabLine(i, tabs[i], cur))
		}
	}
	return text(b.String())
}

// stateWords says who is in control of a space.
func stateWords(state string) string {
	switch state {
	case "person":
		return "the user has it (wait with browser_space_wait)"
	case "idle", "working":
		return "yours"
	}
	return state
}

func (t *tools) spaceNew(ctx context.Context, in spaceNewIn) *mcp.CallToolResult {
	var r protocol.SpaceResult
	if err := t.call(ctx, protocol.MethodSpacesNew, protocol.SpacesNewParams{Task: in.Task, URL: in.URL}, &r); err != nil {
		return failure(err)
	}
	if r.Tab == nil {
		return text(fmt.Sprintf("started space %s %q", r.Space.ID, r.Space.Title))
	}
	t.setTab(r.Tab.ID)
	return t.page(ctx, fmt.Sprintf("started space %s %q with tab %d", r.Space.ID, r.Space.Title, r.Tab.ID))
}

func (t *tools) spaceWait(ctx context.Context, in spaceWaitIn) *mcp.CallToolResult {
	if in.Timeout < 0 {
		return badArgs(errors.New("timeout must not be negative"))
	}
	space := cmpOr(in.Space, t.currentSpace(ctx))
	var r protocol.SpaceResult
	start := time.Now()
	err := t.call(ctx, protocol.MethodSpacesWaitForControl, protocol.SpacesWaitParams{Space: space, TimeoutMs: int(in.Timeout * 1000)}, &r)
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Code == protocol.CodeTimeout {
		return failure(protocol.Errorf(protocol.CodeTimeout, "the user still has space %s after %.0f s: call browser_space_wait again to wait on, or stop here and tell the user", cmpOr(space, "(current)"), time.Since(start).Seconds()))
	}
	if err != nil {
		return failure(err)
	}
	// The user may have navigated, typed, closed tabs: the page as it is
	// now, from a fresh snapshot (earlier refs may be stale).
	return t.page(ctx, fmt.Sprintf("you are in control of space %s again", r.Space.ID))
}

func (t *tools) spaceComplete(ctx context.Context, in spaceCompleteIn) *mcp.CallToolResult {
	space := cmpOr(in.Space, t.currentSpace(ctx))
	var r protocol.SpacesCompleteResult
	if err := t.call(ctx, protocol.MethodSpacesComplete, protocol.SpacesCompleteParams{Space: space, Keep: in.Keep}, &r); err != nil {
		return failure(err)
	}
	cur := t.target().Tab
	if slices.Contains(r.Closed, cur) || slices.Contains(r.Kept, cur) {
		t.setTab(0) // kept tabs are the user's now
	}
	line := "completed space " + r.Space
	if len(r.Closed) > 0 {
		line += "; closed " + tabWords(r.Closed)
	}
	if len(r.Kept) > 0 {
		line += "; left " + tabWords(r.Kept) + " to the user"
	}
	return text(line)
}

func tabWords(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	if len(ids) == 1 {
		return "tab " + s[0]
	}
	return "tabs " + strings.Join(s, ", ")
}
