package tabmethods

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/egohost/egohost/internal/link/extwire"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// Tabs is tabs.list. It describes the present: it never waits for a
// browser. The tabs are those of the browser connected now, those the
// caller may see, each with its space; a browser that is reconnecting is
// listed as such (Reconnecting), with no tabs.
func (m *Methods) Tabs(ctx context.Context, c Call, p protocol.TabsListParams) (any, error) {
	name := p.Browser
	if name == "" {
		name = c.Home()
	}
	b, reconnecting, err := c.Now(name)
	if err != nil {
		return nil, err
	}
	res := protocol.TabsListResult{Tabs: []protocol.Tab{}, Reconnecting: reconnecting}
	if b == nil {
		return res, nil // on its way back: nothing of it is connected now
	}
	if err := b.CheckAutomation(); err != nil {
		return nil, err
	}
	tabs, err := b.Tabs(ctx)
	if wireerr.CodeOf(err) == protocol.CodeBrowserGone {
		// It dropped under the call: it is reconnecting now.
		if !slices.ContainsFunc(res.Reconnecting, func(r protocol.Browser) bool { return r.ID == b.ID() }) {
			info := b.Info()
			info.RelayPID, info.DisconnectedAt = 0, time.Now()
			res.Reconnecting = append(res.Reconnecting, info)
		}
		return res, nil
	}
	if err != nil {
		return nil, err
	}
	b.Sync(ctx)
	reg := m.svc.Spaces()
	for i := range tabs {
		if sp, ok := reg.ByGroup(b.ID(), tabs[i].GroupID); ok {
			tabs[i].Space = sp.ID
		}
	}
	res.Tabs = b.Visible(tabs)
	return res, nil
}

// closeDialogPoll is how often a close that has not ended looks for the
// dialog that holds it.
const closeDialogPoll = 20 * time.Millisecond

// Close is tabs.close. A page that asks whether to leave (a beforeunload
// dialog, after the person or an agent used it) holds Chrome's close until
// someone answers: the call then fails at once with dialog_open, as goto
// does, and the dialog's answer decides (accept closes the tab, dismiss
// keeps it). Egohost sees the dialogs of the tabs it is attached to; on
// another tab the close waits for its deadline and says what may hold it.
func (m *Methods) Close(ctx context.Context, c Call, p protocol.TabParams) (any, error) {
	b, id, err := c.Target(ctx, p.Target)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	// Returning stops the wait for a close a dialog holds (the browser's
	// late reply is dropped) and waits for the call to end.
	defer wg.Wait()
	defer cancel()
	done := make(chan error, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, err := b.Call(cctx, extwire.TabsClose{TabID: id})
		done <- err
	}()
	tick := time.NewTicker(closeDialogPoll)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				if ctx.Err() != nil {
					return nil, protocol.Errorf(protocol.CodeTimeout, "tabs.close: tab %d did not close before the call's deadline: "+
						"its page may be asking whether to leave (a beforeunload dialog egohost does not see on a tab it is not attached to); "+
						"answer it in the browser: %v", id, err)
				}
				return nil, err
			}
			return map[string]any{"closed": true, "tab": id}, nil
		case <-tick.C:
			if d := b.Dialog(id); d != nil && d.Type == "beforeunload" {
				return nil, protocol.Errorf(protocol.CodeDialogOpen, "tabs.close: the page in tab %d asks whether to leave (a beforeunload dialog): "+
					"`egohost dialog accept` closes the tab, `egohost dialog dismiss` keeps it", id).With("dialog", d)
			}
		}
	}
}

// Select is tabs.select: it brings the named tab to the front.
func (m *Methods) Select(ctx context.Context, c Call, p protocol.TabParams) (any, error) {
	if p.Tab == 0 {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "tabs.select needs a tab")
	}
	b, _, err := c.Target(ctx, p.Target)
	if err != nil {
		return nil, err
	}
	if err := b.CheckScope(ctx, p.Tab); err != nil {
		return nil, err
	}
	raw, err := b.Call(ctx, extwire.TabsActivate{TabID: p.Tab})
	if err != nil {
		return nil, err
	}
	return TabReply(raw, b.ID(), "tabs.select")
}
