package service

import (
	"cmp"
	"context"

	"github.com/egohost/egohost/internal/engine/page"
	"github.com/egohost/egohost/internal/server/wireerr"
	"github.com/egohost/egohost/protocol"
)

// storage.get reads the localStorage or sessionStorage of a tab's main
// frame (page.ReadStorage: in egohost's isolated world, which the page's
// scripts cannot change). Like cookies, what it reads may be credentials:
// it needs act.
func (s *Service) storageGet(ctx context.Context, c *call, p protocol.StorageGetParams) (any, error) {
	if err := p.Check(protocol.MethodStorageGet); err != nil {
		return nil, err
	}
	kind := cmp.Or(p.Kind, "local")
	tc, err := s.tabContextWithin(ctx, c, p.Target, "storage.get", 0)
	if err != nil {
		return nil, err
	}
	if err := tc.checkDialog("storage.get"); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.ActionTimeout)
	defer cancel()
	origin, items, err := page.ReadStorage(ctx, tc.res, tc.tabID, kind, p.Name)
	if err != nil {
		return nil, wireerr.Classify(err)
	}
	return protocol.StorageGetResult{Tab: tc.tabID, Origin: origin, Kind: kind, Items: items}, nil
}
