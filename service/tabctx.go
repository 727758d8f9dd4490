package service

import (
	"context"

	"github.com/egohost/egohost/page"
	"github.com/egohost/egohost/protocol"
	"github.com/egohost/egohost/snapshot"
)

// tabContext is everything a page-level method needs about its tab.
type tabContext struct {
	link  *link
	tabID int
	page  *page.Page    // main session + out-of-process frames
	snap  *snapshot.Tab // the tab's refs and previous snapshot
}

// tabContext resolves a target to its tab and opens the tab's page.
func (s *Service) tabContext(ctx context.Context, t protocol.Target) (*tabContext, error) {
	l, id, err := s.target(ctx, t)
	if err != nil {
		return nil, err
	}
	p, snap, err := l.page(ctx, id)
	if err != nil {
		return nil, err
	}
	return &tabContext{link: l, tabID: id, page: p, snap: snap}, nil
}
