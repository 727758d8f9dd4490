package service

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/egohost/egohost/internal/link/browserlink"
	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/cdpsub"
	"github.com/egohost/egohost/internal/server/hub"
	"github.com/egohost/egohost/internal/server/popuptools"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// link is one connected browser as the service sees it: the hub's link
// (its browser link and its tabs' state) and what the service keeps for
// the person at it.
type link struct {
	*hub.Link

	person *agent            // the person at this browser: the popup's calls run as it
	latest popuptools.Latest // the person's latest pick (popup.pick)

	// syncMu guards synced: whether the spaces were reconciled with this
	// browser's tab groups (internal/server/service/spaces.go), once per link.
	syncMu sync.Mutex
	synced bool

	// listOnly: this browser's extension answered tabs.focused with
	// unknown_op (it predates the op): the person's tab comes from the list.
	listOnly atomic.Bool
}

// newLink is the service's link of a browser the hub accepted.
func (s *Service) newLink(l *hub.Link) *link {
	person := &agent{s: s, person: true, name: personName, grant: personGrant}
	person.subs = cdpsub.NewSet(&s.subscriptions, person) // stays empty: the popup channel cannot subscribe
	return &link{Link: l, person: person}
}

// listTabs asks the extension for the browser's tabs.
func (l *link) listTabs(ctx context.Context) ([]protocol.Tab, error) {
	raw, err := l.Call(ctx, extwire.TabsList{})
	if err != nil {
		return nil, err
	}
	var res protocol.TabsListResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, protocol.Errorf(protocol.CodeExtension, "tabs.list: bad reply: %v", err)
	}
	for i := range res.Tabs {
		res.Tabs[i].Browser = l.ID
		res.Tabs[i].GroupID = l.Layout.SpaceGroup(res.Tabs[i])
	}
	if res.Tabs == nil {
		res.Tabs = []protocol.Tab{}
	}
	return res.Tabs, nil
}

// focusedTab asks the extension for the person's tab: the active tab of
// the last focused window, else any window's active tab (ok false: none).
// An extension from before the tabs.focused op is asked for the whole list.
func (l *link) focusedTab(ctx context.Context) (tab int, ok bool, err error) {
	var raw json.RawMessage
	if !l.listOnly.Load() {
		raw, err = l.Link.Call(ctx, extwire.TabsFocused{})
		var le *browserlink.Error
		if errors.As(err, &le) && le.Kind == browserlink.KindExtension && le.Ext != nil && le.Ext.Code == extwire.ErrUnknownOp {
			l.listOnly.Store(true)
		}
	}
	if l.listOnly.Load() {
		tabs, err := l.listTabs(ctx)
		if err != nil {
			return 0, false, err
		}
		sort.SliceStable(tabs, func(i, j int) bool { return tabs[i].Focused && !tabs[j].Focused })
		for _, t := range tabs {
			if t.Active {
				return t.ID, true, nil
			}
		}
		return 0, false, nil
	}
	if err != nil {
		return 0, false, wireerr.FromLink(err)
	}
	var res extwire.TabsFocusedResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return 0, false, protocol.Errorf(protocol.CodeExtension, "tabs.focused: bad reply: %v", err)
	}
	if res.Tab == nil {
		return 0, false, nil
	}
	return res.Tab.ID, true, nil
}

// tabURL returns the tab's URL now: from the registry, or, for a tab it
// has heard nothing of yet, from the browser (and remembered).
func (l *link) tabURL(ctx context.Context, id int) (string, error) {
	if url, ok := l.URLs.Get(id); ok {
		return url, nil
	}
	tabs, err := l.listTabs(ctx)
	if err != nil {
		return "", err
	}
	url := ""
	for _, t := range tabs {
		l.URLs.Set(t.ID, t.URL)
		if t.ID == id {
			url = t.URL
		}
	}
	return url, nil
}

// Call sends op through the browser link; its error is the agents'.
func (l *link) Call(ctx context.Context, op extwire.Op) (json.RawMessage, error) {
	raw, err := l.Link.Call(ctx, op)
	return raw, wireerr.FromLink(err)
}
